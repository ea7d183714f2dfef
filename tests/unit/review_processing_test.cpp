// The review steps that became processing (issue 19): a derivation montage applied as a new
// recording (app/core/montage_job.h) and as a pipeline step (app/core/pipeline_montage.h), the
// entropy jobs leaving out the epochs that overlap bad segments (app/core/entropy_job.h), and the
// epoch preview of what bad segments reject (engine/epochs/epochs.h).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "app/core/entropy_job.h"
#include "app/core/montage_job.h"
#include "app/core/pipeline.h"
#include "app/core/pipeline_montage.h"
#include "engine/compute/backend.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/epochs/epochs.h"
#include "engine/io/recording_io.h"

namespace modescope {
namespace {

std::shared_ptr<const Recording> physionet() {
  static const auto rec = openRecording(MODESCOPE_TEST_DATA "/physionet_S001R03_64ch.h5");
  return rec;
}

std::vector<float> samplesOf(const Recording& rec, const std::string& name) {
  const int c = rec.findChannel(name);
  EXPECT_GE(c, 0) << name;
  return rec.readChannel(static_cast<std::size_t>(c), 0, rec.channels[c].sampleCount);
}

// Random-ish noise channels (a fixed LCG), `seconds` long at 100 Hz.
std::shared_ptr<Recording> noiseRecording(std::size_t channels, int seconds) {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data(channels);
  uint32_t state = 12345;
  for (std::size_t c = 0; c < channels; ++c) {
    ChannelInfo info;
    info.label = info.name = "E" + std::to_string(c + 1);
    info.type = ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = 100.0;
    info.sampleCount = seconds * 100;
    rec->channels.push_back(info);
    for (int64_t i = 0; i < info.sampleCount; ++i) {
      state = state * 1664525u + 1013904223u;
      data[c].push_back(static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
    }
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

TEST(MontageJob, DerivesTheBrowsersSumsAndNamesTheMontage) {
  auto marked = std::make_shared<Recording>(*physionet());
  marked->channels[static_cast<std::size_t>(marked->findChannel("F7"))].bad = true;
  MontageJobSpec spec;
  spec.montage = *builtinMontage("double-banana", *marked);
  spec.montage.rows.push_back({"X-F7", {{"X9", 1.0}, {"F7", -1.0}}});
  spec.source = "double-banana";
  JobContext ctx;
  const MontageJobResult r = runMontageJob(marked, spec, ctx);
  ASSERT_EQ(r.recording->channelCount(), 18u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0], "X-F7: no channel X9");
  // Fp1-F7 exactly as the lazy derivation (0 + Fp1 + (-1) F7 in float).
  const auto fp1 = samplesOf(*marked, "Fp1"), f7 = samplesOf(*marked, "F7");
  const auto row = samplesOf(*r.recording, "Fp1-F7");
  ASSERT_EQ(row.size(), fp1.size());
  for (std::size_t i = 0; i < row.size(); i += 97) ASSERT_EQ(row[i], fp1[i] - f7[i]) << i;
  // The rows that use the bad F7 are bad; the others not.
  EXPECT_TRUE(r.recording->channels[0].bad);                               // Fp1-F7
  EXPECT_TRUE(r.recording->channels[1].bad);                               // F7-T7
  EXPECT_FALSE(r.recording->channels[2].bad);                              // T7-P7
  EXPECT_EQ(r.recording->annotations.size(), marked->annotations.size());  // events kept
  const auto& p = r.provenance.parameters;
  EXPECT_EQ(r.provenance.method, "montage");
  EXPECT_EQ(p.front().first, "montage");
  EXPECT_EQ(p.front().second, spec.montage.name);
  auto has = [&](const std::string& k, const std::string& v) {
    for (const auto& [key, value] : p)
      if (key == k && value == v) return true;
    return false;
  };
  EXPECT_TRUE(has("montage.source", "double-banana"));
  EXPECT_TRUE(has("derivation", "Fp1-F7: Fp1 - F7"));
  EXPECT_TRUE(has("ran.derivations", "18 of 19 formed"));
  EXPECT_TRUE(has("ran.skipped", "X-F7: no channel X9"));
}

TEST(MontageJob, RefusesAMontageWithNothingToForm) {
  MontageJobSpec spec;
  spec.montage.name = "elsewhere";
  spec.montage.rows = {{"A-B", {{"A", 1.0}, {"B", -1.0}}}};
  JobContext ctx;
  try {
    runMontageJob(physionet(), spec, ctx);
    FAIL() << "no derivation can be formed";
  } catch (const InvalidParameterError& e) {
    EXPECT_EQ(e.parameter(), "montage");
    EXPECT_NE(std::string(e.what()).find("A-B: no channel A"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolveMontage("no-such-montage", *physionet()), InvalidParameterError);
}

TEST(MontageJob, BuiltinsAreRecognisedAndWeightsRoundTripExactly) {
  const auto rec = physionet();
  for (const BuiltinMontage& b : builtinMontages()) {
    if (std::string(b.name) == "mastoids") continue;  // no mastoids on this cap
    const DerivationMontage m = *builtinMontage(b.name, *rec);
    EXPECT_EQ(builtinMontageName(m, *rec), b.name);
    // Each row written and read back gives the same doubles (1/64 of the average, 1/4 ...).
    const DerivationMontage back = parseMontageText(formatMontageText(m), "m");
    EXPECT_EQ(back.rows, m.rows) << b.name;
  }
  DerivationMontage odd = *builtinMontage("average", *rec);
  odd.rows.pop_back();
  EXPECT_EQ(builtinMontageName(odd, *rec), "");
  DerivationMontage third;
  third.rows = {{"C3x", {{"C3", 1.0}, {"F3", -1.0 / 3.0}, {"P3", -1.0 / 3.0}, {"T7", -1.0 / 3.0}}}};
  EXPECT_EQ(parseMontageText(formatMontageText(third), "m").rows, third.rows);
}

Pipeline readText(const std::string& text) {
  return readPipeline(parseJson(text, "p.json"), "p.json");
}

std::string errorOf(const std::string& text) {
  try {
    readText(text);
  } catch (const InvalidInputError& e) {
    return e.what();
  }
  return "";
}

TEST(MontageStep, ReadsWritesAndRefuses) {
  const Pipeline builtin = readText(
      R"({"modescope_pipeline": 1, "steps": [{"step": "montage", "montage": "laplacian"}]})");
  ASSERT_EQ(builtin.steps.size(), 1u);
  const auto& b = std::get<PipelineMontageStep>(builtin.steps[0]);
  EXPECT_EQ(b.builtin, "laplacian");
  EXPECT_EQ(stepKind(builtin.steps[0]), std::string("montage"));
  EXPECT_EQ(readPipeline(parseJson(writePipelineJson(builtin), "w"), "w"), builtin);

  Pipeline own;
  PipelineMontageStep step;
  step.montage.name = "Mine";
  step.montage.rows = {{"C3-Cz", {{"C3", 1.0}, {"Cz", -1.0}}},
                       {"Lap", {{"Cz", 1.0}, {"C3", -0.1}, {"\"odd name\"", -0.9}}}};
  step.montage.rows[1].terms[2].channel = "odd name";
  own.steps.push_back(step);
  const std::string text = writePipelineJson(own);
  EXPECT_NE(text.find("\"C3-Cz: C3 - Cz\""), std::string::npos) << text;
  EXPECT_EQ(readText(text), own);
  // The derivations resolve on a recording; a built-in is formed for it.
  EXPECT_EQ(montageStepMontage(step, *physionet()).rows, step.montage.rows);
  EXPECT_EQ(montageStepMontage(b, *physionet()).rows, laplacianDerivations(*physionet()).rows);

  const std::string head = R"({"modescope_pipeline": 1, "steps": [{"step": "montage", )";
  EXPECT_NE(errorOf(head + R"("montage": "banana"}]})").find("field montage"), std::string::npos);
  EXPECT_NE(errorOf(head + R"("montage": "banana"}]})").find("double-banana"), std::string::npos);
  EXPECT_NE(errorOf(head + R"("montage": "average", "channels": ["C3"]}]})")
                .find("field channels: found an unknown field"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"("montage": "average", "derivations": ["A: B"]}]})")
                .find("both montage and derivations"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"("derivations": ["A: B C"]}]})").find("derivations, item 1"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"("name": "x"}]})").find("neither montage nor derivations"),
            std::string::npos);
}

TEST(EntropyBadSegments, EpochsOverlappingThemAreLeftOutExactly) {
  auto rec = noiseRecording(3, 12);  // 1200 samples: 4 epochs of 300
  EntropyJobSpec spec;
  spec.channels = {0, 1, 2};
  spec.params.epochSamples = 300;
  auto cpu = makeCpuBackend(1);
  ComputeBackend& backend = *cpu;
  JobContext ctx;
  const EntropyJobResult clean = runEntropyJob(*rec, spec, backend, ctx);
  ASSERT_EQ(clean.run->result.epochCount(), 4u);

  rec->annotations = {{4.0, 0.5, "BAD_movement"}};  // inside epoch 2 (3-6 s)
  EXPECT_EQ(entropyBadSegmentEpochCount(*rec, spec), 1);
  const EntropyJobResult left = runEntropyJob(*rec, spec, backend, ctx);
  const EntropyMatrixResult& r = left.run->result;
  ASSERT_EQ(r.epochCount(), 3u);
  EXPECT_EQ(r.epochStarts, (std::vector<int64_t>{0, 600, 900}));
  // The kept epochs' matrices are those of the clean run's epochs 1, 3, 4.
  const std::size_t per = 9;
  const std::vector<std::size_t> from = {0, 2, 3};
  for (std::size_t e = 0; e < 3; ++e)
    for (std::size_t k = 0; k < per; ++k)
      EXPECT_EQ(r.epochValues[e * per + k], clean.run->result.epochValues[from[e] * per + k]);
  bool said = false;
  for (const auto& [key, value] : left.run->provenance.parameters)
    said = said || (key == "ran.badSegments" && value.find("1 of 4 epochs left out") == 0);
  EXPECT_TRUE(said);

  spec.params.excludeBadSegments = false;  // kept on request, and said so
  const EntropyJobResult kept = runEntropyJob(*rec, spec, backend, ctx);
  EXPECT_EQ(kept.run->result.epochValues, clean.run->result.epochValues);
  said = false;
  for (const auto& [key, value] : kept.run->provenance.parameters)
    said = said || (key == "ran.badSegments" && value.find("kept") != std::string::npos);
  EXPECT_TRUE(said);

  spec.params.excludeBadSegments = true;
  spec.params.epochSamples = 0;  // one epoch of everything cannot leave the segment out
  EXPECT_THROW(runEntropyJob(*rec, spec, backend, ctx), InvalidParameterError);
  spec.params.epochSamples = 300;
  rec->annotations = {{0.0, 12.0, "bad all"}};
  EXPECT_THROW(runEntropyJob(*rec, spec, backend, ctx), InvalidParameterError);
}

TEST(EpochPreview, CountsWhatBadSegmentsReject) {
  auto rec = noiseRecording(2, 10);
  rec->annotations = {{0.05, 0, "T1"}, {2.0, 0, "T1"}, {4.0, 0, "T1"}, {6.0, 0, "T2"}};
  EpochSpec spec;
  spec.channels = {0, 1};
  spec.eventTypes = {"T1", "T2"};
  spec.badSegments = {{3.9, 0.2}, {6.45, 1.0}};  // over T1 at 4 s and the end of T2's window
  const EpochPreview p = previewEpochs(*rec, spec);
  EXPECT_EQ(p.events, 4u);
  EXPECT_EQ(p.outsideData, 1u);  // 0.05 - 0.2 s < 0
  EXPECT_EQ(p.badSegment, 2u);
  // The same as extractEpochs decides.
  JobContext ctx;
  const EpochSet set = extractEpochs(*rec, spec, ctx);
  EXPECT_EQ(set.droppedCount(EpochFate::BadSegment), p.badSegment);
  EXPECT_EQ(set.droppedCount(EpochFate::OutsideData), p.outsideData);
  spec.params.rejectBadSegments = false;
  EXPECT_EQ(previewEpochs(*rec, spec).badSegment, 0u);
  spec.eventTypes = {"T9"};  // not an event type: nothing to preview
  EXPECT_EQ(previewEpochs(*rec, spec).events, 0u);
}

}  // namespace
}  // namespace modescope
