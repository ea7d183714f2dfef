// The dependency direction of docs/architecture.md ("Layers"): engine knows neither Qt nor CUDA,
// cuda/ knows no Qt, widgets/ know no CUDA. Checked on the sources (includes) and on the link graph
// that CMake computed (written next to the test binary at configure time).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<std::string> offendingIncludes(const fs::path& dir, const std::regex& forbidden) {
  std::vector<std::string> hits;
  if (!fs::exists(dir)) return hits;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension().string();
    if (!entry.is_regular_file() ||
        (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh" && ext != ".in")) {
      continue;
    }
    std::ifstream in(entry.path());
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (std::regex_search(line, forbidden)) {
        hits.push_back(entry.path().string() + ":" + std::to_string(lineNo) + ": " + line);
      }
    }
  }
  return hits;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

const fs::path kSource = MODESCOPE_SOURCE_DIR;
const std::regex kQtInclude(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]+/)[^>"]*[>"])");
const std::regex kCudaInclude(
    R"(^\s*#\s*include\s*[<"](cuda_runtime|cuda\.h|cuda_gl_interop|cufft|cublas|cusparse|curand|cusolver|thrust/|cub/)[^>"]*[>"])");

}  // namespace

TEST(Layering, EngineIncludesNoQt) {
  const auto hits = offendingIncludes(kSource / "engine", kQtInclude);
  EXPECT_TRUE(hits.empty()) << join(hits);
}

TEST(Layering, EngineIncludesNoCuda) {
  const auto hits = offendingIncludes(kSource / "engine", kCudaInclude);
  EXPECT_TRUE(hits.empty()) << join(hits);
}

TEST(Layering, CudaIncludesNoQt) {
  const auto hits = offendingIncludes(kSource / "cuda", kQtInclude);
  EXPECT_TRUE(hits.empty()) << join(hits);
}

TEST(Layering, WidgetsIncludeNoCuda) {
  const auto hits = offendingIncludes(kSource / "widgets", kCudaInclude);
  EXPECT_TRUE(hits.empty()) << join(hits);
}

TEST(Layering, EngineIncludesNoWidgetsOrApp) {
  const std::regex upward(R"(^\s*#\s*include\s*[<"](widgets|app|cuda)/)");
  const auto hits = offendingIncludes(kSource / "engine", upward);
  EXPECT_TRUE(hits.empty()) << join(hits);
}

TEST(Layering, LinkGraphIsHonest) {
  // Written by tests/CMakeLists.txt with file(GENERATE): "<target>: <link libraries>" per line.
  std::ifstream in(MODESCOPE_LINK_GRAPH_FILE);
  ASSERT_TRUE(in) << "missing " << MODESCOPE_LINK_GRAPH_FILE;
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    ASSERT_NE(colon, std::string::npos) << line;
    const std::string target = line.substr(0, colon);
    const std::string libs = line.substr(colon + 1);
    if (target == "modescope_engine" || target == "modescope_io" || target == "modescope_appcore") {
      EXPECT_EQ(libs.find("Qt6::"), std::string::npos) << target << " links Qt: " << libs;
    }
    if (target == "modescope_engine" || target == "modescope_io" || target == "modescope_widgets") {
      EXPECT_EQ(libs.find("CUDA::"), std::string::npos) << target << " links CUDA: " << libs;
      EXPECT_EQ(libs.find("modescope_cuda"), std::string::npos)
          << target << " links cuda/: " << libs;
    }
    ++checked;
  }
  EXPECT_GE(checked, 2);
}
