// `tfr IN -o OUT.h5 [--order 0|1|2|3|3c|4] [--window gaussian|hann|hamming] [--window-length N]
//  [--sigma S] [--fft N] [--hop N] [--threshold X] [--fmin HZ] [--fmax HZ] [--complex]
//  [--ridges N] [--ridge-penalty X] [--ridge-width B] [--reconstruct] [--channels] [--start]
//  [--duration] [--threads] [--backend] [--json] [--quiet]`: STFT spectrograms and vertical
// synchrosqueezing of chosen channels to HDF5 (docs/time-frequency.md).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "app/cli/job.h"
#include "app/cli/param_options.h"
#include "app/core/gpu_backend.h"
#include "app/core/json_writer.h"
#include "app/core/tf_job.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_tf.h"
#include "engine/io/recording_io.h"
#include "engine/tf/tf_plan.h"

namespace modescope::cli {
namespace {

// Above this the size of the file is announced before it is written.
constexpr std::size_t kAnnounceBytes = std::size_t{100} << 20;

void printJson(const TfJobResult& run, const std::string& output, TfStorage storage,
               const std::string& note) {
  const TfFile& f = *run.run;
  const TfResult& r = f.result;
  JsonWriter w;
  w.beginObject();
  w.field("output", output);
  w.field("backend", run.backend);
  if (note.empty())
    w.nullField("backend_note");
  else
    w.field("backend_note", note);
  w.field("order", tfOrderName(r.params.order));
  w.field("window", tfWindowName(r.params.window));
  w.field("window_length", static_cast<int64_t>(r.params.windowLength));
  w.field("sigma", r.sigma);
  w.field("fft_length", static_cast<int64_t>(r.params.fftLength));
  w.field("hop", static_cast<int64_t>(r.params.hop));
  w.field("channels", static_cast<int64_t>(r.channelCount()));
  w.field("columns", r.columns);
  w.field("bins", static_cast<int64_t>(r.bins));
  w.field("min_hz", r.frequency(0));
  w.field("max_hz", r.frequency(r.bins - 1));
  w.field("storage", storage == TfStorage::Complex ? "complex" : "magnitude");
  w.field("image_bytes", static_cast<int64_t>(tfFileImageBytes(r, storage)));
  w.key("renyi_entropy").beginArray();
  for (double h : f.renyiEntropy) w.value(h);
  w.endArray();
  w.field("ridges", static_cast<int64_t>(f.ridges.empty() ? 0 : f.ridges.front().size()));
  w.field("reconstruction", !f.reconstruction.empty());
  w.field("wall_s", run.wallSeconds);
  writeDiagnosticsJson(w, r.diagnostics);
  w.endObject();
  printJsonLine(w);
}

}  // namespace

CommandSpec tfrSpec() {
  CommandSpec s;
  s.name = "tfr";
  s.usage = "IN -o OUT.h5 [parameters] [options]";
  s.brief = "Spectrograms and synchrosqueezing (orders 1-4) to HDF5";
  s.summary =
      "Compute the STFT spectrogram or its vertical synchrosqueezing of order 1, 2, 3 (EVSS1 or "
      "CVSS3) or 4 for the chosen channels and write the images to HDF5, with optional ridges, "
      "their modes and the reconstructed signal.";
  s.description =
      "One column per --hop samples, each centred on its sample (the signal is zero outside the "
      "selection); bins m fs / N for m = 0..N/2 within --fmin..--fmax. Synchrosqueezing moves "
      "each STFT value to the bin of its estimated instantaneous frequency within its column "
      "(values squeezed outside the range are discarded; values below --threshold x RMS x "
      "sum(h) stay in place), so every column still sums to the signal: --reconstruct keeps "
      "x(t) = 2 / (N h(0)) Re sum_k T(t, k). Orders 1-4 need the Gaussian window. --ridges N "
      "extracts N ridges per channel by dynamic programming with --ridge-penalty per squared "
      "bin of jump, and the mode of each from the rows within --ridge-width bins.\n\n"
      "The output is an HDF5 file (schema modescope-tf/1, docs/time-frequency.md): magnitudes "
      "|T| as float32, or the complex values with --complex. Without --ridges and --reconstruct "
      "the image goes to the file tile by tile as it is computed and is never held in memory; "
      "with them it is held, and one above 8 GiB is refused with its size (raise --hop, narrow "
      "the range or select fewer channels).";
  s.options = {outputOption("The HDF5 file to write (.h5 or .hdf5).", true),
               channelsOption(),
               startOption(),
               durationOption(),
               {"threads", 0, "N", "CPU threads (default: all cores)."},
               backendOption(),
               jsonOption("a summary (grid, sizes, Renyi entropy per channel, diagnostics)"),
               quietOption(),
               helpOption()};
  const std::vector<OptionSpec> params = paramOptions(tfParamTable(), TfParams{});
  const std::vector<OptionSpec> readout = paramOptions(tfReadoutParamTable(), TfReadoutParams{});
  s.options.insert(s.options.begin() + 1, params.begin(), params.end());
  s.options.insert(s.options.begin() + 1 + static_cast<std::ptrdiff_t>(params.size()),
                   readout.begin(), readout.end());
  s.examples =
      "  modescope-cli tfr rec.edf -o tf.h5 --channels Cz --order 3 --window-length 256 --fft 512\n"
      "  modescope-cli tfr rec.edf -o sg.h5 --order 0 --window hann --hop 16 --fmax 45\n"
      "  modescope-cli tfr rec.edf -o modes.h5 --channels O1 --range 0:10 --ridges 2 "
      "--reconstruct --complex\n";
  s.minPositionals = 1;
  s.maxPositionals = 1;
  return s;
}

int runTfr(const Args& argv) {
  const MethodArgs m = readMethodArgs(tfrSpec(), argv);
  const ParsedArgs& args = m.args;
  // Every parameter is checked before the recording is opened (exit 1 at once).
  TfJobSpec job;
  applyParamOptions(args, tfParamTable(), job.params);
  validateAsOptions(tfParamTable(), job.params);  // cross-field errors name the --option
  applyParamOptions(args, tfReadoutParamTable(), job.readout);
  validateAsOptions(tfReadoutParamTable(), job.readout);
  if (job.readout.reconstruct && job.params.hop != 1)
    throw InvalidParameterError("--hop", std::to_string(job.params.hop) + " samples",
                                "1 sample with --reconstruct", "drop --hop or --reconstruct");
  const TfStorage storage = tfStorage(job.readout);
  requireHdf5Output(m.output, "The images are written to HDF5 (schema modescope-tf/1)");
  checkOutputPath(m.output, m.input);
  const BackendChoice choice = readBackendChoice(args);
  const int threads = readThreads(args);

  TfJobResult run;
  std::string backendNote;
  ProgressDisplay display(ProgressDisplay::modeFor(m.quiet), "tfr");
  const JobOutcome outcome = runCliJob(
      "tfr " + m.input,
      [&](JobContext& ctx) -> void {
        std::unique_ptr<ComputeBackend> backend = chooseBackend(choice, &backendNote, threads);
        if (!backendNote.empty()) display.message(std::string(kProgram) + ": " + backendNote);
        std::vector<std::size_t> channels;
        std::shared_ptr<const Recording> rec =
            openMethodInput(m.input, m.selection, ctx, display, channels);
        job.channels = channels;
        job.startSeconds = m.selection.start;
        job.durationSeconds = m.selection.duration;
        // Without ridges or reconstruction the image goes to the file tile by tile and is never
        // held (checkTfJob then leaves out the in-memory bound).
        const bool streamed = tfJobStreams(job);
        const std::size_t bytes = checkTfJob(*rec, job);
        const std::size_t fileBytes = storage == TfStorage::Complex ? bytes : bytes / 2;
        if (fileBytes >= kAnnounceBytes)
          display.message(
              std::string(kProgram) + ": the image will take " +
              formatByteSize(static_cast<double>(fileBytes)) + " in " + m.output + " (" +
              (storage == TfStorage::Complex ? "complex float32" : "float32 |T|") + ")");
        if (streamed) {
          run = runTfJobToFile(*rec, job, *backend, m.output, storage, ctx);
          return;
        }
        JobContext computeCtx = ctx.sub(0.02, 0.85);
        run = runTfJob(*rec, job, *backend, computeCtx);
        JobContext writeCtx = ctx.sub(0.85, 1.0);
        writeTfFile(m.output, *run.run, storage, writeCtx);
        return;
      },
      display);
  const int code = reportOutcome(outcome);
  if (code != 0) return code;
  if (m.json) {
    printJson(run, m.output, storage, backendNote);
  } else if (!m.quiet) {
    const TfResult& r = run.run->result;
    std::printf(
        "order %s, %s window of %d samples, FFT %d, hop %d: %zu channel(s) x %lld columns x %d "
        "bins (%s-%s Hz) on %s in %s; wrote %s\n",
        tfOrderName(r.params.order), tfWindowName(r.params.window), r.params.windowLength,
        r.params.fftLength, r.params.hop, r.channelCount(), static_cast<long long>(r.columns),
        r.bins, formatNumber(r.frequency(0)).c_str(), formatNumber(r.frequency(r.bins - 1)).c_str(),
        run.backend.c_str(), formatSeconds(run.wallSeconds).c_str(), m.output.c_str());
  }
  return 0;
}

}  // namespace modescope::cli
