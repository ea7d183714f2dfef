// Automatic ICA artifact flags (engine/ica/ica_flags.h, app/core/ica_flags_job.h): the MNE and
// ADJUST building blocks against values worked out from their definitions, and the whole chain
// on synthetic recordings with planted blinks, saccades, heartbeats, muscle bursts and mains:
// each planted artifact's component gets its label, no brain source's component is flagged.
#include "engine/ica/ica_flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "app/core/ica_flags_job.h"
#include "app/core/ica_metrics.h"
#include "app/core/pipeline.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/ica/ica_component_properties.h"
#include "engine/ica/ica_flags_signal.h"
#include "engine/ica/infomax.h"
#include "engine/synth/synthetic_eeg.h"

namespace modescope {
namespace {

using namespace ica_flags;

TEST(IcaFlagsSignal, IteratedZScoreFlagsTheOutlierAndThenTheNextOne) {
  // Round 1: mean 0.1875, population sd ~0.3; 0.9 has z ~2.37 < 3: nothing flagged with 3.
  std::vector<double> z;
  std::vector<double> scores = {0.0, 0.05, -0.05, 0.02, -0.02, 0.01, 0.9, 0.6};
  const std::vector<bool> none = iteratedZOutliers(scores, 3.0, &z);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
  // With 2: 0.9 goes in round 1 (z 2.37); without it 0.6 has z > 2 in round 2.
  const std::vector<bool> bad = iteratedZOutliers(scores, 2.0, &z);
  EXPECT_TRUE(bad[6]);
  EXPECT_TRUE(bad[7]);
  EXPECT_FALSE(bad[0]);
}

TEST(IcaFlagsSignal, KuiperOfUniformPhasesIsSmallOfLockedPhasesLarge) {
  std::vector<double> uniform, locked;
  for (int i = 0; i < 50; ++i) {
    uniform.push_back((i + 0.5) / 50.0);
    locked.push_back(0.5 + 0.001 * i);
  }
  EXPECT_NEAR(kuiperStatistic(uniform), 1.0 / 50.0, 1e-12);         // d1 + d2 = 0.01 + 0.01
  EXPECT_EQ(kuiperProbability(kuiperStatistic(uniform), 50), 0.0);  // lambda < 0.4
  EXPECT_GT(kuiperStatistic(locked), 0.9);
  EXPECT_GT(kuiperProbability(kuiperStatistic(locked), 50), 0.2);
}

TEST(IcaFlagsSignal, CtpsThresholdIsMnesForTheSampleRate) {
  // mne.preprocessing.ICA._get_ctps_threshold with info['sfreq'] = 256 and 1000 (MNE 1.3).
  EXPECT_DOUBLE_EQ(ctpsAutomaticThreshold(256.0), 0.32);
  EXPECT_DOUBLE_EQ(ctpsAutomaticThreshold(1000.0), 0.16);
}

TEST(IcaFlagsSignal, EmThresholdSplitsTwoClusters) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i) v.push_back(1.0 + 0.01 * (i % 7));
  v.push_back(5.0);
  v.push_back(5.2);
  const double t = emThreshold(v);
  EXPECT_GT(t, 1.1);
  EXPECT_LT(t, 5.0);
}

TEST(IcaFlagsSignal, BandPassKeepsThePassBandAndRemovesTheStopBand) {
  const double fs = 256.0;
  const int n = 20 * 256;
  std::vector<float> in(n), pass(n);
  for (int i = 0; i < n; ++i) {
    pass[i] = static_cast<float>(std::sin(2 * M_PI * 5.0 * i / fs));
    in[i] = pass[i] + static_cast<float>(std::sin(2 * M_PI * 40.0 * i / fs));
  }
  const std::vector<double> y = bandPass(in.data(), n, fs, 1.0, 10.0);
  double err = 0.0;
  for (int i = n / 4; i < 3 * n / 4; ++i) err = std::max(err, std::fabs(y[i] - pass[i]));
  EXPECT_LT(err, 0.01);
}

TEST(IcaFlagsLabels, ParseNamesAndRefuseOthers) {
  EXPECT_EQ(parseIcaFlagLabels("eye,heart", "--reject-flagged"),
            (std::vector<IcaFlagLabel>{IcaFlagLabel::Eye, IcaFlagLabel::Heart}));
  EXPECT_EQ(parseIcaFlagLabels("muscle artifact", "--reject-flagged"),
            std::vector<IcaFlagLabel>{IcaFlagLabel::Muscle});
  EXPECT_THROW(parseIcaFlagLabels("eye,brain", "--reject-flagged"), InvalidParameterError);
  EXPECT_THROW(parseIcaFlagLabels("blinks", "--reject-flagged"), InvalidParameterError);
  EXPECT_THROW(parseIcaFlagLabels("", "--reject-flagged"), InvalidParameterError);
}

TEST(IcaFlagsParams, TableRefusesBandEdgesBeyondTheirSplit) {
  IcaFlagParams p;
  EXPECT_NO_THROW(validateIcaFlagParams(p));
  p.eogLowHz = 12.0;
  EXPECT_THROW(validateIcaFlagParams(p), InvalidParameterError);
  p = {};
  p.muscleThreshold = 1.5;
  EXPECT_THROW(validateIcaFlagParams(p), InvalidParameterError);
}

// ---------------------------------------------------------------------------------------------

struct Decomposed {
  SyntheticEeg synth;
  IcaFile file;
  IcaFlagInput input;  // with the EOG and ECG channels
};

// One decomposition of a synthetic recording with every artifact planted, shared by the tests
// (ICA is the slow part). The EEG channels do not depend on exgChannels: those are appended.
const Decomposed& decomposed() {
  static const Decomposed d = [] {
    SynthParams p;
    p.channels = 32;
    p.sampleRate = 128.0;
    p.duration = 60.0;
    p.backgroundMicrovolts = 2.0;
    p.blinkRatePerMinute = 15.0;
    p.saccadesPerMinute = 30.0;
    p.saccadeMicrovolts = 100.0;  // large (15-20 deg) saccades
    p.heartRatePerMinute = 72.0;
    p.heartMicrovolts = 20.0;
    p.muscleBurstsPerMinute = 6.0;
    p.exgChannels = true;
    p.seed = 7;
    JobContext ctx;
    Decomposed out;
    out.synth = generateSyntheticEeg(p, ctx);
    const Recording& rec = *out.synth.recording;
    std::vector<std::size_t> eeg;
    for (std::size_t i = 0; i < static_cast<std::size_t>(p.channels); ++i) eeg.push_back(i);
    const SignalBlock block = extractBlock(rec, eeg, 0.0, p.duration);
    IcaParams ip = icaPreset("eeglab-runica");
    ip.seed = 3;
    ip.maxSteps = 512;  // converges in about 190 steps (10 s of CPU)
    out.file.sampleRate = p.sampleRate;
    out.file.samples = block.samples;
    out.file.channels = icaFileChannels(rec, eeg);
    out.file.result = runInfomaxCpu(block, ip, 2, ctx);
    out.input = icaFlagInput(rec, out.file);
    return out;
  }();
  return d;
}

// The component whose activation follows `source` most closely, and |r|.
std::pair<int, double> bestMatch(const IcaFlagInput& in, const std::vector<float>& source) {
  int best = -1;
  double r = 0.0;
  for (int k = 0; k < in.components; ++k) {
    const double c = std::fabs(
        pearsonCorrelation(in.activations.data() + static_cast<std::size_t>(k) * in.samples,
                           source.data(), in.samples));
    if (c > r) r = c, best = k;
  }
  return {best, r};
}

void expectPlantedArtifactsFound(const Decomposed& d, const IcaFlags& flags) {
  const auto& comps = flags.components;
  struct Planted {
    const char* what;
    const std::vector<float>* source;
    IcaFlagLabel label;
  };
  for (const Planted& p : {Planted{"blinks", &d.synth.blinkSource, IcaFlagLabel::Eye},
                           Planted{"saccades", &d.synth.gazeSource, IcaFlagLabel::Eye},
                           Planted{"heartbeats", &d.synth.heartSource, IcaFlagLabel::Heart}}) {
    const auto [k, r] = bestMatch(d.input, *p.source);
    ASSERT_GE(k, 0) << p.what;
    EXPECT_GT(r, 0.5) << p.what << ": ICA did not isolate it (IC" << k + 1 << ")";
    EXPECT_EQ(comps[static_cast<std::size_t>(k)].label, p.label)
        << p.what << " in IC" << k + 1 << " labelled "
        << icaFlagLabelName(comps[static_cast<std::size_t>(k)].label);
  }
  EXPECT_TRUE(std::any_of(comps.begin(), comps.end(), [](const auto& c) {
    return c.label == IcaFlagLabel::Muscle;
  })) << "no component labelled muscle";
  EXPECT_TRUE(std::any_of(comps.begin(), comps.end(), [](const auto& c) {
    return c.label == IcaFlagLabel::Line;
  })) << "no component labelled line noise";
  for (std::size_t j = 0; j < d.synth.sources.size(); ++j) {
    const auto [k, r] = bestMatch(d.input, d.synth.sources[j]);
    if (r < 0.7) continue;  // not isolated: nothing to say about its label
    EXPECT_EQ(comps[static_cast<std::size_t>(k)].label, IcaFlagLabel::BrainOrOther)
        << "brain source " << j << " (" << d.synth.sourceFrequencies[j] << " Hz) in IC" << k + 1
        << " flagged: " << comps[static_cast<std::size_t>(k)].reasons();
  }
}

TEST(IcaFlagsSynthetic, FrontalProxyAndPeriodicityFindEveryPlantedArtifact) {
  const Decomposed& d = decomposed();
  // As a recording without EOG and ECG electrodes: Fp1 and Fp2 stand in for the EOG.
  IcaFlagInput in = d.input;
  in.eog.clear();
  in.ecg.clear();
  const Recording& rec = *d.synth.recording;
  auto channel = [&](const char* site) {
    return rec.readChannel(static_cast<std::size_t>(rec.findChannel(site)), 0, in.samples);
  };
  for (const char* site : {"Fp1", "Fp2"}) in.eog.push_back({site, channel(site)});
  std::vector<float> horizontal = channel("F8");
  const std::vector<float> f7 = channel("F7");
  for (std::size_t i = 0; i < horizontal.size(); ++i) horizontal[i] -= f7[i];
  in.eog.push_back({"F8-F7", horizontal});
  in.eogIsFrontalProxy = true;
  JobContext ctx;
  const IcaFlags flags = flagIcaComponents(in, IcaFlagParams{}, ctx);
  ASSERT_EQ(flags.notes.size(), 2u);  // the proxy, and periodicity for the heart
  EXPECT_NE(flags.notes[1].find("no ECG channel"), std::string::npos);
  expectPlantedArtifactsFound(d, flags);
}

TEST(IcaFlagsSynthetic, EogAndEcgChannelsFindEveryPlantedArtifact) {
  const Decomposed& d = decomposed();
  ASSERT_EQ(d.input.eog.size(), 2u);
  ASSERT_EQ(d.input.ecg.size(), 1u);
  JobContext ctx;
  const IcaFlags flags = flagIcaComponents(d.input, IcaFlagParams{}, ctx);
  EXPECT_TRUE(flags.notes.empty());
  expectPlantedArtifactsFound(d, flags);
  const std::string tsv = icaFlagsTsv(flags);
  EXPECT_EQ(tsv.rfind("component\ttype\tdescription\tstatus\t", 0), 0u);
  EXPECT_NE(tsv.find("\teye blink\t"), std::string::npos);
  EXPECT_NE(tsv.find("\theart beat\t"), std::string::npos);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

TEST(IcaComponentProperties, SegmentsEpochsSpectrumAndVarianceShare) {
  // One component, map (1, 1): the data are exactly map * activation, so it accounts for 100 %.
  const double fs = 100.0;
  const int64_t n = 1000;
  std::vector<float> act(n), data(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    act[i] = static_cast<float>(std::sin(2 * M_PI * 10.0 * i / fs));
    data[i] = data[n + i] = act[i];
  }
  const auto p =
      icaComponentProperties(act.data(), n, fs, {1.0, 1.0}, data.data(), {0.0, 0.0}, 2.0);
  ASSERT_EQ(p.rows.size(), 5u);  // 10 s in 2 s segments
  EXPECT_EQ(p.rowSamples, 200);
  ASSERT_EQ(p.variancePercent.size(), 5u);
  for (double v : p.variancePercent) EXPECT_NEAR(v, 100.0, 1e-6);
  // The spectrum peaks at 10 Hz and stays within 1-50 Hz (Nyquist below 80).
  ASSERT_FALSE(p.frequencies.empty());
  EXPECT_GE(p.frequencies.front(), 1.0);
  EXPECT_LE(p.frequencies.back(), 50.0);
  const auto peak = std::max_element(p.powerDb.begin(), p.powerDb.end()) - p.powerDb.begin();
  EXPECT_NEAR(p.frequencies[static_cast<std::size_t>(peak)], 10.0, 0.5);
  // Epochs around events: 0.5 s before, 1 s after; the one too close to the end is skipped.
  const auto e = icaComponentProperties(act.data(), n, fs, {1.0, 1.0}, nullptr, {}, 2.0,
                                        {1.0, 4.05, 9.5}, 0.5, 1.0);
  ASSERT_EQ(e.rows.size(), 2u);
  EXPECT_EQ(e.rowSamples, 150);
  EXPECT_DOUBLE_EQ(e.rowStartSeconds, -0.5);
  EXPECT_TRUE(e.variancePercent.empty());
  // The average is the mean of the rows, sample by sample.
  for (int i = 0; i < e.rowSamples; ++i)
    EXPECT_NEAR(e.average[i], 0.5 * (e.rows[0][i] + e.rows[1][i]), 1e-6);
}

}  // namespace
}  // namespace modescope

namespace modescope {
namespace {

// The ICA pipeline step's "flags" field: read, written only when set, round trip, refusals.
TEST(IcaFlagsPipeline, IcaStepFlagsFieldReadsWritesAndRefuses) {
  auto read = [](const std::string& step) {
    return readPipeline(
        parseJson(R"({"modescope_pipeline": 1, "steps": [)" + step + "]}", "p.json"), "p.json",
        nullptr);
  };
  const Pipeline on = read(R"({"step": "ica", "flags": true})");
  EXPECT_TRUE(std::get<PipelineIcaStep>(on.steps[0]).flags);
  EXPECT_FALSE(std::get<PipelineIcaStep>(read(R"({"step": "ica"})").steps[0]).flags);
  const std::string text = writePipelineJson(on);
  EXPECT_NE(text.find("\"flags\": true"), std::string::npos) << text;
  EXPECT_TRUE(read(R"({"step": "ica", "flags": true})") == on);
  EXPECT_FALSE(read(R"({"step": "ica"})") == on);
  EXPECT_EQ(writePipelineJson(read(R"({"step": "ica"})")).find("flags"), std::string::npos);
  try {
    read(R"({"step": "ica", "flags": "yes"})");
    ADD_FAILURE() << "a string accepted for flags";
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find("field flags"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read(R"({"step": "emd", "flags": true})"), InvalidInputError);
}

}  // namespace
}  // namespace modescope
