// The study report (docs/study.md): one self-contained HTML page, loaded in Debian's chromium
// --headless; the test finds its tables (summary, recordings, group summary, pipeline), its
// inline images, a failed recording's message, and no reference to another file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/integration/study_support.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;
using cli_support::Child;
using cli_support::describe;
using cli_support::runCli;
using cli_support::RunResult;
using namespace study_support;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The study pipeline plus an entropy step, whose group mean the report shows.
const char* kReportPipeline = R"({
  "modescope_pipeline": 1,
  "steps": [
    {"step": "filter", "filters": ["highpass:1"]},
    {"step": "emd", "preset": "iceemdan-colominas", "channels": [1, 2], "duration": 4,
     "params": {"ensembleSize": 4, "seed": 7, "stop.kind": "fixed", "stop.fixedSifts": 5}},
    {"step": "xapen", "params": {"epoch": 512}}
  ]
})";

class StudyReportTest : public cli_support::TempDirTest {
 protected:
  StudyReportTest() : TempDirTest("modescope-study-report") {}
};

TEST_F(StudyReportTest, ChromiumLoadsTheReportWithItsTablesAndImages) {
  synthRecording(path("a.h5"), 4, 8, 1);
  synthRecording(path("b.h5"), 4, 8, 2);
  writeText(path("broken.edf"), "not an EDF file at all");
  writeText(path("p.json"), kReportPipeline);
  const RunResult r =
      runCli({"study", path("p.json"), "--input", path("a.h5"), "--input", path("b.h5"), "--input",
              path("broken.edf"), "-o", path("out"), "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 2) << describe(r);
  const std::string report = path("out/study/report.html");
  ASSERT_TRUE(fs::exists(report));
  const std::string html = readText(report);
  // Self-contained: images are data: URIs, no stylesheet or script is fetched.
  EXPECT_EQ(html.find("src='http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);

  std::string chromium;
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(c)) chromium = c;
  }
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium; "
                    "packaging/quickstart.sh test installs it)";
  }
  const std::string profile = path("chromium-profile");
  Child browser({"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--user-data-dir=" + profile, "--virtual-time-budget=5000", "--dump-dom",
                 "file://" + report},
                chromium);
  const RunResult dom = browser.finish(std::chrono::seconds(120));
  ASSERT_EQ(dom.exitCode, 0) << describe(dom);
  EXPECT_NE(dom.out.find("<title>ModeScope study report</title>"), std::string::npos)
      << dom.out.substr(0, 2000);
  EXPECT_GE(count(dom.out, "<table"), 4u) << "summary, recordings, EMD group summary, pipeline";
  EXPECT_NE(dom.out.find("id=\"recordings\""), std::string::npos);
  EXPECT_GE(count(dom.out, "<img"), 4u)
      << "timings, the EMD group figure, the entropy group matrix and its per-recording bars";
  EXPECT_GE(count(dom.out, "src=\"data:image/svg+xml;base64,"), 4u);
  EXPECT_NE(dom.out.find("group mean of the apen matrices over 2 recordings"), std::string::npos);
  EXPECT_NE(dom.out.find("rec-broken"), std::string::npos);
  EXPECT_NE(dom.out.find("class=\"failed\""), std::string::npos);
  EXPECT_NE(dom.out.find("IMFs per channel"), std::string::npos);
  EXPECT_NE(dom.out.find("highpass:1"), std::string::npos) << "the pipeline is shown";
}

}  // namespace
}  // namespace modescope
