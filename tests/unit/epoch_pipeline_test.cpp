// The epoch step of pipeline files (app/core/pipeline.h): read, written back identically, and
// refused with the field named when it is malformed.
#include <gtest/gtest.h>

#include <string>

#include "app/core/pipeline.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"

namespace modescope {
namespace {

Pipeline read(const std::string& text) { return readPipeline(parseJson(text, "p.json"), "p.json"); }

TEST(EpochPipelineStep, ReadsWritesAndReadsBack) {
  const Pipeline p = read(R"({"modescope_pipeline": 1, "steps": [
      {"step": "filter", "filters": ["bandpass:0.1-30"]},
      {"step": "epoch", "events": ["T1", "T2"], "differences": ["T1-T2"], "epochs": false,
       "channels": ["Cz", "Pz"], "params": {"tmin": -0.1, "tmax": 0.8, "rejectPeakToPeak": 120,
       "baselineStart": -0.1, "rejectBadSegments": false}}]})");
  ASSERT_EQ(p.steps.size(), 2u);
  const auto* e = std::get_if<PipelineEpochStep>(&p.steps[1]);
  ASSERT_NE(e, nullptr);
  EXPECT_STREQ(stepKind(p.steps[1]), "epoch");
  EXPECT_EQ(e->events, (std::vector<std::string>{"T1", "T2"}));
  EXPECT_EQ(e->differences, (std::vector<std::string>{"T1-T2"}));
  EXPECT_FALSE(e->epochs);
  EXPECT_DOUBLE_EQ(e->params.tmin, -0.1);
  EXPECT_DOUBLE_EQ(e->params.rejectPeakToPeak, 120);
  EXPECT_FALSE(e->params.rejectBadSegments);
  EXPECT_EQ(stepOutputName(1, p.steps[1]), "02-epoch.h5");
  const Pipeline back = read(writePipelineJson(p));
  EXPECT_TRUE(back == p) << writePipelineJson(p);
}

TEST(EpochPipelineStep, RefusesWhatTheCommandLineRefuses) {
  auto message = [](const std::string& step) {
    try {
      read(R"({"modescope_pipeline": 1, "steps": [)" + step + "]}");
    } catch (const InvalidInputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(R"({"step": "epoch"})").find("field events"), std::string::npos);
  EXPECT_NE(message(R"({"step": "epoch", "events": []})").find("events"), std::string::npos);
  EXPECT_NE(message(R"({"step": "epoch", "events": ["T1"], "start": 3})").find("start"),
            std::string::npos);
  const std::string m = message(R"({"step": "epoch", "events": ["T1"], "params": {"tmin": 0.5}})");
  EXPECT_NE(m.find("tmin"), std::string::npos) << m;  // above the default tmax 0.5: refused
}

}  // namespace
}  // namespace modescope
