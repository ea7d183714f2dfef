// `modescope-cli ica-flags` against MNE 1.3 on the same decomposition: the eye, heart and muscle
// detectors' scores and flagged components (find_bads_eog, find_bads_ecg correlation and CTPS,
// find_bads_muscle, run by tests/tools/mne_ica_flags.py with /usr/bin/python3) on a synthetic
// recording with EOG and ECG channels and planted artifacts, and on a real recording (PhysioNet
// EEGMMIDB S001R03, 19 of its 64 channels, frontal sites as the EOG, no ECG). The decompositions
// run few Infomax steps: agreement needs the same decomposition, not a converged one. Then
// `ica-apply --reject-flagged` removes exactly the flagged components, from the detectors or a
// components.tsv.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.h"
#include "engine/core/json_value.h"

namespace modescope {
namespace {

using cli_support::describe;
using cli_support::runCli;

const char* kPython = "/usr/bin/python3";

std::string runCapture(const std::string& cmd, int* status) {
  return cli_support::runShellCapture(cmd, status);
}

// Our per-component feature `key` (the first rule that has it) from `ica-flags --json`.
std::vector<double> ourFeature(const JsonValue& flags, const std::string& key) {
  std::vector<double> out;
  for (const JsonValue& c : flags.find("components")->asArray()) {
    double v = std::nan("");
    for (const JsonValue& rule : c.find("rules")->asArray()) {
      if (const JsonValue* f = rule.find("features")->find(key)) {
        v = f->asDouble();
        break;
      }
    }
    out.push_back(v);
  }
  return out;
}

// 0-based components whose rule named `ruleStart...` is flagged.
std::set<int> ourFlagged(const JsonValue& flags, const std::string& ruleStart) {
  std::set<int> out;
  int k = 0;
  for (const JsonValue& c : flags.find("components")->asArray()) {
    for (const JsonValue& rule : c.find("rules")->asArray())
      if (rule.find("rule")->asString().rfind(ruleStart, 0) == 0 && rule.find("flagged")->asBool())
        out.insert(k);
    ++k;
  }
  return out;
}

std::set<int> mneFlagged(const JsonValue& v) {
  std::set<int> out;
  for (const JsonValue& i : v.find("flagged")->asArray()) out.insert(static_cast<int>(i.asInt64()));
  return out;
}

std::string text(const std::set<int>& s) {
  std::string t;
  for (int i : s) t += (t.empty() ? "" : ",") + std::to_string(i);
  return "{" + t + "}";
}

void expectScoresAgree(const std::vector<double>& ours, const JsonValue& mne, double tolerance,
                       const std::string& what) {
  const auto& theirs = mne.find("scores")->asArray();
  ASSERT_EQ(ours.size(), theirs.size()) << what;
  for (std::size_t k = 0; k < ours.size(); ++k)
    EXPECT_NEAR(ours[k], theirs[k].asDouble(), tolerance) << what << ", component " << k;
}

class IcaFlagsMne : public cli_support::TempDirTest {
 protected:
  IcaFlagsMne() : TempDirTest("modescope-ica-flags") {}
  void SetUp() override {
    TempDirTest::SetUp();
    int status = 0;
    runCapture(std::string(kPython) + " -c 'import mne, h5py' 2>&1", &status);
    if (status != 0)
      GTEST_SKIP() << "MNE-Python or h5py is not importable by /usr/bin/python3 (install "
                      "python3-mne python3-h5py): the MNE agreement of the ICA flags did NOT run";
  }

  // ica-flags --json on `ica`, and MNE's detectors through mne_ica_flags.py with `mneArgs`.
  void flagBoth(const std::string& recording, const std::string& ica, const std::string& mneArgs,
                JsonValue* ours, JsonValue* mne) {
    const auto r = runCli({"ica-flags", ica, "-o", path("flags.tsv"), "--json", "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    *ours = parseJson(r.out, "ica-flags --json");
    int status = 0;
    const std::string out =
        runCapture(std::string(kPython) + " " + MODESCOPE_SOURCE_DIR +
                       "/tests/tools/mne_ica_flags.py '" + recording + "' '" + ica + "' " + mneArgs,
                   &status);
    ASSERT_EQ(status, 0) << "mne_ica_flags.py failed: " << out;
    *mne = parseJson(out, "mne_ica_flags.py");
  }

  void decompose(const std::vector<std::string>& args, int steps = 60) {
    std::vector<std::string> all = {"ica"};
    all.insert(all.end(), args.begin(), args.end());
    const std::vector<std::string> options = {"--max-steps", std::to_string(steps), "--backend",
                                              "cpu", "--quiet"};
    all.insert(all.end(), options.begin(), options.end());
    const auto r = runCli(all);
    ASSERT_EQ(r.exitCode, 0) << describe(r);
  }
};

TEST_F(IcaFlagsMne, SyntheticRecordingWithEogAndEcgAgreesWithMne) {
  const std::string rec = path("synthetic.edf"), ica = path("synthetic-ica.h5");
  const auto s = runCli({"synth", "-o", rec, "--channels", "32", "--rate", "128", "--heart-rate",
                         "72", "--saccades", "30", "--exg", "--seed", "7", "--quiet"});
  ASSERT_EQ(s.exitCode, 0) << describe(s);
  decompose({rec, "-o", ica, "--channels", "1-32"});
  JsonValue ours, mne;
  flagBoth(rec, ica, "--eog VEOG,HEOG --ecg ECG", &ours, &mne);
  for (const char* eog : {"VEOG", "HEOG"}) {
    // The channel names ModeScope gives the EDF+ labels "EOG VEOG", "EOG HEOG".
    const std::string name = std::string("EOG ") + eog;
    expectScoresAgree(ourFeature(ours, "r_" + name), *mne.find("eog")->find(eog), 0.01, eog);
    EXPECT_EQ(text(ourFlagged(ours, "MNE find_bads_eog (" + name)),
              text(mneFlagged(*mne.find("eog")->find(eog))))
        << eog;
  }
  const JsonValue& ecg = *mne.find("ecg");
  expectScoresAgree(ourFeature(ours, "r_ECG ECG"), *ecg.find("correlation"), 0.01, "ECG r");
  EXPECT_EQ(text(ourFlagged(ours, "MNE find_bads_ecg correlation")),
            text(mneFlagged(*ecg.find("correlation"))));
  expectScoresAgree(ourFeature(ours, "ctps"), *ecg.find("ctps"), 0.01, "CTPS");
  EXPECT_EQ(text(ourFlagged(ours, "MNE find_bads_ecg CTPS")), text(mneFlagged(*ecg.find("ctps"))));
  expectScoresAgree(ourFeature(ours, "muscle_score"), *mne.find("muscle"), 0.005, "muscle");
  EXPECT_EQ(text(ourFlagged(ours, "MNE find_bads_muscle")), text(mneFlagged(*mne.find("muscle"))));
  // Something to agree about: the blinks and a muscle are flagged by both; after 60 steps the
  // heart is not yet one component (CTPS flags none at 128 Hz's threshold 0.44) but its
  // strongest phase locking stands out.
  EXPECT_FALSE(mneFlagged(*mne.find("eog")->find("VEOG")).empty());
  EXPECT_FALSE(mneFlagged(*mne.find("muscle")).empty());
  double strongest = 0.0;
  for (const JsonValue& v : ecg.find("ctps")->find("scores")->asArray())
    strongest = std::max(strongest, v.asDouble());
  EXPECT_GT(strongest, 0.2);
}

TEST_F(IcaFlagsMne, RealRecordingWithFrontalProxiesAgreesWithMne) {
  const std::string rec = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";
  const std::string ica = path("physionet-ica.h5");
  decompose({rec, "-o", ica, "--duration", "60", "--channels",
             "Fp1,Fp2,F7,F3,Fz,F4,F8,T7,C3,Cz,C4,T8,P7,P3,Pz,P4,P8,O1,O2"});
  JsonValue ours, mne;
  flagBoth(rec, ica, "--eog Fp1,Fp2,AF7,AF8 --bipolar F8,F7", &ours, &mne);
  // The frontal proxy and no ECG; a third note when the activations keep their slow power (the
  // recording is decomposed as recorded, not high-passed).
  std::string notes;
  for (const JsonValue& n : ours.find("notes")->asArray()) notes += n.asString() + "\n";
  EXPECT_NE(notes.find("frontal sites"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no ECG channel"), std::string::npos) << notes;
  for (const char* eog : {"Fp1", "Fp2", "AF7", "AF8", "F8-F7"}) {
    // MNE reads the EDF's samples in double, ModeScope in float, and PhysioNet's 16-bit
    // samples are coarse: r agrees to about 0.01.
    expectScoresAgree(ourFeature(ours, std::string("r_") + eog), *mne.find("eog")->find(eog), 0.02,
                      eog);
    EXPECT_EQ(text(ourFlagged(ours, std::string("MNE find_bads_eog (") + eog + ")")),
              text(mneFlagged(*mne.find("eog")->find(eog))))
        << eog;
  }
  expectScoresAgree(ourFeature(ours, "muscle_score"), *mne.find("muscle"), 0.005, "muscle");
  EXPECT_EQ(text(ourFlagged(ours, "MNE find_bads_muscle")), text(mneFlagged(*mne.find("muscle"))));
  EXPECT_FALSE(mneFlagged(*mne.find("eog")->find("Fp1")).empty());  // S001's blinks
}

TEST_F(IcaFlagsMne, RejectFlaggedRemovesTheFlaggedComponents) {
  const std::string rec = path("synthetic.h5"), ica = path("synthetic-ica.h5");
  const auto s = runCli({"synth", "-o", rec, "--channels", "19", "--rate", "128", "--duration",
                         "30", "--heart-rate", "72", "--exg", "--seed", "3", "--quiet"});
  ASSERT_EQ(s.exitCode, 0) << describe(s);
  decompose({rec, "-o", ica, "--channels", "1-19"});
  const auto f = runCli({"ica-flags", ica, "--json", "--quiet"});
  ASSERT_EQ(f.exitCode, 0) << describe(f);
  std::set<int> expected;  // 1-based, as ica-apply prints them
  const JsonValue flags = parseJson(f.out, "ica-flags");
  for (const JsonValue& c : flags.find("components")->asArray()) {
    const std::string label = c.find("label")->asString();
    if ((label == "eye" || label == "heart") && c.find("confidence")->asDouble() >= 0.5)
      expected.insert(static_cast<int>(c.find("component")->asInt64()));
  }
  ASSERT_FALSE(expected.empty());
  const std::string tsv = path("synthetic-ica_components.tsv");  // the default beside the file
  ASSERT_TRUE(std::ifstream(tsv).good());
  for (const bool fromTsv : {false, true}) {
    std::vector<std::string> args = {"ica-apply",
                                     rec,
                                     "--ica",
                                     ica,
                                     "--reject-flagged",
                                     "eye,heart",
                                     "-o",
                                     path(fromTsv ? "b.h5" : "a.h5"),
                                     "--json"};
    if (fromTsv) args.insert(args.end(), {"--flags", tsv});
    const auto r = runCli(args);
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    std::set<int> removed;
    const JsonValue summary = parseJson(r.out, "ica-apply");
    for (const JsonValue& k : summary.find("rejected")->asArray())
      removed.insert(static_cast<int>(k.asInt64()));
    EXPECT_EQ(text(removed), text(expected)) << (fromTsv ? "from the TSV" : "from the detectors");
  }
  // A label that is not one, and a TSV of another decomposition, are refused by name.
  auto r =
      runCli({"ica-apply", rec, "--ica", ica, "--reject-flagged", "blinks", "-o", path("c.h5")});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("--reject-flagged"), std::string::npos) << r.err;
  std::ofstream(path("short.tsv")) << "component\tic_type\n0\teye blink\n";
  r = runCli({"ica-apply", rec, "--ica", ica, "--reject-flagged", "eye", "--flags",
              path("short.tsv"), "-o", path("d.h5")});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("short.tsv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no row for component 1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace modescope
