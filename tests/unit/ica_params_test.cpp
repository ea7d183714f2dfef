// ICA parameters (engine/ica/ica_params.h): the presets carry runica's and MNE 1.3's documented
// defaults (docs/ica.md, "Parameters and presets"), the automatic rules give their formulas'
// values, and validation names the parameter.
#include "engine/ica/ica_params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/core/error.h"

namespace modescope {
namespace {

TEST(IcaParams, RunicaPresetHasRunicasDefaults) {
  const IcaParams p = icaPreset("eeglab-runica");
  EXPECT_TRUE(p.extended);  // pop_runica's 'extended', 1
  EXPECT_EQ(p.maxSteps, 512);
  EXPECT_EQ(p.annealDegrees, 60.0);
  EXPECT_EQ(p.sphering, IcaSphering::Runica);
  EXPECT_TRUE(p.bias);
  EXPECT_EQ(p.ext.extBlocks, 1);
  EXPECT_EQ(p.ext.subGaussian, 1);
  EXPECT_EQ(p.ext.kurtosisSamples, 6000);
  EXPECT_EQ(p.ext.kurtosisMomentum, 0.5);
  EXPECT_EQ(p.ext.signsBias, 0.02);
  EXPECT_EQ(p.ext.signCountThreshold, 25);
  EXPECT_EQ(p.ext.signCountStep, 2.0);
  EXPECT_EQ(p.maxWeight, 1e8);
  EXPECT_EQ(p.restartFactor, 0.9);
  EXPECT_EQ(p.blowupChange, 1e9);
  EXPECT_EQ(p.blowupFactor, 0.8);
  EXPECT_EQ(p.minLearningRate, 1e-6);
  EXPECT_EQ(p.maxSmallAngleSteps, 0);
  EXPECT_NO_THROW(validateIcaParams(p));
}

TEST(IcaParams, RunicaRulesGiveRunicasFormulas) {
  IcaParams p = icaPreset("eeglab-runica");
  // EEGLAB's sample data: 32 channels, 30504 frames -> block 52 (ceil(min(5 ln N, 0.3 N))).
  ResolvedIcaParams r = resolveIcaParams(p, 32, 32, 30504);
  EXPECT_EQ(r.blockSize, 52);
  EXPECT_DOUBLE_EQ(r.learningRate, 0.00065 / std::log(32.0));
  EXPECT_EQ(r.stopTolerance, 1e-6);  // <= 32 components
  EXPECT_EQ(r.annealFactor, 0.98);   // extended
  // 64 channels reduced to 63 components: the rate still uses the 64 channels, the tolerance the
  // 63 components.
  r = resolveIcaParams(p, 64, 63, 19680);
  EXPECT_DOUBLE_EQ(r.learningRate, 0.00065 / std::log(64.0));
  EXPECT_EQ(r.stopTolerance, 1e-7);
  EXPECT_EQ(r.blockSize, static_cast<int>(std::ceil(5 * std::log(19680.0))));
  // 0.3 N wins for tiny N: ceil(min(5 ln 10, 3)) = 3.
  EXPECT_EQ(resolveIcaParams(p, 2, 2, 10).blockSize, 3);
  p.extended = false;
  EXPECT_EQ(resolveIcaParams(p, 8, 8, 1000).annealFactor, 0.90);
  // Explicit values win.
  p.learningRate = 1e-3;
  p.blockSize = 17;
  p.annealFactor = 0.5;
  p.stopTolerance = 1e-9;
  r = resolveIcaParams(p, 8, 8, 1000);
  EXPECT_EQ(r.learningRate, 1e-3);
  EXPECT_EQ(r.blockSize, 17);
  EXPECT_EQ(r.annealFactor, 0.5);
  EXPECT_EQ(r.stopTolerance, 1e-9);
}

TEST(IcaParams, MnePresetHasMneInfomaxDefaults) {
  const IcaParams p = icaPreset("MNE-Infomax");  // names are case-insensitive
  EXPECT_TRUE(p.extended);
  EXPECT_EQ(p.rules, IcaRules::Mne);
  EXPECT_EQ(p.maxSteps, 200);
  EXPECT_EQ(p.sphering, IcaSphering::PcaUnit);
  EXPECT_EQ(p.blowupChange, 1e4);
  EXPECT_EQ(p.blowupFactor, 0.5);
  EXPECT_EQ(p.minLearningRate, 1e-10);
  EXPECT_EQ(p.maxSmallAngleSteps, 20);
  EXPECT_TRUE(p.ext.centredKurtosis);
  const ResolvedIcaParams r = resolveIcaParams(p, 64, 64, 19680);
  EXPECT_DOUBLE_EQ(r.learningRate, 0.01 / std::log(64.0 * 64.0));
  EXPECT_EQ(r.blockSize, 80);  // floor(sqrt(19680 / 3)) = floor(80.99)
  EXPECT_EQ(r.stopTolerance, 1e-12);
  EXPECT_EQ(r.annealFactor, 0.9);
  EXPECT_NO_THROW(validateIcaParams(p));
}

TEST(IcaParams, UnknownPresetListsTheKnownOnes) {
  try {
    icaPreset("fastica");
    FAIL();
  } catch (const InvalidParameterError& e) {
    EXPECT_EQ(e.parameter(), "preset");
    EXPECT_NE(std::string(e.what()).find("eeglab-runica, mne-infomax"), std::string::npos);
  }
}

TEST(IcaParams, ValidationNamesTheParameter) {
  struct Case {
    const char* name;
    void (*change)(IcaParams&);
  };
  const Case cases[] = {
      {"learningRate", [](IcaParams& p) { p.learningRate = 0.2; }},
      {"learningRate", [](IcaParams& p) { p.learningRate = -1; }},
      {"learningRate", [](IcaParams& p) { p.learningRate = NAN; }},
      {"blockSize", [](IcaParams& p) { p.blockSize = -3; }},
      {"annealDegrees", [](IcaParams& p) { p.annealDegrees = 0; }},
      {"annealDegrees", [](IcaParams& p) { p.annealDegrees = 200; }},
      {"annealFactor", [](IcaParams& p) { p.annealFactor = 1.5; }},
      {"stopTolerance", [](IcaParams& p) { p.stopTolerance = -1e-7; }},
      {"maxSteps", [](IcaParams& p) { p.maxSteps = 0; }},
      {"pcaRank", [](IcaParams& p) { p.pcaRank = -1; }},
      {"rankTolerance", [](IcaParams& p) { p.rankTolerance = 0; }},
      {"ext.subGaussian", [](IcaParams& p) { p.ext.subGaussian = -1; }},
      {"ext.kurtosisSamples", [](IcaParams& p) { p.ext.kurtosisSamples = 1; }},
      {"ext.kurtosisMomentum", [](IcaParams& p) { p.ext.kurtosisMomentum = 1.0; }},
      {"ext.signCountThreshold", [](IcaParams& p) { p.ext.signCountThreshold = 0; }},
      {"ext.signCountStep", [](IcaParams& p) { p.ext.signCountStep = 0.5; }},
      {"maxWeight", [](IcaParams& p) { p.maxWeight = 0; }},
      {"restartFactor", [](IcaParams& p) { p.restartFactor = 1.0; }},
      {"blowupChange", [](IcaParams& p) { p.blowupChange = -1; }},
      {"blowupFactor", [](IcaParams& p) { p.blowupFactor = 0; }},
      {"minLearningRate", [](IcaParams& p) { p.minLearningRate = 0; }},
      {"maxSmallAngleSteps", [](IcaParams& p) { p.maxSmallAngleSteps = -1; }},
  };
  for (const Case& c : cases) {
    IcaParams p = icaPreset("eeglab-runica");
    c.change(p);
    try {
      validateIcaParams(p);
      ADD_FAILURE() << c.name << " accepted";
    } catch (const InvalidParameterError& e) {
      EXPECT_EQ(e.parameter(), c.name);
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos);
    }
  }
}

TEST(IcaParams, DescriptionSaysWhatRuns) {
  IcaParams p = icaPreset("eeglab-runica");
  p.pcaRank = 20;
  p.seed = 99;
  const std::string d = describeIcaParams(p);
  EXPECT_NE(d.find("extended"), std::string::npos) << d;
  EXPECT_NE(d.find("rank 20"), std::string::npos) << d;
  EXPECT_NE(d.find("seed 99"), std::string::npos) << d;
  EXPECT_NE(d.find("max 512 steps"), std::string::npos) << d;
}

}  // namespace
}  // namespace modescope
