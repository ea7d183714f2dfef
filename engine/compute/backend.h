// The compute backend interface (docs/architecture.md, "Layers"): the CPU implementation lives in
// the engine (reference, double-precision arithmetic inside), the CUDA one in cuda/ (float32).
// Every method that has a GPU path appears here once, so the CPU and the GPU run the same contract
// and parity tests compare like with like.
//
// Thread rules: a backend is used by one job at a time (the engine thread); info() may be called
// from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/ar/ar_result.h"
#include "engine/ar/ar_stream.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"
#include "engine/entropy/entropy_params.h"
#include "engine/entropy/entropy_result.h"
#include "engine/hht/hht.h"
#include "engine/ica/ica_result.h"
#include "engine/memd/memd.h"
#include "engine/spatial/spatial_filter.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_result.h"
#include "engine/tf/tf_tiles.h"

namespace modescope {

// engine/epochs/epoch_average.h (declared only: the epoch headers change more often than this
// interface, and most of its users never average epochs).
struct EpochSet;
struct EpochAverages;

enum class BackendKind { Cpu, Cuda };
enum class BackendChoice { Auto, Cpu, Cuda };

struct BackendInfo {
  BackendKind kind = BackendKind::Cpu;
  std::string deviceName;       // "NVIDIA H100 80GB HBM3", or the CPU model
  std::size_t memoryBytes = 0;  // device memory (GPU) or 0
  int threads = 1;              // CPU worker threads
  // Why "auto" runs on the CPU ("no usable GPU (no CUDA device found)"); empty when the backend
  // is the one asked for. It travels with the backend, so every result's provenance says it.
  std::string fallback;
  // What the status bar and every result's provenance show: "GPU: NVIDIA H100 80GB HBM3, 79.1
  // GiB", "CPU, 2 threads", or "CPU, 2 threads (auto: no usable GPU (...))" after a fallback.
  std::string describe() const;
};

// A reference signal r(t) = sum_k weights[k] * x_{sources[k]}(t) subtracted from every target
// channel: average reference, linked mastoids and a single reference channel are all this form.
// Indices are rows of the SignalBlock.
struct ReferencePlan {
  std::vector<std::size_t> sources;
  std::vector<double> weights;
  std::vector<std::size_t> targets;
};

// A linear-phase FIR filter (odd length, symmetric taps) applied with its group delay removed,
// which makes it zero-phase. Designed on the host in double (engine/dsp/fir_design.h).
struct FirKernel {
  std::vector<double> taps;
  double sampleRate = 0.0;
  std::string description;  // "band-pass 1-40 Hz, 529 taps, Hamming"
};

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  virtual BackendInfo info() const = 0;

  // In place: block rows in plan.targets minus the reference signal.
  virtual void applyReference(SignalBlock& block, const ReferencePlan& plan, JobContext& ctx) = 0;

  // In place, every row of the block: zero-phase FIR by FFT convolution. Edges are padded with
  // the odd reflection of the signal (as MNE's "reflect_limited") over the filter half-length so
  // the first and last samples do not ring. Throws InvalidParameterError if the kernel is even or
  // empty.
  virtual void applyFir(SignalBlock& block, const FirKernel& fir, JobContext& ctx) = 0;

  // In place: the whole preprocessing chain of preprocess(): re-reference with `reference` (when
  // not null and it has targets), then apply `filters` in order. The result equals
  // applyReference followed by applyFir per filter on this backend (the default implementation
  // does exactly that); a backend overrides it to keep the block where it computes between the
  // stages (the CUDA backend moves it over the host-device link once each way). Progress covers
  // the whole chain; Cancelled between chunks of work. Throws what applyReference and applyFir
  // throw (the CUDA backend checks every kernel and the plan before any work; the default may
  // have run earlier stages when a later kernel is bad, leaving the block partly processed).
  virtual void applyPipeline(SignalBlock& block, const ReferencePlan* reference,
                             const std::vector<FirKernel>& filters, JobContext& ctx);

  // EMD / EEMD / CEEMDAN / ICEEMDAN of every row of the block (engine/emd/emd.h describes the
  // procedure both backends follow). Checks the input (validateEmdInput) and parameters before
  // any work. Progress over channels and stages; Cancelled between sifting iterations. The CUDA
  // backend computes in params.gpuPrecision, batches channels to fit device memory and throws
  // OutOfDeviceMemoryError (with what would fit) when one channel's ensemble does not.
  virtual EmdResult decompose(const SignalBlock& block, const EmdParams& params,
                              JobContext& ctx) = 0;

  // Multivariate EMD / NA-MEMD of all rows of the block together (engine/memd/memd.h: one
  // driver, the backend's envelope step). Checks the input (validateMemdInput) before any work;
  // Cancelled between sifts. The CPU computes in double with threads over directions; the CUDA
  // backend computes in params.gpuPrecision, streams the directions in chunks that fit device
  // memory and throws OutOfDeviceMemoryError (saying what would fit) before any work when even
  // one direction does not.
  virtual MemdResult memd(const SignalBlock& block, const MemdParams& params, JobContext& ctx) = 0;

  // Hilbert-Huang transform of the IMFs (engine/hht/hht.h: estimator, grid, edges).
  virtual HhtResult hilbertHuang(const EmdResult& modes, const HhtParams& params,
                                 JobContext& ctx) = 0;

  // Extended Infomax ICA of all rows of the block (engine/ica/infomax.h: one driver, the
  // backend's passes). The CPU computes in double; the CUDA backend runs the passes on tensor
  // cores in params.gpuMath and refuses more than 256 components (InvalidParameterError) or data
  // that do not fit in device memory (OutOfDeviceMemoryError).
  virtual IcaResult infomax(const SignalBlock& block, const IcaParams& params, JobContext& ctx) = 0;

  // output = B * input for a bound SpatialFilter (engine/spatial/spatial_filter.h,
  // applySpatialFilter: same contract, same errors). The CPU accumulates in double; the CUDA
  // backend runs one SGEMM (cuBLAS, FP32 accumulation).
  virtual SignalBlock spatialFilter(const SpatialFilter& filter, const SignalBlock& block,
                                    JobContext& ctx) = 0;

  // Burg AR spectra of every row over sliding windows (engine/ar/ar_spectrum.h: the procedure
  // both backends follow). The CPU computes in double with threads over channels; the CUDA
  // backend batches channels x windows in float with the same steps.
  virtual ArSpectrumResult arSpectra(const SignalBlock& block, const BurgArParams& params,
                                     JobContext& ctx) = 0;

  // The BCI feature chain of one block: the spatial filter (when not null) then the AR spectra
  // of its outputs. Equals spatialFilter() followed by arSpectra() (the default does exactly
  // that); the CUDA backend keeps the filtered block on the device between the two, so a
  // streamed block crosses the host-device link once each way.
  virtual ArSpectrumResult filteredArSpectra(const SpatialFilter* filter, const SignalBlock& block,
                                             const BurgArParams& params, JobContext& ctx);

  // A stream of BCI features for live replay (engine/ar/ar_stream.h: the procedure every backend
  // follows): blocks of new samples in, the AR spectra of the latest window of every filter
  // output out. Checks the configuration first (validateArStreamConfig, InvalidParameterError).
  // The CPU stream filters and runs Burg in double with a persistent pool of the backend's
  // threads over outputs; the CUDA stream keeps the filter matrix and the rings on the device.
  // The stream is independent of the backend object's other calls but must not outlive it.
  virtual std::unique_ptr<ArStream> openArStream(const ArStreamConfig& config) = 0;

  // ApEn / Cross-ApEn or SampEn / cross-SampEn matrices of the block's rows (params.rows), per
  // epoch and averaged (engine/entropy/entropy_cpu.h: the procedure and the shared host steps).
  // Both backends check the input with planEntropy() and average with finishEntropyResult(); the
  // CPU counts in double with threads over (epoch, pair), the CUDA backend z-scores (bit for bit
  // as the host), counts epochs x ordered pairs in float (the same counts) and computes the
  // values (entropy_values.h) on the device. Throws InvalidParameterError, InvalidInputError,
  // Cancelled (and OutOfDeviceMemoryError / DeviceError on the GPU).
  virtual EntropyMatrixResult entropyMatrices(const SignalBlock& block, const EntropyParams& params,
                                              JobContext& ctx) = 0;

  // The STFT spectrogram or vertical synchrosqueezing of orders 1-4 of the block's rows
  // (params.rows), complex images on the grid planTf fixes (engine/tf/tf_cpu.h: the procedure,
  // engine/tf/tf_operators.h: the per-bin formulas both backends share). The CPU computes in
  // double with threads over (channel, columns); the CUDA backend in float, tiles of
  // (channel, column) frames through one batched cuFFT, relocating without global atomics.
  // Throws InvalidParameterError (including an output above kTfDefaultMaxBytes, naming its
  // size), InvalidInputError, Cancelled (and OutOfDeviceMemoryError / DeviceError on the GPU).
  virtual TfResult timeFrequency(const SignalBlock& block, const TfParams& params,
                                 JobContext& ctx) = 0;

  // The same transform handed to `sink` tile by tile as it is computed (engine/tf/tf_tiles.h:
  // the order and the tile), never holding the whole image, so params.maxBytes does not bound
  // it (on the CPU it bounds one channel's image). `values`: magnitudes (computed where the
  // transform runs: half the bytes to move) or complex values. Returns the grid and metadata
  // with `values` empty. Throws as timeFrequency, and what the sink throws.
  virtual TfResult timeFrequencyTiles(const SignalBlock& block, const TfParams& params,
                                      TfTileValues values, const TfTileSink& sink,
                                      JobContext& ctx) = 0;

  // Mean and standard error per condition of a set of epochs (engine/epochs/epoch_average.h: the
  // formulas both backends follow). The CPU computes in double; the CUDA backend reads the float
  // samples once per pass into double accumulators, one thread per (condition, channel, sample).
  // Throws Cancelled (and OutOfDeviceMemoryError / DeviceError on the GPU).
  virtual EpochAverages averageEpochs(const EpochSet& set, JobContext& ctx) = 0;
};

// The CPU backend (FFTW, threads over channels). threads <= 0 means all hardware threads.
// `fallback`: BackendInfo::fallback, set by selectBackend when "auto" found no usable GPU.
std::unique_ptr<ComputeBackend> makeCpuBackend(int threads = 0, std::string fallback = {});

// A factory the app registers when it was built with CUDA; returns nullptr when no usable device
// is present (and why, in `reason`).
using GpuBackendFactory = std::unique_ptr<ComputeBackend> (*)(std::string& reason);

// Auto: the GPU when the factory gives one, else the CPU. Cuda: the GPU or an Error explaining
// why not. Cpu: the CPU. `note` receives a line for the user when Auto fell back to the CPU.
// Whenever the CPU runs it has cpuThreads threads (<= 0: all cores), also after Auto fell back.
std::unique_ptr<ComputeBackend> selectBackend(BackendChoice choice, GpuBackendFactory gpu,
                                              std::string* note = nullptr, int cpuThreads = 0);

BackendChoice parseBackendChoice(const std::string& text);  // "auto" | "cpu" | "cuda"

}  // namespace modescope
