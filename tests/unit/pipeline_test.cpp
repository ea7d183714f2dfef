// ComputeBackend::applyPipeline's default (the CPU backend's): it must equal applyReference
// followed by applyFir per filter, call them in that order, split progress over the stages, and
// preprocess() must run its whole chain through it (so a backend's override is what runs).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "backend_test_double.h"
#include "engine/compute/backend.h"
#include "engine/core/error.h"
#include "engine/dsp/preprocess.h"

namespace modescope {
namespace {

SignalBlock randomBlock(std::size_t rows, int64_t samples, double rate, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  SignalBlock b;
  b.sampleRate = rate;
  b.samples = samples;
  for (std::size_t r = 0; r < rows; ++r) b.channels.push_back(r);
  b.data.resize(rows * static_cast<std::size_t>(samples));
  for (std::size_t r = 0; r < rows; ++r) {
    const float offset = 10.0f * dist(rng);  // non-zero edges for the odd reflection
    for (int64_t t = 0; t < samples; ++t) b.channel(r)[t] = offset + dist(rng);
  }
  return b;
}

ReferencePlan averageOf(std::size_t rows) {
  ReferencePlan p;
  for (std::size_t r = 0; r < rows; ++r) {
    p.sources.push_back(r);
    p.weights.push_back(1.0 / static_cast<double>(rows));
    p.targets.push_back(r);
  }
  return p;
}

// Bit-for-bit: the default is the same calls on the same data, so nothing may differ at all.
void expectIdentical(const SignalBlock& a, const SignalBlock& b) {
  ASSERT_EQ(a.data.size(), b.data.size());
  EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)), 0);
}

TEST(DefaultPipeline, EqualsReferenceThenEachFilter) {
  std::mt19937 rng(std::random_device{}());
  const double rate = 250.0;
  const std::vector<FirKernel> filters = {designFir(parseFilterSpec("notch:50"), rate),
                                          designFir(parseFilterSpec("bandpass:1-40"), rate)};
  auto cpu = makeCpuBackend(2);
  for (int64_t n : {7, 1001, 4097}) {
    SCOPED_TRACE("samples " + std::to_string(n));
    const SignalBlock in = randomBlock(5, n, rate, rng);
    ReferencePlan plan = averageOf(4);  // row 4 stays out of the reference, as a non-EEG row
    JobContext ctx;

    SignalBlock manual = in;
    cpu->applyReference(manual, plan, ctx);
    for (const auto& f : filters) cpu->applyFir(manual, f, ctx);
    SignalBlock piped = in;
    cpu->applyPipeline(piped, &plan, filters, ctx);
    expectIdentical(manual, piped);

    // No reference: the filters alone.
    SignalBlock filtered = in;
    for (const auto& f : filters) cpu->applyFir(filtered, f, ctx);
    SignalBlock noRef = in;
    cpu->applyPipeline(noRef, nullptr, filters, ctx);
    expectIdentical(filtered, noRef);

    // A reference alone, and a plan without targets (a no-op, as in applyReference).
    SignalBlock referenced = in;
    cpu->applyReference(referenced, plan, ctx);
    SignalBlock refOnly = in;
    cpu->applyPipeline(refOnly, &plan, {}, ctx);
    expectIdentical(referenced, refOnly);
    SignalBlock untouched = in;
    ReferencePlan empty = plan;
    empty.targets.clear();
    cpu->applyPipeline(untouched, &empty, {}, ctx);
    expectIdentical(in, untouched);
  }
}

// A backend that records what the default applyPipeline calls, with the progress range each
// call's context maps to.
class RecordingBackend final : public test_support::UnexpectedCallBackend {
 public:
  struct Call {
    std::string what;
    double begin, end;
  };
  BackendInfo info() const override { return {}; }
  void applyReference(SignalBlock&, const ReferencePlan& plan, JobContext& ctx) override {
    calls.push_back(
        {"reference:" + std::to_string(plan.targets.size()), range(ctx, 0), range(ctx, 1)});
  }
  void applyFir(SignalBlock&, const FirKernel& fir, JobContext& ctx) override {
    calls.push_back({"fir:" + fir.description, range(ctx, 0), range(ctx, 1)});
  }
  void applyPipeline(SignalBlock& block, const ReferencePlan* reference,
                     const std::vector<FirKernel>& filters, JobContext& ctx) override {
    ++pipelines;
    ComputeBackend::applyPipeline(block, reference, filters, ctx);
  }
  // Everything else (decompose, infomax, ...) throws from the base: preprocessing never calls it.
  std::vector<Call> calls;
  int pipelines = 0;
  double lastReported = -1.0;  // the outermost sink writes every fraction here

 private:
  // Where progress fraction f of this context lands in the outermost one.
  double range(JobContext& ctx, double f) {
    ctx.progress(f, "probe");
    return lastReported;
  }
};

TEST(DefaultPipeline, CallsReferenceFirstThenFiltersInOrderWithProgressSplit) {
  RecordingBackend backend;
  SignalBlock b;
  b.sampleRate = 100.0;
  b.samples = 10;
  b.channels = {0, 1};
  b.data.assign(20, 1.0f);
  FirKernel f1, f2;
  f1.taps = {1.0};
  f1.description = "first";
  f2.taps = {1.0};
  f2.description = "second";
  const ReferencePlan plan = averageOf(2);
  std::vector<double> reported;
  JobContext ctx(std::stop_token{}, [&](double f, std::string_view) {
    reported.push_back(f);
    backend.lastReported = f;
  });
  backend.applyPipeline(b, &plan, {f1, f2}, ctx);
  ASSERT_EQ(backend.calls.size(), 3u);
  EXPECT_EQ(backend.calls[0].what, "reference:2");
  EXPECT_EQ(backend.calls[1].what, "fir:first");
  EXPECT_EQ(backend.calls[2].what, "fir:second");
  // Three equal stages cover [0, 1] without gaps or overlap.
  EXPECT_DOUBLE_EQ(backend.calls[0].begin, 0.0);
  EXPECT_DOUBLE_EQ(backend.calls[0].end, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(backend.calls[1].begin, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(backend.calls[2].end, 1.0);
  for (std::size_t i = 1; i < reported.size(); ++i) EXPECT_GE(reported[i], reported[i - 1]);

  // No reference, or one without targets: filters only, each half of the range.
  for (const ReferencePlan* p : {static_cast<const ReferencePlan*>(nullptr), &plan}) {
    backend.calls.clear();
    ReferencePlan noTargets = plan;
    noTargets.targets.clear();
    backend.applyPipeline(b, p ? &noTargets : nullptr, {f1, f2}, ctx);
    ASSERT_EQ(backend.calls.size(), 2u);
    EXPECT_EQ(backend.calls[0].what, "fir:first");
    EXPECT_DOUBLE_EQ(backend.calls[0].end, 0.5);
    EXPECT_DOUBLE_EQ(backend.calls[1].begin, 0.5);
  }
}

TEST(DefaultPipeline, CancelledBeforeTheEndThrows) {
  RecordingBackend backend;
  SignalBlock b;
  b.samples = 0;
  std::stop_source stop;
  stop.request_stop();
  JobContext ctx(stop.get_token(), nullptr);
  EXPECT_THROW(backend.applyPipeline(b, nullptr, {}, ctx), Cancelled);
}

TEST(DefaultPipeline, PreprocessRunsItsChainThroughApplyPipelineOnce) {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data;
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (const char* name : {"Fp1", "Cz", "Pz"}) {
    ChannelInfo c;
    c.label = c.name = name;
    c.type = ChannelType::EEG;
    c.sampleRate = 250.0;
    c.sampleCount = 2500;
    rec->channels.push_back(c);
    std::vector<float> x(2500);
    for (auto& v : x) v = dist(rng);
    data.push_back(std::move(x));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  PreprocessSpec spec;
  spec.reference = parseReferenceSpec("average");
  spec.filters = {parseFilterSpec("highpass:1"), parseFilterSpec("lowpass:40")};
  RecordingBackend backend;
  JobContext ctx;
  (void)preprocess(*rec, {0, 1, 2}, 0.0, 10.0, spec, backend, ctx);
  EXPECT_EQ(backend.pipelines, 1);
  ASSERT_EQ(backend.calls.size(), 3u);
  EXPECT_EQ(backend.calls[0].what, "reference:3");
  EXPECT_EQ(backend.calls[1].what, "fir:" + designFir(spec.filters[0], 250.0).description);
  EXPECT_EQ(backend.calls[2].what, "fir:" + designFir(spec.filters[1], 250.0).description);
}

}  // namespace
}  // namespace modescope
