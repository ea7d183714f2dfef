// EMD-family parameters: the presets carry the reference codes' values (written out here from
// emd.m, iceemdan.m and ceemdan.m, not read back from the code), validation names the parameter,
// names round-trip.
#include "engine/emd/emd_params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "engine/core/error.h"
#include "engine/emd/emd.h"

namespace modescope {
namespace {

void expectRilling(const StopRule& r, int maxSifts) {
  EXPECT_EQ(r.kind, StopRuleKind::Rilling);
  EXPECT_EQ(r.threshold1, 0.05);
  EXPECT_EQ(r.threshold2, 0.5);
  EXPECT_EQ(r.tolerance, 0.05);
  EXPECT_EQ(r.maxSifts, maxSifts);
}

TEST(EmdParams, PresetsCarryTheReferenceValues) {
  const EmdParams emd = emdPreset("emd-rilling");
  EXPECT_EQ(emd.method, EmdMethod::Emd);
  expectRilling(emd.stop, 2000);
  EXPECT_EQ(emd.maxImfs, 0);

  const EmdParams col = emdPreset("iceemdan-colominas");
  EXPECT_EQ(col.method, EmdMethod::Iceemdan);
  expectRilling(col.stop, 5000);
  expectRilling(col.noiseStop, 2000);
  EXPECT_EQ(col.noiseStd, 0.2);
  EXPECT_EQ(col.ensembleSize, 100);
  EXPECT_EQ(col.noiseScaling, NoiseScaling::Increasing);
  EXPECT_EQ(col.maxImfs, 0);

  const EmdParams th = emdPreset("iceemdan-thesis");
  EXPECT_EQ(th.method, EmdMethod::Iceemdan);
  EXPECT_EQ(th.stop.kind, StopRuleKind::FixedSifts);
  EXPECT_EQ(th.stop.fixedSifts, 10);
  EXPECT_EQ(th.noiseStop.kind, StopRuleKind::FixedSifts);
  EXPECT_EQ(th.noiseStop.fixedSifts, 10);
  EXPECT_EQ(th.maxImfs, 11);  // 12 rows with the residue
  EXPECT_EQ(th.ensembleSize, 100);
  EXPECT_EQ(th.noiseStd, 0.2);

  const EmdParams ce = emdPreset("ceemdan-torres");
  EXPECT_EQ(ce.method, EmdMethod::Ceemdan);
  expectRilling(ce.stop, 5000);
  EXPECT_EQ(ce.ensembleSize, 100);
  EXPECT_EQ(ce.noiseStd, 0.2);

  const EmdParams ee = emdPreset("eemd-wu");
  EXPECT_EQ(ee.method, EmdMethod::Eemd);
  EXPECT_EQ(ee.stop.kind, StopRuleKind::FixedSifts);
  EXPECT_EQ(ee.stop.fixedSifts, 10);
  EXPECT_EQ(ee.ensembleSize, 100);
  EXPECT_EQ(ee.noiseStd, 0.2);
  EXPECT_EQ(ee.maxImfs, 0);

  EXPECT_EQ(emdPresets().size(), 5u);
  for (const EmdPreset& p : emdPresets()) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_NO_THROW(validateEmdParams(p.params)) << p.name;
  }
  // Case and surrounding blanks do not matter.
  EXPECT_EQ(emdPreset(" ICEEMDAN-Thesis ").maxImfs, 11);
}

TEST(EmdParams, UnknownPresetNamesTheKnownOnes) {
  try {
    emdPreset("iceemdan-fast");
    FAIL() << "no throw";
  } catch (const InvalidParameterError& e) {
    EXPECT_EQ(e.parameter(), "preset");
    const std::string m = e.what();
    EXPECT_NE(m.find("iceemdan-fast"), std::string::npos) << m;
    for (const EmdPreset& p : emdPresets()) EXPECT_NE(m.find(p.name), std::string::npos) << m;
  }
}

// Applies `change` to valid ICEEMDAN parameters and expects the error to name `parameter`.
template <class F>
void expectRejected(F change, const std::string& parameter) {
  EmdParams p = emdPreset("iceemdan-colominas");
  change(p);
  try {
    validateEmdParams(p);
    ADD_FAILURE() << parameter << ": no throw";
  } catch (const InvalidParameterError& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
  }
}

TEST(EmdParams, ValidationNamesEachBadParameter) {
  expectRejected([](EmdParams& p) { p.ensembleSize = 0; }, "ensembleSize");
  expectRejected([](EmdParams& p) { p.ensembleSize = (1 << 20) + 1; }, "ensembleSize");
  expectRejected([](EmdParams& p) { p.noiseStd = 0; }, "noiseStd");
  expectRejected([](EmdParams& p) { p.noiseStd = std::numeric_limits<double>::quiet_NaN(); },
                 "noiseStd");
  expectRejected([](EmdParams& p) { p.stop.threshold1 = -0.1; }, "stop.threshold1");
  expectRejected([](EmdParams& p) { p.stop.threshold2 = std::numeric_limits<double>::infinity(); },
                 "stop.threshold2");
  expectRejected([](EmdParams& p) { p.stop.threshold1 = 0.6; }, "stop.threshold1");  // > 0.5
  expectRejected([](EmdParams& p) { p.stop.tolerance = 1.0; }, "stop.tolerance");
  expectRejected([](EmdParams& p) { p.stop.tolerance = 0.0; }, "stop.tolerance");
  expectRejected([](EmdParams& p) { p.stop.maxSifts = 0; }, "stop.maxSifts");
  expectRejected([](EmdParams& p) { p.noiseStop.maxSifts = 0; }, "noiseStop.maxSifts");
  expectRejected(
      [](EmdParams& p) {
        p.stop.kind = StopRuleKind::FixedSifts;
        p.stop.fixedSifts = 0;
      },
      "stop.fixedSifts");
  expectRejected(
      [](EmdParams& p) {
        p.stop.kind = StopRuleKind::SNumber;
        p.stop.sNumber = 0;
      },
      "stop.sNumber");
  expectRejected([](EmdParams& p) { p.maxImfs = -1; }, "maxImfs");
  expectRejected(
      [](EmdParams& p) {
        p.method = EmdMethod::Eemd;
        p.pairedNoise = true;
        p.ensembleSize = 7;
      },
      "ensembleSize");
  // EMD ignores the ensemble fields.
  EmdParams emd = emdPreset("emd-rilling");
  emd.ensembleSize = 0;
  emd.noiseStd = -1;
  EXPECT_NO_THROW(validateEmdParams(emd));
}

// An automatic IMF count stops at floor(log2 N) + 6 (the GPU's float32 residue otherwise never
// ends on some white noise: tests/gpu/emd_parity_test.cpp); a given count is kept as it is.
TEST(EmdParams, AnAutomaticImfCountHasALimit) {
  EmdParams p;
  p.maxImfs = 0;
  EXPECT_EQ(imfLimit(p, 20001), 20);  // log2 20001 = 14.3
  EXPECT_EQ(imfLimit(p, 16384), 20);
  EXPECT_EQ(imfLimit(p, 16383), 19);
  EXPECT_EQ(imfLimit(p, 4), 8);
  EXPECT_EQ(automaticImfLimit(102401), 22);
  p.maxImfs = 30;
  EXPECT_EQ(imfLimit(p, 20001), 30);
  const Diagnostic d = imfLimitDiagnostic(20, {1, 4});
  EXPECT_EQ(d.code, "emd.imfLimitReached");
  EXPECT_EQ(d.severity, Severity::Warning);
  EXPECT_NE(d.message.find("limit of 20 IMFs"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("channels 1, 4"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("float64"), std::string::npos) << d.message;
}

TEST(EmdParams, NamesRoundTripAndStopRulesDescribeThemselves) {
  for (EmdMethod m : {EmdMethod::Emd, EmdMethod::Eemd, EmdMethod::Ceemdan, EmdMethod::Iceemdan})
    EXPECT_EQ(parseEmdMethod(emdMethodName(m)), m);
  EXPECT_EQ(parseEmdMethod("ICEEMDAN"), EmdMethod::Iceemdan);
  EXPECT_THROW(parseEmdMethod("memd"), InvalidParameterError);
  EXPECT_STREQ(stopRuleName(StopRuleKind::Rilling), "rilling");
  EXPECT_STREQ(stopRuleName(StopRuleKind::FixedSifts), "fixed");
  EXPECT_STREQ(stopRuleName(StopRuleKind::SNumber), "s-number");
  StopRule r;
  EXPECT_EQ(describeStopRule(r), "rilling 0.05/0.5/0.05, at most 2000 sifts");
  r.kind = StopRuleKind::FixedSifts;
  EXPECT_EQ(describeStopRule(r), "10 fixed sifts");
  r.kind = StopRuleKind::SNumber;
  EXPECT_EQ(describeStopRule(r), "S-number 4, at most 2000");
}

}  // namespace
}  // namespace modescope
