// The EMD job (app/core/emd_job.h) with a test double for the backend: the double records what
// it was given and returns a two-row "decomposition" (the block minus its mean, and the mean), so
// the job's own work is checked without the real sifting: the selection it cuts, the checks it
// makes before reading samples, the fields it fills in the result, the provenance, progress and
// cancellation.
#include "app/core/emd_job.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stop_token>
#include <string>
#include <vector>

#include "backend_test_double.h"
#include "engine/core/error.h"

namespace modescope {
namespace {

constexpr double kRate = 100.0;

class RecordingBackend final : public test_support::UnexpectedCallBackend {
 public:
  BackendInfo info() const override {
    BackendInfo i;
    i.deviceName = "test double";
    i.threads = 1;
    return i;
  }
  void applyReference(SignalBlock&, const ReferencePlan&, JobContext&) override {}
  void applyFir(SignalBlock&, const FirKernel&, JobContext&) override {}
  EmdResult decompose(const SignalBlock& block, const EmdParams& params, JobContext& ctx) override {
    seen = block;
    ++decomposeCalls;
    ctx.progress(0.5, "sifting");
    EmdResult r;
    r.params = params;
    // Left at 0 on purpose: the job, not every backend, fixes where the block came from.
    r.samples = block.samples;
    for (std::size_t i = 0; i < block.channels.size(); ++i) {
      EmdChannelModes m;
      m.channel = i;  // the block row, not the recording index: the job must map it
      m.rows = 2;
      const float* x = block.channel(i);
      const double mean =
          std::accumulate(x, x + block.samples, 0.0) / static_cast<double>(block.samples);
      for (int64_t n = 0; n < block.samples; ++n) m.data.push_back(static_cast<float>(x[n] - mean));
      for (int64_t n = 0; n < block.samples; ++n) m.data.push_back(static_cast<float>(mean));
      m.sifts = {1};
      r.channels.push_back(std::move(m));
    }
    return r;
  }
  HhtResult hilbertHuang(const EmdResult& modes, const HhtParams& params, JobContext&) override {
    ++hhtCalls;
    HhtResult h;
    h.params = params;
    h.params.fMax = params.fMax > 0 ? params.fMax : modes.sampleRate / 2;
    h.samples = modes.samples;
    for (const auto& c : modes.channels) {
      HhtChannel hc;
      hc.channel = c.channel;
      h.channels.push_back(hc);
    }
    return h;
  }
  SignalBlock seen;
  int decomposeCalls = 0, hhtCalls = 0;
};

// Four channels: three at 100 Hz (2000 samples, channel c holds c * 10 + ramp), one at 50 Hz.
std::shared_ptr<Recording> makeRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/rec.edf";
  std::vector<std::vector<float>> data;
  const char* names[] = {"Fp1", "Cz", "O2", "Resp"};
  for (int c = 0; c < 4; ++c) {
    ChannelInfo ch;
    ch.name = ch.label = names[c];
    ch.sampleRate = c == 3 ? kRate / 2 : kRate;
    ch.sampleCount = c == 3 ? 1000 : 2000;
    std::vector<float> v;
    for (int64_t n = 0; n < ch.sampleCount; ++n) v.push_back(static_cast<float>(c * 10 + n % 7));
    data.push_back(std::move(v));
    rec->channels.push_back(ch);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

EmdJobSpec makeSpec() {
  EmdJobSpec s;
  s.channels = {2, 0};
  s.startSeconds = 3.0;
  s.durationSeconds = 4.0;
  s.params.method = EmdMethod::Iceemdan;
  s.params.ensembleSize = 40;
  s.params.noiseStd = 0.25;
  s.params.seed = 77;
  s.presetName = "iceemdan-colominas";
  s.inputFile = "rec.edf";
  return s;
}

std::string parameter(const Provenance& p, const std::string& name) {
  for (const auto& [n, v] : p.parameters) {
    if (n == name) return v;
  }
  return "(missing)";
}

TEST(EmdJob, CutsTheSelectionAndFillsWhereTheModesCameFrom) {
  const auto rec = makeRecording();
  RecordingBackend backend;
  JobContext ctx;
  const EmdJobResult r = runEmdJob(*rec, makeSpec(), backend, ctx);
  ASSERT_EQ(backend.decomposeCalls, 1);
  EXPECT_EQ(backend.hhtCalls, 0);
  EXPECT_EQ(backend.seen.channels, (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(backend.seen.firstSample, 300);
  EXPECT_EQ(backend.seen.samples, 400);
  // Block row 0 is recording channel 2, whose sample 300 is 20 + 300 % 7.
  EXPECT_EQ(backend.seen.channel(0)[0], 20.0f + 300 % 7);
  ASSERT_TRUE(r.modes);
  EXPECT_FALSE(r.hht);
  EXPECT_EQ(r.modes->channels[0].channel, 2u);
  EXPECT_EQ(r.modes->channels[1].channel, 0u);
  EXPECT_EQ(r.modes->sampleRate, kRate);
  EXPECT_EQ(r.modes->firstSample, 300);
  EXPECT_EQ(r.modes->samples, 400);
  EXPECT_EQ(r.backend, backend.info().describe());
}

TEST(EmdJob, RecordsTheProvenance) {
  const auto rec = makeRecording();
  RecordingBackend backend;
  JobContext ctx;
  EmdJobSpec spec = makeSpec();
  HhtParams h;
  h.fMin = 1.0;
  h.frequencyBins = 64;
  h.edgeSeconds = 0.5;
  spec.hht = h;
  const EmdJobResult r = runEmdJob(*rec, spec, backend, ctx);
  ASSERT_TRUE(r.hht);
  EXPECT_EQ(backend.hhtCalls, 1);
  const Provenance& p = r.modes->provenance;
  EXPECT_EQ(p.method, "iceemdan");
  EXPECT_EQ(p.seed, "77");
  EXPECT_EQ(p.inputFile, "rec.edf");
  EXPECT_EQ(p.backend, backend.info().describe());
  EXPECT_NE(p.selection.find("3-7 s"), std::string::npos) << p.selection;
  EXPECT_NE(p.selection.find("O2"), std::string::npos) << p.selection;
  EXPECT_EQ(p.createdAt.size(), 20u) << p.createdAt;
  EXPECT_GT(p.wallSeconds, 0.0);
  ASSERT_FALSE(p.parameters.empty());
  EXPECT_EQ(p.parameters.front().first, "preset");
  EXPECT_EQ(parameter(p, "ensembleSize"), "40 members");
  EXPECT_EQ(parameter(p, "noiseStd"), "0.25 x std(x)");
  EXPECT_EQ(parameter(p, "hht.fMin"), "1 Hz");
  EXPECT_EQ(parameter(p, "hht.fMax"), "50 Hz") << "the resolved Nyquist frequency";
  EXPECT_EQ(parameter(p, "hht.edgeSeconds"), "0.5 s");
  // EMD draws no noise: no seed, no ensemble parameters.
  spec.params.method = EmdMethod::Emd;
  spec.hht.reset();
  const EmdJobResult e = runEmdJob(*rec, spec, backend, ctx);
  EXPECT_EQ(e.modes->provenance.seed, "");
  EXPECT_EQ(parameter(e.modes->provenance, "ensembleSize"), "(missing)");
}

TEST(EmdJob, ProgressRisesToOne) {
  const auto rec = makeRecording();
  RecordingBackend backend;
  std::vector<double> seen;
  std::stop_source stop;
  JobContext ctx(stop.get_token(), [&](double f, std::string_view) { seen.push_back(f); });
  EmdJobSpec spec = makeSpec();
  spec.hht = HhtParams{};
  runEmdJob(*rec, spec, backend, ctx);
  ASSERT_GE(seen.size(), 3u);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  // The backend's 50 % lies inside the decomposition's share of the job.
  EXPECT_NE(std::find_if(seen.begin(), seen.end(), [](double f) { return f > 0.4 && f < 0.6; }),
            seen.end());
}

TEST(EmdJob, CancelBeforeDecompositionThrowsCancelled) {
  const auto rec = makeRecording();
  RecordingBackend backend;
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), {});
  EXPECT_THROW(runEmdJob(*rec, makeSpec(), backend, ctx), Cancelled);
  EXPECT_EQ(backend.decomposeCalls, 0);
}

std::string parameterOf(const Recording& rec, const EmdJobSpec& spec) {
  try {
    checkEmdJob(rec, spec);
  } catch (const InvalidParameterError& e) {
    return e.parameter();
  }
  return "(accepted)";
}

TEST(EmdJob, ChecksTheSelectionAndSpectrumGridBeforeReading) {
  const auto rec = makeRecording();
  EmdJobSpec s = makeSpec();
  EXPECT_EQ(parameterOf(*rec, s), "(accepted)");
  s.channels = {0, 3};
  EXPECT_EQ(parameterOf(*rec, s), "channels") << "mixed sample rates";
  s = makeSpec();
  s.channels = {};
  EXPECT_EQ(parameterOf(*rec, s), "channels");
  s = makeSpec();
  s.channels = {9};
  EXPECT_EQ(parameterOf(*rec, s), "channels");
  s = makeSpec();
  s.startSeconds = 25.0;
  EXPECT_EQ(parameterOf(*rec, s), "start");
  s = makeSpec();
  s.durationSeconds = 0.05;  // 5 samples < kEmdMinSamples
  EXPECT_EQ(parameterOf(*rec, s), "duration");
  s = makeSpec();
  s.startSeconds = 19.95;  // the last 5 samples
  s.durationSeconds = -1;
  EXPECT_EQ(parameterOf(*rec, s), "duration");

  s = makeSpec();
  HhtParams h;
  h.fMax = 51.0;  // Nyquist is 50 Hz
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "fMax");
  h = HhtParams{};
  h.logFrequency = true;  // needs fMin > 0
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "fMin");
  h = HhtParams{};
  h.fMin = 30;
  h.fMax = 20;
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "fMin");
  h = HhtParams{};
  h.frequencyBins = 0;
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "frequencyBins");
  h = HhtParams{};
  h.edgeSeconds = 2.0;  // the range is 4 s: nothing would be left
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "edgeSeconds");
  h.edgeSeconds = 1.5;
  s.hht = h;
  EXPECT_EQ(parameterOf(*rec, s), "(accepted)");

  // Parameters no method can run with are refused by validateEmdParams, before any work.
  s = makeSpec();
  s.params.ensembleSize = 0;
  EXPECT_NE(parameterOf(*rec, s), "(accepted)");
  RecordingBackend backend;
  JobContext ctx;
  EXPECT_THROW(runEmdJob(*rec, s, backend, ctx), InvalidParameterError);
  EXPECT_EQ(backend.decomposeCalls, 0);
}

}  // namespace
}  // namespace modescope
