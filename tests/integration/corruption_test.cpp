// Seeded, randomised corruption of every real file, fed to openRecording (our header check, then
// EDFlib in this process, then BioSig in the child process with a 3 s limit), and when a variant
// opens, a read of the first and last page of every channel. The check is that this process
// survives and that every failure is an InvalidInputError naming a field: BioSig 2.5 crashes or
// hangs on some of these (9 crashes and 2 hangs in 120 damaged variants), which the child process
// must contain.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/io/recording_io.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

struct Variant {
  std::string name;
  std::string bytes;
};

std::string readAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string field(std::string s, std::size_t width) {
  s.resize(width, ' ');
  return s;
}

// The original files are valid, so their layout can be read without checks.
struct Layout {
  std::size_t ns = 0, headerBytes = 0, recordBytes = 0, sprOffset = 0;
};

Layout layoutOf(const std::string& f) {
  Layout l;
  l.ns = static_cast<std::size_t>(std::stoul(f.substr(252, 4)));
  l.headerBytes = 256 * (l.ns + 1);
  const std::size_t bps = static_cast<unsigned char>(f[0]) == 0xff ? 3 : 2;
  l.sprOffset = 256 + l.ns * (16 + 80 + 8 * 5 + 80);
  for (std::size_t i = 0; i < l.ns; ++i) {
    l.recordBytes += std::stoul(f.substr(l.sprOffset + 8 * i, 8)) * bps;
  }
  return l;
}

std::vector<Variant> variantsOf(const std::string& f, std::mt19937& rng) {
  const Layout l = layoutOf(f);
  std::vector<Variant> v;
  auto with = [&](std::string name, std::size_t at, const std::string& bytes) {
    std::string c = f;
    c.replace(at, bytes.size(), bytes);
    v.push_back({std::move(name), std::move(c)});
  };
  auto pick = [&](std::size_t lo, std::size_t hi) {  // [lo, hi)
    return lo + static_cast<std::size_t>(rng() % std::max<std::size_t>(1, hi - lo));
  };
  // Truncations: inside the fixed header, the signal headers, the first record, the last.
  std::vector<std::size_t> lengths = {1,
                                      8,
                                      200,
                                      256,
                                      l.headerBytes - 1,
                                      l.headerBytes,
                                      l.headerBytes + l.recordBytes / 2,
                                      l.headerBytes + l.recordBytes + 1,
                                      f.size() - 1};
  if (f.size() > l.headerBytes + l.recordBytes) lengths.push_back(f.size() - l.recordBytes / 2);
  for (int k = 0; k < 3; ++k) lengths.push_back(pick(1, f.size()));
  for (std::size_t len : lengths) {
    if (len < f.size()) v.push_back({"truncated to " + std::to_string(len), f.substr(0, len)});
  }
  // Random header bytes.
  for (int k = 0; k < 4; ++k) {
    std::string c = f;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) c[pick(0, l.headerBytes)] = static_cast<char>(rng() & 0xff);
    v.push_back({"random header bytes #" + std::to_string(k), std::move(c)});
  }
  for (const char* r : {"99999999", "-1", "0", "-7"})
    with(std::string("records ") + r, 236, field(r, 8));
  for (const char* d : {"0", "-1", "1e30", "0.000001"})
    with(std::string("duration ") + d, 244, field(d, 8));
  for (const std::string& n :
       {std::string("0"), std::string("9999"), std::to_string(l.ns + 1), std::string("-1")}) {
    with("signals " + n, 252, field(n, 4));
  }
  for (const char* s : {"0", "99999999", "-1", "1"}) {
    const std::size_t sig = pick(0, l.ns);
    with("signal " + std::to_string(sig + 1) + " samples per record " + s, l.sprOffset + 8 * sig,
         field(s, 8));
  }
  with("non-UTF-8 label", 256, "\xff\xfe\xc3(");
  // Garbage in the data area (hits TALs in EDF+ files).
  {
    std::string c = f;
    for (std::size_t i = 0; i < 64 && l.headerBytes + i < c.size(); ++i) {
      c[l.headerBytes + l.recordBytes - 1 - i] = static_cast<char>(0xff);
    }
    v.push_back({"0xFF at the end of the first record", std::move(c)});
  }
  with("wrong magic", 0, "1       ");
  {
    std::string c = f;
    for (int i = 0; i < 8; ++i) c[static_cast<std::size_t>(i)] = static_cast<char>(rng() & 0xff);
    v.push_back({"random magic", std::move(c)});
  }
  return v;
}

TEST(Corruption, DamagedFilesNeverCrashAndFailAsInvalidInput) {
  std::string dir = (fs::temp_directory_path() / "modescope-corrupt-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};

  std::mt19937 rng(20241122);  // fixed: a failure must reproduce
  std::vector<std::pair<std::string, Variant>> cases;
  cases.push_back({"(none)", {"zero-length file", ""}});
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(MODESCOPE_TEST_DATA)) {
    const auto ext = e.path().extension().string();
    if (ext == ".edf" || ext == ".bdf") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  for (const auto& p : files) {
    for (auto& v : variantsOf(readAll(p.string()), rng))
      cases.push_back({p.filename().string(), std::move(v)});
  }

  OpenOptions options;
  options.helperExecutable = MODESCOPE_CLI;
  options.fallbackTimeoutSeconds = 3.0;
  std::map<std::string, int> outcomes;
  std::vector<std::string> contained;  // BioSig failures the child process absorbed
  const auto t0 = std::chrono::steady_clock::now();
  int index = 0;
  for (const auto& [source, v] : cases) {
    const std::string ext = source.size() > 4 ? source.substr(source.size() - 4) : ".edf";
    const std::string path = dir + "/case" + std::to_string(index++) + ext;
    std::ofstream(path, std::ios::binary) << v.bytes;
    const std::string what = source + ": " + v.name;
    try {
      auto rec = openRecording(path, options);
      for (std::size_t c = 0; c < rec->channelCount(); ++c) {
        const int64_t n = rec->channels[c].sampleCount;
        rec->readChannel(c, 0, 4096);
        rec->readChannel(c, std::max<int64_t>(0, n - 4096), 4096);
      }
      ++outcomes["opened (" + rec->info.reader + ")"];
    } catch (const InvalidInputError& e) {
      EXPECT_FALSE(e.field().empty()) << what << ": " << e.what();
      const std::string msg = e.what();
      if (msg.find("crashed with") != std::string::npos) {
        ++outcomes["refused: tolerant reader crashed"];
        contained.push_back("crashed: " + what);
      } else if (msg.find("did not finish") != std::string::npos) {
        ++outcomes["refused: tolerant reader timed out"];
        contained.push_back("timed out: " + what);
      } else {
        // "signal 12 ('Fp1') digital minimum" -> "signal ... digital minimum" for the tally.
        std::string f = e.field();
        if (f.rfind("signal ", 0) == 0) {
          const auto close = f.find("') ");
          f = "signal ... " + (close == std::string::npos ? f.substr(7) : f.substr(close + 3));
        }
        ++outcomes["refused: " + f];
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not an InvalidInputError: " << e.what();
    }
    fs::remove(path);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu damaged variants in %.1f s:\n", cases.size(), seconds);
  for (const auto& [k, n] : outcomes) std::printf("  %4d  %s\n", n, k.c_str());
  for (const auto& c : contained) std::printf("  BioSig %s\n", c.c_str());
  EXPECT_GE(cases.size(), 200u);
}

}  // namespace
}  // namespace modescope
