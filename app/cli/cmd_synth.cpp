// `synth -o OUT [--channels N] [--rate HZ] [--duration S] [--sources K] [--mixing head|random]
//  [--line-noise 50|60|0] [--seed N]`
#include <chrono>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "engine/core/provenance.h"
#include "engine/core/text.h"
#include "engine/io/recording_io.h"
#include "engine/synth/synthetic_eeg.h"

namespace modescope::cli {

CommandSpec synthSpec() {
  CommandSpec s;
  s.name = "synth";
  s.usage = "-o OUT [options]";
  s.brief = "Generate synthetic EEG with known sources and artifacts";
  s.summary =
      "Generate a synthetic EEG recording with known sources, blinks, line noise and "
      "muscle bursts, and write it.";
  s.description =
      "Oscillatory sources (alpha, beta, theta) are mixed to the electrodes through a spherical "
      "head model or a random matrix, over pink background noise, with eye blinks, line noise and "
      "muscle bursts (blinks and bursts are also written as annotations). The same --seed gives "
      "the same recording on every machine. The seed and all parameters are stored in the "
      "output's provenance (HDF5).";
  s.options = {
      outputOption("The file to write.", true),
      {"channels", 0, "N",
       "Number of electrodes: 19 (10-20), 32, 64 (10-10) or up to "
       "128 (10-05 sites). Default 32."},
      {"rate", 0, "HZ", "Sample rate in Hz (default 256)."},
      {"duration", 0, "SECONDS", "Length in seconds (default 60)."},
      {"sources", 0, "K", "Number of oscillatory sources (default 4)."},
      {"mixing", 0, "head|random",
       "Mixing model: head (spherical head model, the "
       "default) or random (a random matrix)."},
      {"line-noise", 0, "50|60|0", "Mains frequency in Hz, 0 for none (default 50)."},
      {"heart-rate", 0, "BPM",
       "Heartbeats per minute, 40-180, 0 for none (default 0): an ECG-shaped source "
       "with a broad lateral field."},
      {"saccades", 0, "PER_MIN",
       "Horizontal saccades per minute, 0-120 (default 0): gaze steps seen with "
       "opposite signs at F7 and F8."},
      {"exg", 0, "", "Also write VEOG, HEOG and ECG channels (typed EOG/ECG) after the EEG."},
      {"seed", 0, "N", "Random seed, a whole number (default 1)."},
      quietOption(),
      helpOption()};
  s.examples =
      "  modescope-cli synth -o synthetic.h5\n"
      "  modescope-cli synth -o test.edf --channels 64 --rate 512 --duration 300 --mixing random "
      "--line-noise 60 --seed 42\n"
      "  modescope-cli synth -o artifacts.h5 --heart-rate 72 --saccades 30 --exg\n";
  s.maxPositionals = 0;
  return s;
}

int runSynth(const Args& argv) {
  const CommandSpec spec = synthSpec();
  const ParsedArgs args = parseArgs(spec, argv);
  if (!args.positionals.empty()) {
    throw UsageError("'synth' takes no input file (found '" + args.positionals.front() +
                     "'); give the output with -o OUT");
  }
  const std::string output = readOutputPath(args, spec);
  const bool quiet = args.has("quiet");

  SynthParams p;
  if (auto v = args.value("channels"))
    p.channels = static_cast<int>(parseInteger("--channels", *v, 1, 100000));
  if (auto v = args.value("rate")) p.sampleRate = parseNumber("--rate", *v);
  if (auto v = args.value("duration")) p.duration = parseSeconds("--duration", *v, false);
  if (auto v = args.value("sources"))
    p.sources = static_cast<int>(parseInteger("--sources", *v, 0, 100000));
  if (auto v = args.value("mixing")) {
    if (*v == "head")
      p.mixing = MixingModel::HeadModel;
    else if (*v == "random")
      p.mixing = MixingModel::RandomMatrix;
    else
      throw InvalidParameterError("--mixing", "'" + *v + "'", "head or random");
  }
  if (auto v = args.value("line-noise")) {
    const double hz = parseNumber("--line-noise", *v);
    if (hz != 0.0 && hz != 50.0 && hz != 60.0) {
      throw InvalidParameterError("--line-noise", "'" + *v + "'", "50, 60 or 0 (none)",
                                  "Mains power is 50 Hz or 60 Hz everywhere");
    }
    p.lineNoiseHz = hz;
  }
  if (auto v = args.value("heart-rate")) p.heartRatePerMinute = parseNumber("--heart-rate", *v);
  if (auto v = args.value("saccades")) p.saccadesPerMinute = parseNumber("--saccades", *v);
  p.exgChannels = args.has("exg");
  if (auto v = args.value("seed")) p.seed = parseUnsigned("--seed", *v);
  checkOutputPath(output);
  const OutputFormat format = outputFormatForPath(output);

  std::size_t channelCount = 0;
  ProgressDisplay display(ProgressDisplay::modeFor(quiet), "synth");
  const JobOutcome outcome = runCliJob(
      "synth " + output,
      [&](JobContext& ctx) -> void {
        const auto t0 = std::chrono::steady_clock::now();
        JobContext genCtx = ctx.sub(0.0, 0.6);
        SyntheticEeg eeg = generateSyntheticEeg(p, genCtx);
        ctx.checkpoint();
        Provenance prov;
        prov.method = "synth";
        prov.parameters = {{"channels", std::to_string(p.channels)},
                           {"sample_rate", formatNumber(p.sampleRate) + " Hz"},
                           {"duration", formatNumber(p.duration) + " s"},
                           {"sources", std::to_string(p.sources)},
                           {"mixing", p.mixing == MixingModel::HeadModel ? "head" : "random"},
                           {"line_noise", formatNumber(p.lineNoiseHz) + " Hz"},
                           {"line_noise_amplitude", formatNumber(p.lineNoiseMicrovolts) + " uV"},
                           {"blink_rate", formatNumber(p.blinkRatePerMinute) + " /min"},
                           {"muscle_burst_rate", formatNumber(p.muscleBurstsPerMinute) + " /min"},
                           {"background_rms", formatNumber(p.backgroundMicrovolts) + " uV"},
                           {"heart_rate", formatNumber(p.heartRatePerMinute) + " /min"},
                           {"saccade_rate", formatNumber(p.saccadesPerMinute) + " /min"},
                           {"exg_channels", p.exgChannels ? "VEOG, HEOG, ECG" : "none"}};
        prov.seed = std::to_string(p.seed);
        prov.backend = "CPU";
        prov.softwareVersion = softwareVersion();
        prov.createdAt = utcNowIso8601();
        prov.wallSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        channelCount = eeg.recording->channelCount();
        JobContext writeCtx = ctx.sub(0.6, 1.0);
        writeRecording(*eeg.recording, output, format, prov, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code == 0 && !quiet) {
    std::printf("wrote %s (%zu channels, %s Hz, %s s, seed %llu) in %s\n", output.c_str(),
                channelCount, formatNumber(p.sampleRate).c_str(), formatNumber(p.duration).c_str(),
                static_cast<unsigned long long>(p.seed),
                formatSeconds(outcome.wallSeconds).c_str());
  }
  return code;
}

}  // namespace modescope::cli
