#include "resources/embedded_resources.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

// Each blob gets _begin/_end symbols; the path comes from CMake (MODESCOPE_RESOURCE_DIR).
#define MODESCOPE_INCBIN(sym, file)                                                      \
  __asm__(".section .rodata\n.global " #sym "_begin\n.balign 16\n" #sym                  \
          "_begin:\n"                                                                    \
          ".incbin \"" MODESCOPE_RESOURCE_DIR "/" file "\"\n.global " #sym "_end\n" #sym \
          "_end:\n.byte 0\n.previous\n");                                                \
  extern "C" const char sym##_begin[];                                                   \
  extern "C" const char sym##_end[];

MODESCOPE_INCBIN(ms_demo_edf, "demo/physionet_eegmmidb_S001R03.edf")
MODESCOPE_INCBIN(ms_pos1005_3d, "montages/eeg_positions_standard_1005_3D.tsv")
MODESCOPE_INCBIN(ms_pos1005_2d, "montages/eeg_positions_standard_1005_2D.tsv")
MODESCOPE_INCBIN(ms_pos1010_3d, "montages/eeg_positions_standard_1010_3D.tsv")
MODESCOPE_INCBIN(ms_pos1020_3d, "montages/eeg_positions_standard_1020_3D.tsv")

namespace modescope {
namespace {

struct Entry {
  const char* name;
  const char* begin;
  const char* end;
};

const Entry kEntries[] = {
    {kDemoResource, ms_demo_edf_begin, ms_demo_edf_end},
    {"montages/eeg_positions_standard_1005_3D.tsv", ms_pos1005_3d_begin, ms_pos1005_3d_end},
    {"montages/eeg_positions_standard_1005_2D.tsv", ms_pos1005_2d_begin, ms_pos1005_2d_end},
    {"montages/eeg_positions_standard_1010_3D.tsv", ms_pos1010_3d_begin, ms_pos1010_3d_end},
    {"montages/eeg_positions_standard_1020_3D.tsv", ms_pos1020_3d_begin, ms_pos1020_3d_end},
};

}  // namespace

std::string_view embeddedResource(std::string_view name) {
  for (const auto& e : kEntries) {
    if (name == e.name) return {e.begin, static_cast<std::size_t>(e.end - e.begin)};
  }
  throw std::out_of_range("no embedded resource named " + std::string(name));
}

std::vector<std::string> embeddedResourceNames() {
  std::vector<std::string> names;
  for (const auto& e : kEntries) names.emplace_back(e.name);
  return names;
}

std::string materializeDemoRecording() {
  static std::once_flag once;
  static std::string path;
  std::call_once(once, [] {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("modescope-demo-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = (dir / "physionet_eegmmidb_S001R03.edf").string();
    const auto data = embeddedResource(kDemoResource);
    {
      std::ofstream out(path, std::ios::binary);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      if (!out) throw std::runtime_error("could not write the demo recording to " + path);
    }
    static const std::string cleanupDir = dir.string();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(cleanupDir, ec);
    });
  });
  return path;
}

}  // namespace modescope
