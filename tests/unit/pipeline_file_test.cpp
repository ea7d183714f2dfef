// Pipeline files (app/core/pipeline.h, docs/pipelines.md): the documented example reads to the
// values written in it, read -> write -> read gives the same pipeline (numbers exactly, only
// parameters that differ from the preset written), and every mistake in a file is an
// InvalidInputError (exit code 2) that names the file, the step (1-based, with its kind) and the
// field, before anything could run.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "app/core/pipeline.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"

namespace modescope {
namespace {

const std::string kSource = MODESCOPE_SOURCE_DIR;

Pipeline readText(const std::string& text, std::vector<std::string>* notes = nullptr) {
  return readPipeline(parseJson(text, "p.json"), "p.json", notes);
}

// The InvalidInputError that reading `text` throws; none (or another type) fails the test.
InvalidInputError readError(const std::string& text) {
  try {
    readText(text);
  } catch (const InvalidInputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InvalidInputError for: " << text;
  return InvalidInputError("", "", "", "");
}

// One step inside an otherwise valid version-1 file.
std::string withSteps(const std::string& steps) {
  return R"({"modescope_pipeline": 1, "steps": [)" + steps + "]}";
}

// The brief's example: filter, then ICEEMDAN, then runica.
const char* kExample = R"({
  "modescope_pipeline": 1,
  "description": "free text",
  "steps": [
    {"step": "filter", "filters": ["highpass:1", "notch:50"], "reference": "average"},
    {"step": "emd", "preset": "iceemdan-colominas", "channels": ["C3", "C4"], "start": 10, "duration": 20,
     "params": {"ensembleSize": 50, "seed": 7, "stop.kind": "fixed", "stop.fixedSifts": 10}},
    {"step": "ica", "preset": "eeglab-runica", "params": {"maxSteps": 200, "seed": 1}}
  ]
})";

TEST(PipelineFile, ReadsTheDocumentedExample) {
  const Pipeline p = readText(kExample);
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.description, "free text");
  ASSERT_EQ(p.steps.size(), 3u);

  const auto* f = std::get_if<PipelineFilterStep>(&p.steps[0]);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->spec.filters.size(), 2u);
  EXPECT_EQ(f->spec.filters[0].kind, FilterKind::HighPass);
  EXPECT_EQ(f->spec.filters[0].lowHz, 1.0);
  EXPECT_EQ(f->spec.filters[1].kind, FilterKind::Notch);
  EXPECT_EQ(f->spec.filters[1].notchHz, 50.0);
  EXPECT_EQ(f->spec.reference.kind, ReferenceKind::Average);
  EXPECT_FALSE(f->selection.channels.has_value());
  EXPECT_EQ(f->selection.duration, -1.0);

  const auto* e = std::get_if<PipelineEmdStep>(&p.steps[1]);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->preset, "iceemdan-colominas");
  ASSERT_TRUE(e->selection.channels.has_value());
  EXPECT_EQ(*e->selection.channels, (std::vector<std::string>{"C3", "C4"}));
  EXPECT_EQ(e->selection.channelsText(), "C3,C4");
  EXPECT_EQ(e->selection.start, 10.0);
  EXPECT_EQ(e->selection.duration, 20.0);
  EXPECT_FALSE(e->selection.backend.has_value());
  EXPECT_TRUE(e->hht);
  EXPECT_EQ(e->params.ensembleSize, 50);
  EXPECT_EQ(e->params.seed, 7u);
  EXPECT_EQ(e->params.stop.kind, StopRuleKind::FixedSifts);
  EXPECT_EQ(e->params.stop.fixedSifts, 10);
  // Everything else is the preset's.
  const EmdParams preset = emdPreset("iceemdan-colominas");
  EXPECT_EQ(e->params.method, preset.method);
  EXPECT_EQ(e->params.noiseStd, preset.noiseStd);
  EXPECT_EQ(e->params.maxImfs, preset.maxImfs);
  EXPECT_EQ(e->params.noiseStop.kind, preset.noiseStop.kind);
  EXPECT_EQ(e->params.noiseStop.maxSifts, preset.noiseStop.maxSifts);
  EXPECT_EQ(emdStepPresetName(*e), "iceemdan-colominas");

  const auto* c = std::get_if<PipelineIcaStep>(&p.steps[2]);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->params.maxSteps, 200);
  EXPECT_EQ(c->params.seed, 1u);
  EXPECT_EQ(c->params.extended, icaPreset("eeglab-runica").extended);
  EXPECT_EQ(c->params.annealDegrees, icaPreset("eeglab-runica").annealDegrees);

  EXPECT_EQ(stepLabel(1, p.steps[1]), "step 2 (emd)");
  EXPECT_EQ(stepOutputName(0, p.steps[0]), "01-filter.h5");
  EXPECT_EQ(stepOutputName(1, p.steps[1]), "02-emd.h5");
  EXPECT_EQ(stepOutputName(9, p.steps[2]), "10-ica.h5");
}

TEST(PipelineFile, DefaultsAreTheSingleCommandsDefaults) {
  const Pipeline p = readText(withSteps(R"({"step": "emd"}, {"step": "ica"})"));
  const auto& e = std::get<PipelineEmdStep>(p.steps[0]);
  const auto& c = std::get<PipelineIcaStep>(p.steps[1]);
  // `emd` without --preset starts from EmdParams{}; `ica` from eeglab-runica.
  EXPECT_EQ(e.params.ensembleSize, EmdParams{}.ensembleSize);
  EXPECT_EQ(e.params.method, EmdParams{}.method);
  EXPECT_EQ(emdStepPresetName(e), "");
  EXPECT_EQ(icaStepPresetName(c), "eeglab-runica");
  EXPECT_EQ(c.params.maxSteps, icaPreset("eeglab-runica").maxSteps);
  EXPECT_TRUE(e.hht);
  EXPECT_EQ(e.selection.start, 0.0);
  EXPECT_EQ(e.selection.duration, -1.0);
}

TEST(PipelineFile, AcceptsTheSpecialWordsIndicesAndAChannelString) {
  const Pipeline p = readText(
      withSteps(R"({"step": "emd", "channels": [3, "Cz", "1-2"], "backend": "CPU", "hht": false,)"
                R"( "params": {"maxImfs": "automatic", "pairedNoise": false, "method": "EEMD"}},)"
                R"({"step": "emd", "channels": "C3, C4", "params": {"maxImfs": "auto"}},)"
                R"({"step": "ica", "params": {"learningRate": "auto", "blockSize": 0}})"));
  const auto& a = std::get<PipelineEmdStep>(p.steps[0]);
  EXPECT_EQ(*a.selection.channels, (std::vector<std::string>{"3", "Cz", "1-2"}));
  EXPECT_EQ(a.selection.backend, BackendChoice::Cpu);
  EXPECT_FALSE(a.hht);
  EXPECT_EQ(a.params.maxImfs, 0);
  EXPECT_EQ(a.params.method, EmdMethod::Eemd);  // choice labels are accepted, any case
  const auto& b = std::get<PipelineEmdStep>(p.steps[1]);
  EXPECT_EQ(*b.selection.channels, (std::vector<std::string>{"C3", "C4"}));
  const auto& c = std::get<PipelineIcaStep>(p.steps[2]);
  EXPECT_EQ(c.params.learningRate, 0.0);
}

TEST(PipelineFile, SeedsAndNumbersStayExact) {
  const Pipeline p = readText(withSteps(
      R"({"step": "emd", "params": {"seed": 18446744073709551615, "noiseStd": 0.30000000000000004}},)"
      R"({"step": "ica", "params": {"seed": 9007199254740993}})"));
  const auto& e = std::get<PipelineEmdStep>(p.steps[0]);
  EXPECT_EQ(e.params.seed, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(e.params.noiseStd, 0.1 + 0.2);
  EXPECT_EQ(std::get<PipelineIcaStep>(p.steps[1]).params.seed, 9007199254740993ull);  // 2^53 + 1
}

TEST(PipelineFile, RoundTripGivesTheSamePipeline) {
  const Pipeline a = readText(kExample);
  const std::string text = writePipelineJson(a);
  const Pipeline b = readText(text);
  EXPECT_TRUE(a == b) << text;
  EXPECT_EQ(writePipelineJson(b), text) << "writing is deterministic";
}

TEST(PipelineFile, RoundTripOfAPipelineBuiltInCode) {
  Pipeline p;
  p.description = "built in code: \"quotes\", unicode \xc2\xb5V";

  PipelineFilterStep f;
  FilterSpec bp;
  bp.kind = FilterKind::BandPass;
  bp.lowHz = 0.1;
  bp.highHz = 40.5;
  FilterSpec lp;
  lp.kind = FilterKind::LowPass;
  lp.highHz = 1.0 / 3.0;
  f.spec.filters = {bp, lp};
  f.spec.reference.kind = ReferenceKind::Channel;
  f.spec.reference.channel = "Cz";
  f.selection.channels = std::vector<std::string>{"1-8", "12"};
  f.selection.start = 2.5;
  f.selection.duration = 1e-3;
  f.selection.backend = BackendChoice::Cuda;
  p.steps.push_back(f);

  PipelineEmdStep e;
  e.preset = "iceemdan-thesis";
  e.params = emdPreset("iceemdan-thesis");
  e.params.noiseStd = 0.1 + 0.2;
  e.params.seed = std::numeric_limits<uint64_t>::max();
  e.params.maxImfs = 0;  // written as "automatic"
  e.params.noiseScaling = NoiseScaling::Constant;
  e.params.stop.kind = StopRuleKind::Rilling;
  e.params.stop.threshold1 = 0.07;
  e.params.pairedNoise = true;  // ignored by ICEEMDAN, but kept: the file says what was set
  e.hht = false;
  p.steps.push_back(e);

  PipelineIcaStep c;
  c.preset = "mne-infomax";
  c.params = icaPreset("mne-infomax");
  c.params.extended = !c.params.extended;
  c.params.rankTolerance = 1.5e-11;
  c.params.seed = 0;
  p.steps.push_back(c);

  PipelineIcaStep plain;  // no preset: eeglab-runica
  plain.params = icaStepBase("");
  p.steps.push_back(plain);

  PipelineEntropyStep x;
  x.params.measure = EntropyMeasure::SampleEntropy;
  x.params.m = 3;
  x.params.r = 0.15;
  x.params.epochSamples = 512;
  x.selection.channels = std::vector<std::string>{"C3", "Cz", "C4"};
  x.selection.duration = 20;
  p.steps.push_back(x);

  PipelineTfStep t;
  t.params.order = TfOrder::Third;
  t.params.windowLength = 128;
  t.params.maxFrequency = 45;
  t.readout.ridges = 2;
  t.readout.ridge.penalty = 0.5;
  t.readout.complexValues = true;
  t.selection.channels = std::vector<std::string>{"O1"};
  p.steps.push_back(t);

  const std::string text = writePipelineJson(p);
  std::vector<std::string> notes;
  const Pipeline back = readText(text, &notes);
  EXPECT_TRUE(p == back) << text;
  EXPECT_EQ(writePipelineJson(back), text);
  EXPECT_NE(text.find("\"automatic\""), std::string::npos) << text;
  EXPECT_NE(text.find("18446744073709551615"), std::string::npos) << text;
  EXPECT_NE(text.find("\"bandpass:0.1-40.5\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"channel:Cz\""), std::string::npos) << text;
  // pairedNoise does not apply to ICEEMDAN: a note says so.
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("step 2 (emd), field params.pairedNoise"), std::string::npos) << notes[0];

  EXPECT_NE(text.find("\"step\": \"xapen\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"measure\": \"sampen\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"step\": \"tfr\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"readout\": {"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ridgePenalty\": 0.5"), std::string::npos) << text;

  // A changed pipeline is a different pipeline.
  Pipeline changed = back;
  std::get<PipelineEmdStep>(changed.steps[1]).params.ensembleSize += 1;
  EXPECT_FALSE(changed == back);
  Pipeline otherEntropy = back;
  std::get<PipelineEntropyStep>(otherEntropy.steps[otherEntropy.steps.size() - 2]).params.r = 0.2;
  EXPECT_FALSE(otherEntropy == back);
  Pipeline otherReadout = back;
  std::get<PipelineTfStep>(otherReadout.steps.back()).readout.ridge.halfWidth = 3;
  EXPECT_FALSE(otherReadout == back);
}

TEST(PipelineFile, WritesOnlyTheParametersThatDifferFromThePreset) {
  PipelineEmdStep e;
  e.preset = "eemd-wu";
  e.params = emdPreset("eemd-wu");
  e.params.seed = 42;
  PipelineEmdStep d;  // no preset: compared with EmdParams{}
  d.params.ensembleSize = 20;
  PipelineIcaStep c;  // no preset and nothing changed: no params at all
  c.params = icaStepBase("");
  Pipeline p;
  p.steps = {e, d, c};
  const JsonValue root = parseJson(writePipelineJson(p), "written.json");
  ASSERT_EQ(root.kind(), JsonValue::Kind::Object);
  EXPECT_EQ(root.find("modescope_pipeline")->numberText(), "1");
  EXPECT_EQ(root.find("description"), nullptr) << "an empty description is left out";
  const auto& steps = root.find("steps")->asArray();
  ASSERT_EQ(steps.size(), 3u);
  const JsonValue* params = steps[0].find("params");
  ASSERT_NE(params, nullptr);
  ASSERT_EQ(params->members().size(), 1u);
  EXPECT_EQ(params->members()[0].first, "seed");
  EXPECT_EQ(params->members()[0].second.numberText(), "42");
  EXPECT_EQ(steps[0].find("preset")->asString(), "eemd-wu");
  ASSERT_NE(steps[1].find("params"), nullptr);
  ASSERT_EQ(steps[1].find("params")->members().size(), 1u);
  EXPECT_EQ(steps[1].find("params")->members()[0].first, "ensembleSize");
  EXPECT_EQ(steps[1].find("preset"), nullptr);
  EXPECT_EQ(steps[2].find("params"), nullptr);
  EXPECT_EQ(steps[2].members().size(), 1u) << "only \"step\"";
}

TEST(PipelineFile, FilterTextsReadBackToTheSameSpec) {
  for (const char* text :
       {"bandpass:1-40", "bandpass:0.00001-40", "highpass:0.5", "lowpass:35.25", "notch:60"}) {
    const FilterSpec s = parseFilterSpec(text);
    const FilterSpec back = parseFilterSpec(filterSpecText(s));
    EXPECT_EQ(back.kind, s.kind) << text;
    EXPECT_EQ(back.lowHz, s.lowHz) << text;
    EXPECT_EQ(back.highHz, s.highHz) << text;
    EXPECT_EQ(back.notchHz, s.notchHz) << text;
  }
  EXPECT_EQ(filterSpecText(parseFilterSpec("bp:1-40")), "bandpass:1-40");
  for (const char* text : {"none", "average", "mastoids", "channel:Cz"})
    EXPECT_EQ(referenceSpecText(parseReferenceSpec(text)), text);
  FilterSpec custom = parseFilterSpec("lowpass:40");
  custom.transitionHz = 5.0;
  EXPECT_THROW(filterSpecText(custom), InvalidParameterError);
  FilterSpec bareNotch = parseFilterSpec("notch:50");
  bareNotch.notchHarmonics = false;
  EXPECT_THROW(filterSpecText(bareNotch), InvalidParameterError);
}

TEST(PipelineFile, TheBriefsOutOfRangeMessage) {
  const InvalidInputError e =
      readError(withSteps(R"({"step": "filter", "filters": ["lowpass:40"]},)"
                          "\n"
                          R"({"step": "emd", "params": {"ensembleSize": 0}})"));
  EXPECT_EQ(e.path(), "p.json");
  EXPECT_EQ(e.field(), "step 2 (emd), field params.ensembleSize");
  EXPECT_EQ(e.exitCode(), 2);
  const std::string m = e.what();
  EXPECT_EQ(m.rfind("'p.json', step 2 (emd), field params.ensembleSize: found 0, expected an "
                    "integer from 1 to 1048576",
                    0),
            0u)
      << m;
  // The value's position: line 2, column 44 (the 0).
  EXPECT_NE(m.find("At line 2, column 44."), std::string::npos) << m;
}

struct ErrorCase {
  const char* what;
  std::string text;
  std::string field;    // InvalidInputError::field()
  std::string message;  // a part of what()
};

TEST(PipelineFile, EveryMistakeNamesTheFileTheStepAndTheField) {
  const std::vector<ErrorCase> cases = {
      // The file as a whole.
      {"not an object", "[1]", "", "found an array, expected a JSON object"},
      {"no version", R"({"steps": []})", "field modescope_pipeline",
       "found nothing, expected the format version 1"},
      {"version as a string", R"({"modescope_pipeline": "1", "steps": []})",
       "field modescope_pipeline", "found the string '1'"},
      {"fractional version", R"({"modescope_pipeline": 1.5, "steps": []})",
       "field modescope_pipeline", "found 1.5"},
      {"version 0", R"({"modescope_pipeline": 0, "steps": []})", "field modescope_pipeline",
       "found 0"},
      {"unknown top-level field", R"({"modescope_pipeline": 1, "colour": 1, "steps": []})",
       "field colour",
       "found an unknown field, expected one of modescope_pipeline, description "
       "or steps"},
      {"description not a string", R"({"modescope_pipeline": 1, "description": 3, "steps": []})",
       "field description", "found the number 3"},
      {"no steps", R"({"modescope_pipeline": 1})", "field steps", "found nothing"},
      {"steps not an array", R"({"modescope_pipeline": 1, "steps": {}})", "field steps",
       "found an object, expected an array of steps"},
      {"no step at all", R"({"modescope_pipeline": 1, "steps": []})", "field steps",
       "found an empty array, expected at least one step"},
      // The step's kind.
      {"step not an object", withSteps("3"), "step 1", "found the number 3"},
      {"step kind missing", withSteps(R"({"start": 1})"), "step 1, field step", "found nothing"},
      {"unknown step kind", withSteps(R"({"step": "emd"}, {"step": "pca"})"), "step 2, field step",
       "found 'pca', expected one of filter, interpolate, montage, emd, memd, ica, xapen, epoch "
       "or tfr"},
      {"step kind not a string", withSteps(R"({"step": 1})"), "step 1, field step",
       "found the number 1"},
      // Fields of a step.
      {"unknown field", withSteps(R"({"step": "ica", "hht": true})"), "step 1 (ica), field hht",
       "found an unknown field"},
      {"filter field on emd", withSteps(R"({"step": "emd", "filters": []})"),
       "step 1 (emd), field filters", "found an unknown field"},
      {"params on filter",
       withSteps(R"({"step": "filter", "filters": ["lowpass:4"], "params": {}})"),
       "step 1 (filter), field params", "found an unknown field"},
      {"unknown preset", withSteps(R"({"step": "emd", "preset": "nope"})"),
       "step 1 (emd), field preset", "found 'nope', expected one of emd-rilling"},
      {"ica preset on emd", withSteps(R"({"step": "emd", "preset": "mne-infomax"})"),
       "step 1 (emd), field preset", "found 'mne-infomax'"},
      {"preset not a string", withSteps(R"({"step": "ica", "preset": ["eeglab-runica"]})"),
       "step 1 (ica), field preset", "found an array"},
      {"hht not a boolean", withSteps(R"({"step": "emd", "hht": "yes"})"),
       "step 1 (emd), field hht", "found the string 'yes'"},
      {"empty channel list", withSteps(R"({"step": "emd", "channels": []})"),
       "step 1 (emd), field channels", "found an empty array, expected at least one channel"},
      {"channel index 0", withSteps(R"({"step": "emd", "channels": ["C3", 0]})"),
       "step 1 (emd), field channels, item 2", "found 0, expected a 1-based channel index"},
      {"channel not a string", withSteps(R"({"step": "emd", "channels": [true]})"),
       "step 1 (emd), field channels, item 1", "found true"},
      {"empty channel item", withSteps(R"({"step": "emd", "channels": "C3,,C4"})"),
       "step 1 (emd), field channels", "found 'C3,,C4'"},
      {"channels an object", withSteps(R"({"step": "emd", "channels": {}})"),
       "step 1 (emd), field channels", "found an object"},
      {"negative start", withSteps(R"({"step": "ica", "start": -1})"), "step 1 (ica), field start",
       "found -1, expected a time in seconds >= 0"},
      {"start as a string", withSteps(R"({"step": "ica", "start": "10"})"),
       "step 1 (ica), field start", "found the string '10'"},
      {"zero duration", withSteps(R"({"step": "ica", "duration": 0})"),
       "step 1 (ica), field duration", "found 0, expected a length in seconds > 0"},
      {"unknown backend", withSteps(R"({"step": "ica", "backend": "gpu"})"),
       "step 1 (ica), field backend", "found 'gpu', expected one of auto, cpu or cuda"},
      // Time-frequency steps.
      {"unknown readout key", withSteps(R"({"step": "tfr", "readout": {"ridge": 2}})"),
       "step 1 (tfr), field readout.ridge", "found an unknown parameter, expected one of ridges"},
      {"too many ridges", withSteps(R"({"step": "tfr", "readout": {"ridges": 17}})"),
       "step 1 (tfr), field readout.ridges", "found 17, expected an integer from 0 to 16"},
      {"reconstruct with a hop",
       withSteps(R"({"step": "tfr", "params": {"hop": 4}, "readout": {"reconstruct": true}})"),
       "step 1 (tfr), field readout.reconstruct",
       "found true, expected false with a hop of 4 samples"},
      {"tf params under readout", withSteps(R"({"step": "tfr", "readout": {"order": "2"}})"),
       "step 1 (tfr), field readout.order", "found an unknown parameter"},
      // Filter steps.
      {"bad filter", withSteps(R"({"step": "filter", "filters": ["lowpass:4", "bandpass:40-1"]})"),
       "step 1 (filter), field filters, item 2", "'bandpass:40-1'"},
      {"unknown filter kind", withSteps(R"({"step": "filter", "filters": ["wiener:3"]})"),
       "step 1 (filter), field filters, item 1", "unknown kind 'wiener'"},
      {"filter not a string", withSteps(R"({"step": "filter", "filters": [40]})"),
       "step 1 (filter), field filters, item 1", "found the number 40"},
      {"filters not an array", withSteps(R"({"step": "filter", "filters": "lowpass:40"})"),
       "step 1 (filter), field filters", "found the string 'lowpass:40'"},
      {"bad reference", withSteps(R"({"step": "filter", "reference": "left ear"})"),
       "step 1 (filter), field reference", "'left ear'"},
      {"nothing to do", withSteps(R"({"step": "filter", "reference": "none"})"),
       "step 1 (filter), field filters",
       "found no filter and no reference, expected at least one filter, or a reference"},
      // Parameters.
      {"params not an object", withSteps(R"({"step": "emd", "params": [1]})"),
       "step 1 (emd), field params", "found an array"},
      {"unknown parameter", withSteps(R"({"step": "emd", "params": {"ensemble": 50}})"),
       "step 1 (emd), field params.ensemble", "found an unknown parameter, expected one of method"},
      {"ica key on emd", withSteps(R"({"step": "emd", "params": {"maxSteps": 50}})"),
       "step 1 (emd), field params.maxSteps", "found an unknown parameter"},
      {"integer as a string", withSteps(R"({"step": "emd", "params": {"ensembleSize": "50"}})"),
       "step 1 (emd), field params.ensembleSize",
       "found the string '50', expected an integer from 1 to 1048576"},
      {"fraction for an integer", withSteps(R"({"step": "emd", "params": {"ensembleSize": 1.5}})"),
       "step 1 (emd), field params.ensembleSize", "found 1.5, expected an integer"},
      {"exponent for an integer", withSteps(R"({"step": "emd", "params": {"ensembleSize": 1e2}})"),
       "step 1 (emd), field params.ensembleSize", "found 1e2"},
      {"too large", withSteps(R"({"step": "emd", "params": {"ensembleSize": 2000000}})"),
       "step 1 (emd), field params.ensembleSize", "found 2000000"},
      {"real out of range", withSteps(R"({"step": "emd", "params": {"noiseStd": 0}})"),
       "step 1 (emd), field params.noiseStd", "found 0, expected a number in (0, "},
      {"unknown choice", withSteps(R"({"step": "emd", "params": {"stop.kind": "never"}})"),
       "step 1 (emd), field params.stop.kind",
       "found 'never', expected one of rilling, fixed or s-number"},
      {"choice as a number", withSteps(R"({"step": "emd", "params": {"method": 3}})"),
       "step 1 (emd), field params.method", "found the number 3"},
      {"flag as a number", withSteps(R"({"step": "emd", "params": {"pairedNoise": 1}})"),
       "step 1 (emd), field params.pairedNoise", "found the number 1, expected true or false"},
      {"negative seed", withSteps(R"({"step": "ica", "params": {"seed": -1}})"),
       "step 1 (ica), field params.seed",
       "found -1, expected an integer from 0 to "
       "18446744073709551615"},
      {"seed beyond 64 bits",
       withSteps(R"({"step": "ica", "params": {"seed": 18446744073709551616}})"),
       "step 1 (ica), field params.seed", "found 18446744073709551616"},
      {"seed as a string", withSteps(R"({"step": "ica", "params": {"seed": "7"}})"),
       "step 1 (ica), field params.seed", "found the string '7'"},
      {"wrong special word", withSteps(R"({"step": "ica", "params": {"learningRate": "fast"}})"),
       "step 1 (ica), field params.learningRate", "found the string 'fast'"},
      {"special word without a special value",
       withSteps(R"({"step": "emd", "params": {"ensembleSize": "auto"}})"),
       "step 1 (emd), field params.ensembleSize", "found the string 'auto'"},
      {"null value", withSteps(R"({"step": "emd", "params": {"noiseStd": null}})"),
       "step 1 (emd), field params.noiseStd", "found null"},
      {"fields that contradict each other",
       withSteps(R"({"step": "emd", "params": {"stop.threshold1": 0.6, "stop.threshold2": 0.5}})"),
       "step 1 (emd), field params.stop.threshold1", "found 0.6, expected at most threshold2"},
      {"odd paired ensemble",
       withSteps(
           R"({"step": "emd", "params": {"method": "eemd", "pairedNoise": true, "ensembleSize": 51}})"),
       "step 1 (emd), field params.ensembleSize", "found 51"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.what);
    const InvalidInputError e = readError(c.text);
    EXPECT_EQ(e.path(), "p.json");
    EXPECT_EQ(e.field(), c.field);
    EXPECT_EQ(e.exitCode(), 2);
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("'p.json'", 0), 0u) << m;
    const std::string prefix = c.field.empty() ? "'p.json': " : "'p.json', " + c.field + ": ";
    EXPECT_EQ(m.rfind(prefix, 0), 0u) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
  }
}

TEST(PipelineFile, ANewerVersionIsRefusedBeforeItsFieldsAreLookedAt) {
  // Version 2 may add fields and steps this build does not know: the version is the message.
  const InvalidInputError e = readError(
      R"({"modescope_pipeline": 2, "graph": {}, "steps": [{"step": "resample", "rate": 128}]})");
  EXPECT_EQ(e.field(), "field modescope_pipeline");
  const std::string m = e.what();
  EXPECT_NE(m.find("'p.json', field modescope_pipeline: found 2, expected version 1"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("update ModeScope"), std::string::npos) << m;
  EXPECT_EQ(e.exitCode(), 2);
}

TEST(PipelineFile, ParametersWithoutEffectGiveANoteNotAnError) {
  std::vector<std::string> notes;
  const Pipeline p =
      readText(withSteps(R"({"step": "emd", "params": {"method": "emd", "ensembleSize": 50,)"
                         R"( "stop.fixedSifts": 12}})"),
               &notes);
  EXPECT_EQ(std::get<PipelineEmdStep>(p.steps[0]).params.ensembleSize, 50);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("'p.json', step 1 (emd), field params.ensembleSize: has no effect"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("field params.stop.fixedSifts"), std::string::npos) << notes[1];
}

class PipelineFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pipeline-file-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::path(dir_) / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(PipelineFileOnDisk, MalformedJsonNamesTheFileAndThePosition) {
  const std::string path = write("bad.json", "{\"modescope_pipeline\": 1,\n  \"steps\": [}\n");
  try {
    readPipelineFile(path);
    FAIL() << "no error";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_NE(e.field().find("line 2"), std::string::npos) << e.what();
    EXPECT_EQ(e.exitCode(), 2);
  }
  const std::string missing = (std::filesystem::path(dir_) / "missing.json").string();
  EXPECT_THROW(readPipelineFile(missing), InvalidInputError);
}

TEST_F(PipelineFileOnDisk, ErrorsNameThePathAsGiven) {
  const std::string path =
      write("p.json", withSteps(R"({"step": "ica", "params": {"maxSteps": 0}})"));
  try {
    readPipelineFile(path);
    FAIL() << "no error";
  } catch (const InvalidInputError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("'" + path + "', step 1 (ica), field params.maxSteps: found 0", 0), 0u) << m;
  }
}

TEST(PipelineFile, TheExamplesRead) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/examples/pipelines")) {
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    ++count;
    std::vector<std::string> notes;
    const Pipeline p = readPipelineFile(path, &notes);
    EXPECT_FALSE(p.steps.empty());
    EXPECT_TRUE(notes.empty()) << notes.front();
    EXPECT_TRUE(readText(writePipelineJson(p)) == p);
  }
  EXPECT_GE(count, 4) << "examples/pipelines holds the documented examples";
}

TEST(PipelineFile, AStepErrorKeepsTheCausesExitCode) {
  const PipelineStepError a(
      "'p.json', step 2 (emd)",
      InvalidParameterError("channels", "'C9'", "a channel of the recording"));
  EXPECT_EQ(a.exitCode(), 1);
  EXPECT_EQ(std::string(a.what()),
            "'p.json', step 2 (emd): parameter 'channels': got 'C9', expected a channel of the "
            "recording");
  const PipelineStepError b("'p.json', step 1 (ica)", DeviceError("no GPU"));
  EXPECT_EQ(b.exitCode(), 3);
}

}  // namespace
}  // namespace modescope
