// EMD, EEMD, CEEMDAN and ICEEMDAN for a batch of channels on the device (emd_methods.cuh), step
// for step the procedure in engine/emd/emd.h.
#include <algorithm>
#include <cmath>
#include <string>

#include "cuda/emd_methods.cuh"
#include "cuda/emd_row_kernels.cuh"
#include "cuda/emd_sifter.cuh"
#include "cuda/imf_rows_download.cuh"
#include "cuda/row_stats.cuh"
#include "cuda/stage_status_tally.cuh"
#include "engine/core/error.h"
#include "engine/emd/emd.h"

namespace modescope::cuda {
namespace {

using namespace emd_rows;  // NOLINT(google-build-using-namespace): this file's own kernels

// The whole run for one batch of channels in precision R.
template <class R>
class BatchRun {
 public:
  BatchRun(const SignalBlock& block, std::size_t firstRow, int channels, const EmdParams& p,
           bool noiseInStages, cudaStream_t stream, const JobContext& ctx)
      : block_(block),
        first_(firstRow),
        C_(channels),
        p_(p),
        n_(block.samples),
        I_(p.method == EmdMethod::Emd ? 1 : p.ensembleSize),
        B_(C_ * I_),
        noiseInStages_(noiseInStages && p.method == EmdMethod::Iceemdan && p.stop == p.noiseStop),
        noiseRow_(noiseInStages_ ? B_ : 0),
        stream_(stream),
        ctx_(ctx),
        sifter_(n_, std::max(noiseRow_ + B_, C_), stream),
        x_(rowsC()),
        r_(rowsC()),
        rNew_(rowsC()),
        d_(rowsC()),
        mean_(std::max(B_, C_)),
        std_(std::max(B_, C_)),
        maxAbs_(std::max(B_, C_)),
        statsScratch_(rowStatsScratch(n_, std::max(B_, C_))),
        factor_(C_),
        scale_(B_),
        hasMode_(B_),
        modeCount_(B_),
        enabled_(2 * static_cast<std::size_t>(B_)),
        channelActive_(C_),
        aliveTotal_(1),
        channelIds_(C_),
        hostStatus_(std::max(B_, C_)),
        hostSifts_(std::max(B_, C_)),
        hostAlive_(1),
        rowsDown_(out_, C_, n_, std::max(B_, C_), stream),
        tally_(B_, stream) {
    std::vector<std::uint64_t> ids(C_);
    for (int c = 0; c < C_; ++c) ids[c] = block_.channels[first_ + c];
    upload(channelIds_.get(), ids.data(), C_);
    // Input rows to the device in R.
    DeviceBuffer<float> staging(rowsC());
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(staging.get(), block_.channel(first_),
                                       rowsC() * sizeof(float), cudaMemcpyHostToDevice, stream_));
    convertKernel<<<blocksFor(rowsC()), kThreads, 0, stream_>>>(staging.get(), x_.get(), rowsC());
    MODESCOPE_CUDA_CHECK_LAUNCH("convertKernel", stream_);
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream_));  // staging is freed on return
    out_.resize(C_);
    for (int c = 0; c < C_; ++c) out_[c].channel = block_.channels[first_ + c];
    // The rows a run usually gives: about one IMF per octave, and the residue.
    rowsDown_.reserveRows(
        (p_.maxImfs > 0 ? p_.maxImfs : static_cast<int>(std::log2(static_cast<double>(n_)))) + 1);
  }

  std::vector<EmdChannelModes> run(Diagnostics& diagnostics) {
    switch (p_.method) {
      case EmdMethod::Emd:
        runEmd();
        break;
      case EmdMethod::Eemd:
        runEemd();
        break;
      case EmdMethod::Ceemdan:
        runCeemdan();
        break;
      case EmdMethod::Iceemdan:
        runIceemdan();
        break;
    }
    rowsDown_.finish();
    tally_.settle();
    if (tally_.degenerate() > 0) {
      addDiagnostic(diagnostics, Severity::Info, "emd.degenerateMembers",
                    std::to_string(tally_.degenerate()) +
                        " ensemble member(s) had fewer than 3 extrema at some stage; their local "
                        "mean is the candidate itself (no noise-assisted IMF).");
    }
    std::vector<std::size_t> limited;
    for (int c = 0; c < C_ && !limitReached_.empty(); ++c) {
      if (limitReached_[c]) limited.push_back(block_.channels[first_ + c]);
    }
    if (!limited.empty()) diagnostics.push_back(imfLimitDiagnostic(automaticImfLimit(n_), limited));
    if (capReached_ || tally_.capReached()) {
      addDiagnostic(diagnostics, Severity::Warning, "emd.siftCapReached",
                    "sifting reached its iteration cap for some IMF before the stop rule was met; "
                    "raise the maximum sift count if the IMFs look under-sifted.");
    }
    for (auto& m : out_) m.rows = static_cast<int>(m.sifts.size()) + 1;
    return std::move(out_);
  }

 private:
  std::size_t rowsC() const { return static_cast<std::size_t>(C_) * n_; }
  std::size_t rowsB() const { return static_cast<std::size_t>(B_) * n_; }
  dim3 gridC() const { return rowsGrid(n_, C_); }
  dim3 gridB() const { return rowsGrid(n_, B_); }

  template <class T>
  void upload(T* dst, const T* src, std::size_t count) {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream_));
  }
  template <class T>
  void download(T* dst, const T* src, std::size_t count) {
    MODESCOPE_CUDA_TRY(
        cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    MODESCOPE_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  // Mean, std and (wantMax) max |x| of `count` rows into mean_, std_ and maxAbs_.
  void rowStats(const R* rows, int count, bool wantMax = false) {
    rowStatistics<R>(rows, n_, count, {mean_.get(), std_.get(), wantMax ? maxAbs_.get() : nullptr},
                     statsScratch_.get(), stream_);
  }

  std::vector<double> hostStd(int count) {
    std::vector<double> s(count);
    download(s.data(), std_.get(), count);
    return s;
  }

  // Standardise: x~ = x / std(x) into r_ (the starting residue); sigma_ keeps std(x).
  void standardise() {
    rowStats(x_.get(), C_);
    sigma_ = hostStd(C_);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(r_.get(), x_.get(), rowsC() * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_));
    divideRowsKernel<<<gridC(), kThreads, 0, stream_>>>(r_.get(), std_.get(), n_, C_);
    MODESCOPE_CUDA_CHECK_LAUNCH("divideRowsKernel", stream_);
  }

  // Appends row `rows` (C x n on the device, standardised units) times scale_c to every channel
  // whose active flag is set, with the members' mean sift count; converted on the host while the
  // device runs on (ImfRowsDownload).
  void appendRows(const R* rows, const std::vector<std::uint8_t>& active, bool withSifts,
                  int members, const std::vector<double>& scale) {
    rowsDown_.append(rows, active, withSifts ? sifter_.sifts() : nullptr,
                     withSifts ? sifter_.status() : nullptr, members, scale);
  }
  // The residue row (no sift count).
  void appendResidue(const R* rows, const std::vector<std::uint8_t>& active,
                     const std::vector<double>& scale) {
    appendRows(rows, active, false, 1, scale);
  }

  // Status of the last extract for `count` signals, on the host; counts the degenerate members
  // (no IMF) and the sift-cap hits of this stage.
  const int* fetchStatus(int count, int cap = 0) {
    download(hostStatus_.get(), sifter_.status(), count);
    if (cap > 0) {
      download(hostSifts_.get(), sifter_.sifts(), count);
      for (int b = 0; b < count; ++b) {
        if (hostStatus_.get()[b] == kSiftDone && hostSifts_.get()[b] >= cap) capReached_ = true;
      }
    }
    return hostStatus_.get();
  }

  int capOf(const StopRule& r) const {
    return r.kind == StopRuleKind::FixedSifts ? 0 : r.maxSifts;  // fixed counts always "hit"
  }

  void progress(double f, const std::string& what) { ctx_.progress(f, what); }

  // ---- noise modes E_k(w_i) -------------------------------------------------------------------

  // Every member's realization base[c] + scale[b] * w_b (base null: the noise alone) into
  // `residue` and the sifter's rows from `firstRow` on, and its max |value| into `ref` (emd.m's
  // reference for the too-small-amplitude stop).
  void startMembers(const R* base, const double* scale, bool paired, R* residue, int firstRow,
                    R* ref) {
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(ref, 0, B_ * sizeof(R), stream_));
    noiseKernel<<<noiseGrid(n_, B_), kThreads, 0, stream_>>>(residue, sifterRow(firstRow), ref,
                                                             base, scale, n_, B_, I_,
                                                             channelIds_.get(), p_.seed, paired);
    MODESCOPE_CUDA_CHECK_LAUNCH("noiseKernel", stream_);
  }

  R* sifterRow(int row) const { return sifter_.input() + static_cast<std::size_t>(row) * n_; }
  // The sifter's enable flags: the stage's members (rows 0 .. B - 1), then the noise members
  // (sifted in rows noiseRow_ ..; alive: they may yield another mode).
  std::uint8_t* memberEnabled() const { return enabled_.get(); }
  std::uint8_t* alive() const { return enabled_.get() + B_; }

  // The noise's members: white noise in the sifter's rows noiseRow_ .. and in noiseResidue_,
  // no modes yet, all alive. noiseRef_ holds noiseRow_ zeros (no amplitude test for the stage's
  // members sifted beside them) and then each noise member's max |w|.
  void startNoiseModes() {
    noiseResidue_ = DeviceBuffer<R>(rowsB());
    noiseRef_ = DeviceBuffer<R>(static_cast<std::size_t>(noiseRow_ + B_));
    if (noiseRow_ > 0) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(noiseRef_.get(), 0, noiseRow_ * sizeof(R), stream_));
    }
    startMembers(nullptr, nullptr, false, noiseResidue_.get(), noiseRow_,
                 noiseRef_.get() + noiseRow_);
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(modeCount_.get(), 0, B_ * sizeof(int), stream_));
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(alive(), 1, B_, stream_));
    noiseGoesOn_ = true;
  }

  // After an extract that sifted the noise members: their mode k (the next of noiseModes_) kept,
  // their residues and next inputs updated, and whether some member may yield another mode copied
  // down behind them. noiseGoesOn() reads that copy: where the stages sift the noise, after the
  // next probe's wait, so a stage costs one host wait and not two.
  void keepNoiseMode(int needed) {
    const int k = static_cast<int>(noiseModes_.size());
    noiseModes_.emplace_back(rowsB());
    noiseStepKernel<<<wideRowsGrid(n_, B_), kThreads, 0, stream_>>>(
        noiseModes_.back().get(), noiseResidue_.get(), sifterRow(noiseRow_),
        sifter_.imfs() + noiseRow_, sifter_.status() + noiseRow_, n_, B_, noiseRow_,
        sifter_.inputFlagRows(), siftCountsZeros(p_.noiseStop));
    MODESCOPE_CUDA_CHECK_LAUNCH("noiseStepKernel", stream_);
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(aliveTotal_.get(), 0, sizeof(int), stream_));
    noiseCountKernel<<<blocksFor(B_, 128), 128, 0, stream_>>>(
        sifter_.status() + noiseRow_, k, modeCount_.get(), alive(), B_, aliveTotal_.get());
    MODESCOPE_CUDA_CHECK_LAUNCH("noiseCountKernel", stream_);
    noiseBelowLimit_ = k + 1 < imfLimit(needed, n_);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostAlive_.get(), aliveTotal_.get(), sizeof(int),
                                       cudaMemcpyDeviceToHost, stream_));
    aliveCopied_.record(stream_);
    aliveQueued_ = true;
  }

  // Whether another noise mode is to be computed: some member may yield one (the count
  // keepNoiseMode copied down), and fewer than `needed` (0: automaticImfLimit) are computed.
  bool noiseGoesOn() {
    if (aliveQueued_) {
      aliveCopied_.synchronize();  // at once where a wait for the stream came after the copy
      aliveQueued_ = false;
      noiseGoesOn_ = noiseBelowLimit_ && *hostAlive_.get() != 0;
      if (!noiseGoesOn_) {
        noiseResidue_ = DeviceBuffer<R>();
        noiseRef_ = DeviceBuffer<R>();
      }
    }
    return noiseGoesOn_;
  }

  // Full EMD of every member's white noise with noiseStop, modes kept on the device. `needed`:
  // modes to compute at most (0 = until every member is exhausted). With noiseInStages_, only the
  // first mode: each stage sifts the next one beside its own members (siftStage).
  void computeNoiseModes(int needed, double f0, double f1) {
    startNoiseModes();
    if (noiseInStages_) {
      // The stage's rows are not in use yet: left out of this extract.
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(memberEnabled(), 0, B_, stream_));
      membersEnabled_ = false;
      progress(f0, "noise modes 1");
      sifter_.extract(noiseRow_ + B_, p_.noiseStop, memberEnabled(), noiseRef_.get(), false,
                      SiftInput::Unflagged, ctx_.sub(0, 0));
      keepNoiseMode(needed);
      return;
    }
    const int limit = imfLimit(needed, n_);
    for (int k = 0; k < limit; ++k) {
      progress(f0 + (f1 - f0) * k / limit, "noise modes " + std::to_string(k + 1));
      // The first mode's input is the noise (startMembers), the others' noiseStepKernel's.
      sifter_.extract(B_, p_.noiseStop, alive(), noiseRef_.get(), false,
                      k == 0 ? SiftInput::Unflagged : SiftInput::FlaggedByWriter, ctx_.sub(0, 0));
      keepNoiseMode(needed);
      if (!noiseGoesOn()) break;
    }
  }

  // The stage's members (the sifter's rows 0 .. B - 1, enabled by memberEnabled()) sifted with
  // the stop rule, and the noise's next mode beside them while it goes on (noiseInStages_: one
  // batch of 2 B signals; the two halves take the same rule). With a batch that leaves the device
  // partly idle, the noise's extract and the stage's ran one after the other: each paid the
  // iteration's launches and the device's idle tails alone (docs/emd.md).
  // countDegenerate: as tallyStatuses. The members' rows are realizeModeKernel's and the noise's
  // noiseStepKernel's, both flagged as they were written.
  void siftStage(std::vector<std::uint8_t> countDegenerate) {
    const bool withNoise = noiseInStages_ && noiseGoesOn();
    sifter_.extract(withNoise ? noiseRow_ + B_ : B_, p_.stop, memberEnabled(),
                    withNoise ? noiseRef_.get() : nullptr, false, SiftInput::FlaggedByWriter,
                    ctx_.sub(0, 0));
    tallyStatuses(std::move(countDegenerate));
    if (withNoise) keepNoiseMode(neededNoiseModes_);
  }

  // ---- methods
  // ------------------------------------------------------------------------------------

  void runEmd() {
    // residue = x; input = x; the tiny-amplitude test compares with max|x|.
    DeviceBuffer<R> residue(rowsC());
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(residue.get(), x_.get(), rowsC() * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(sifter_.input(), x_.get(), rowsC() * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_));
    rowStats(x_.get(), C_, true);
    DeviceBuffer<R> ref(C_);
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(ref.get(), maxAbs_.get(), C_ * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_));
    std::vector<std::uint8_t> active(C_, 1);
    const std::vector<double> one(C_, 1.0);
    const int limit = imfLimit(p_, n_);
    for (int k = 0; k < limit; ++k) {
      progress(static_cast<double>(k) / std::min(limit, 16), "EMD IMF " + std::to_string(k + 1));
      setChannelActive(active);
      sifter_.extract(C_, p_.stop, channelActive_.get(), ref.get(), false, SiftInput::Unflagged,
                      ctx_.sub(0, 0));
      const int* st = fetchStatus(C_, capOf(p_.stop));
      std::vector<std::uint8_t> got(C_, 0);
      bool any = false;
      for (int c = 0; c < C_; ++c) {
        got[c] = active[c] && st[c] == kSiftDone;
        any = any || got[c];
      }
      emdStepKernel<<<gridC(), kThreads, 0, stream_>>>(d_.get(), residue.get(), sifter_.input(),
                                                       sifter_.imfs(), sifter_.status(), n_, C_);
      MODESCOPE_CUDA_CHECK_LAUNCH("emdStepKernel", stream_);
      appendRows(d_.get(), got, true, 1, one);
      active = got;
      if (!any) break;
    }
    if (p_.maxImfs == 0) limitReached_ = active;  // the channels that gave an IMF at the limit
    appendResidue(residue.get(), std::vector<std::uint8_t>(C_, 1), one);
  }

  void runEemd() {
    rowStats(x_.get(), C_);
    sigma_ = hostStd(C_);
    std::vector<double> amp(B_);
    for (int b = 0; b < B_; ++b) amp[b] = p_.noiseStd * sigma_[b / I_];
    upload(scale_.get(), amp.data(), B_);
    DeviceBuffer<R> residue(rowsB()), ref(B_);
    startMembers(x_.get(), scale_.get(), p_.pairedNoise, residue.get(), 0, ref.get());
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(alive(), 1, B_, stream_));
    const int K =
        p_.maxImfs > 0 ? p_.maxImfs : std::max(1, static_cast<int>(std::floor(std::log2(n_))) - 1);
    // sum_k d_k, for the residue x - sum d_k.
    DeviceBuffer<R> total(rowsC());
    MODESCOPE_CUDA_TRY(cudaMemsetAsync(total.get(), 0, rowsC() * sizeof(R), stream_));
    const std::vector<std::uint8_t> all(C_, 1);
    const std::vector<double> one(C_, 1.0);
    for (int k = 0; k < K; ++k) {
      progress(static_cast<double>(k) / K, "EEMD IMF " + std::to_string(k + 1));
      sifter_.extract(B_, p_.stop, alive(), ref.get(), false, SiftInput::Unflagged, ctx_.sub(0, 0));
      const int* st = fetchStatus(B_, capOf(p_.stop));
      std::vector<std::uint8_t> alive(B_);
      for (int b = 0; b < B_; ++b) alive[b] = st[b] == kSiftDone;
      ensembleMeanKernel<<<gridC(), kThreads, 0, stream_>>>(
          d_.get(), sifter_.imfs(), sifter_.status(), static_cast<const R*>(nullptr),
          static_cast<const R*>(nullptr), nullptr, nullptr, n_, C_, I_, false);
      MODESCOPE_CUDA_CHECK_LAUNCH("ensembleMeanKernel", stream_);
      emdStepKernel<<<gridB(), kThreads, 0, stream_>>>(static_cast<R*>(nullptr), residue.get(),
                                                       sifter_.input(), sifter_.imfs(),
                                                       sifter_.status(), n_, B_);
      MODESCOPE_CUDA_CHECK_LAUNCH("emdStepKernel", stream_);
      combineKernel<<<blocksFor(rowsC()), kThreads, 0, stream_>>>(total.get(), total.get(),
                                                                  d_.get(), R(1), rowsC());
      MODESCOPE_CUDA_CHECK_LAUNCH("combineKernel", stream_);
      appendRows(d_.get(), all, true, I_, one);
      upload(this->alive(), alive.data(), B_);
    }
    combineKernel<<<blocksFor(rowsC()), kThreads, 0, stream_>>>(d_.get(), x_.get(), total.get(),
                                                                R(-1), rowsC());
    MODESCOPE_CUDA_CHECK_LAUNCH("combineKernel", stream_);
    appendResidue(d_.get(), all, one);
  }

  // The realizations of a stage with the noise mode `k` (0-based) of each member scaled by
  // noiseStd * channelStd[c] (channelStd on the device, or null: noiseStd; / std(E_k) when
  // normalise), built from base = r_ into the sifter's rows; queued, no host wait.
  void realizeNoisyStage(int k, const double* channelStd, bool normalise) {
    // Before the rows' statistics below overwrite std_, which channelStd may be.
    channelFactorKernel<<<blocksFor(C_, 128), 128, 0, stream_>>>(factor_.get(), p_.noiseStd,
                                                                 channelStd, C_);
    MODESCOPE_CUDA_CHECK_LAUNCH("channelFactorKernel", stream_);
    if (normalise) rowStats(noiseModes_[k].get(), B_);
    noiseScaleKernel<<<blocksFor(B_, 128), 128, 0, stream_>>>(modeCount_.get(), k, factor_.get(),
                                                              std_.get(), normalise, hasMode_.get(),
                                                              scale_.get(), B_, I_);
    MODESCOPE_CUDA_CHECK_LAUNCH("noiseScaleKernel", stream_);
    realizeInSifter(noiseModes_[k].get());
  }

  // The stage's realizations r_[c] + scale_[b] * mode[b] (where hasMode_[b]; r_[c] elsewhere)
  // written into the sifter's rows and flagged there for its first iteration.
  void realizeInSifter(const R* mode) {
    realizeModeKernel<<<writerRowsGrid(n_, B_), kThreads, 0, stream_>>>(
        sifter_.input(), r_.get(), mode, scale_.get(), hasMode_.get(), n_, B_, I_,
        sifter_.inputFlagRows(), siftCountsZeros(p_.stop));
    MODESCOPE_CUDA_CHECK_LAUNCH("realizeModeKernel", stream_);
  }

  // The realizations of a stage on the current residue r: noise mode `mode` of each member scaled
  // by noiseStd * std(r) (/ std(E) when normalise), or, once every member's noise is exhausted, r
  // itself (iceemdan.m and ceemdan.m add no noise to a member without that mode). Queued, no host
  // wait. Returns whether noise mode `mode` exists.
  bool realizeResidueStage(int mode, bool normalise) {
    if (mode >= static_cast<int>(noiseModes_.size())) {
      MODESCOPE_CUDA_TRY(cudaMemsetAsync(hasMode_.get(), 0, B_ * sizeof(int), stream_));
      realizeInSifter(nullptr);  // no member has a mode: r_ itself
      return false;
    }
    rowStats(r_.get(), C_);
    realizeNoisyStage(mode, std_.get(), normalise);
    return true;
  }

  // Sifts the realizations queued before, the members of the `active` channels; leaves the
  // sifter's IMFs and statuses for the ensemble mean. Degenerate members are counted where the
  // members had noise (haveMode).
  void siftRealizedStage(bool haveMode, const std::vector<std::uint8_t>& active) {
    enableActiveMembers(active);
    siftStage(haveMode ? active : std::vector<std::uint8_t>{});
  }

  // The stage's statuses for the diagnostics, counted when the next stage queues its own
  // (StageStatusTally); degenerate members are counted in the channels countDegenerate sets.
  void tallyStatuses(std::vector<std::uint8_t> countDegenerate) {
    tally_.queue(sifter_.status(), sifter_.sifts(), B_, I_, capOf(p_.stop),
                 std::move(countDegenerate));
  }

  // channelActive_ = active, copied only when it changed: a copy from pageable memory waits for
  // the stream to drain, and the probe and the stage after it copied the same mask every stage.
  // Returns whether it changed.
  bool setChannelActive(const std::vector<std::uint8_t>& active) {
    if (active == deviceActive_) return false;
    upload(channelActive_.get(), active.data(), C_);
    deviceActive_ = active;
    return true;
  }

  void enableActiveMembers(const std::vector<std::uint8_t>& active) {
    if (!setChannelActive(active) && membersEnabled_) return;
    expandMaskKernel<<<blocksFor(B_, 128), 128, 0, stream_>>>(channelActive_.get(), memberEnabled(),
                                                              B_, I_);
    MODESCOPE_CUDA_CHECK_LAUNCH("expandMaskKernel", stream_);
    membersEnabled_ = true;
  }

  // iceemdan.m's es_imf (or, extremaOnly, CEEMDAN's "> 2 extrema") on r_ per channel. The next
  // stage's realizations (`realize`, which returns whether they have noise) are queued behind the
  // probe before the host waits for its answer, so the device builds them while the host reads it
  // and queues the stage: waiting at once, the device stood idle 60-70 us a stage (cuda_timeline,
  // H200, one channel). Where no channel goes on, they are not used.
  template <class Realize>
  std::vector<std::uint8_t> probe(const std::vector<std::uint8_t>& active, bool extremaOnly,
                                  bool& haveMode, Realize&& realize) {
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(sifter_.input(), r_.get(), rowsC() * sizeof(R),
                                       cudaMemcpyDeviceToDevice, stream_));
    setChannelActive(active);
    sifter_.extract(C_, p_.stop, channelActive_.get(), nullptr, true, SiftInput::Unflagged,
                    ctx_.sub(0, 0));
    // Copied before the realizations overwrite the sifter's rows and the stage its statuses.
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(hostStatus_.get(), sifter_.status(), C_ * sizeof(int),
                                       cudaMemcpyDeviceToHost, stream_));
    probed_.record(stream_);
    haveMode = realize();
    probed_.synchronize();
    const int* st = hostStatus_.get();
    std::vector<std::uint8_t> go(C_);
    for (int c = 0; c < C_; ++c) {
      go[c] = active[c] && (extremaOnly ? st[c] != kSiftNoImf : st[c] == kSifting);
    }
    return go;
  }

  void runIceemdan() {
    neededNoiseModes_ = p_.maxImfs > 0 ? p_.maxImfs : 0;
    const double stages = noiseInStages_ ? 0.05 : 0.4;  // the progress before the stages
    computeNoiseModes(neededNoiseModes_, 0.0, stages);
    standardise();
    std::vector<std::uint8_t> active(C_, 1);
    // Stage 1: E_1 normalised to unit std, factor noiseStd (std(x~) = 1).
    progress(stages, "ICEEMDAN mode 1");
    realizeNoisyStage(0, nullptr, true);
    siftRealizedStage(true, active);
    ensembleMeanKernel<<<gridC(), kThreads, 0, stream_>>>(
        rNew_.get(), sifter_.imfs(), sifter_.status(), r_.get(), noiseModes_[0].get(), scale_.get(),
        hasMode_.get(), n_, C_, I_, true);
    MODESCOPE_CUDA_CHECK_LAUNCH("ensembleMeanKernel", stream_);
    finishStage(active);
    const int limit = imfLimit(p_, n_);
    for (int k = 1; p_.maxImfs == 0 || k < limit; ++k) {
      progress(stages + (1 - stages) * std::min(1.0, k / 14.0),
               "ICEEMDAN mode " + std::to_string(k + 1));
      bool haveMode = false;
      active = probe(active, false, haveMode, [&] {
        return realizeResidueStage(k, p_.noiseScaling == NoiseScaling::Constant);
      });
      if (std::none_of(active.begin(), active.end(), [](auto a) { return a != 0; })) break;
      if (k == limit) {  // an automatic count, and these channels' residues still have an IMF
        limitReached_ = active;
        break;
      }
      siftRealizedStage(haveMode, active);
      ensembleMeanKernel<<<gridC(), kThreads, 0, stream_>>>(
          rNew_.get(), sifter_.imfs(), sifter_.status(), r_.get(),
          haveMode ? noiseModes_[k].get() : nullptr, scale_.get(), hasMode_.get(), n_, C_, I_,
          true);
      MODESCOPE_CUDA_CHECK_LAUNCH("ensembleMeanKernel", stream_);
      finishStage(active);
    }
    appendResidue(r_.get(), std::vector<std::uint8_t>(C_, 1), sigma_);
  }

  // d = r - rNew (the mode) for active channels, then r = rNew there.
  void finishStage(const std::vector<std::uint8_t>& active) {
    combineKernel<<<blocksFor(rowsC()), kThreads, 0, stream_>>>(d_.get(), r_.get(), rNew_.get(),
                                                                R(-1), rowsC());
    MODESCOPE_CUDA_CHECK_LAUNCH("combineKernel", stream_);
    appendRows(d_.get(), active, true, I_, sigma_);
    copyActiveRows(r_.get(), rNew_.get(), active);
  }

  // One copy per run of consecutive active channels: a copy per row took 768 copies and ~2 ms of
  // a 64-channel ICEEMDAN run, most of it the gaps between them (cuda_timeline, H200).
  void copyActiveRows(R* dst, const R* src, const std::vector<std::uint8_t>& active) {
    for (int c = 0; c < C_;) {
      if (!active[c]) {
        ++c;
        continue;
      }
      int end = c + 1;
      while (end < C_ && active[end]) ++end;
      const std::size_t at = static_cast<std::size_t>(c) * n_;
      MODESCOPE_CUDA_TRY(cudaMemcpyAsync(dst + at, src + at,
                                         static_cast<std::size_t>(end - c) * n_ * sizeof(R),
                                         cudaMemcpyDeviceToDevice, stream_));
      c = end;
    }
  }

  void runCeemdan() {
    const int needed = p_.maxImfs > 0 ? std::max(1, p_.maxImfs - 1) : 0;
    computeNoiseModes(needed, 0.0, 0.4);
    standardise();
    std::vector<std::uint8_t> active(C_, 1);
    // Stage 1: raw noise, amplitude noiseStd.
    progress(0.4, "CEEMDAN mode 1");
    std::vector<double> amp(B_, p_.noiseStd);
    upload(scale_.get(), amp.data(), B_);
    noiseKernel<<<noiseGrid(n_, B_), kThreads, 0, stream_>>>(
        sifter_.input(), static_cast<R*>(nullptr), static_cast<R*>(nullptr), r_.get(), scale_.get(),
        n_, B_, I_, channelIds_.get(), p_.seed, false);
    MODESCOPE_CUDA_CHECK_LAUNCH("noiseKernel", stream_);
    sifter_.extract(B_, p_.stop, nullptr, nullptr, false, SiftInput::Unflagged, ctx_.sub(0, 0));
    tallyStatuses(active);
    ceemdanFinish(active);
    const int limit = imfLimit(p_, n_);
    for (int k = 1; p_.maxImfs == 0 || k < limit; ++k) {
      progress(0.4 + 0.6 * std::min(1.0, k / 14.0), "CEEMDAN mode " + std::to_string(k + 1));
      bool haveMode = false;
      // Torres: E_{k-1} for mode k.
      active = probe(active, true, haveMode, [&] { return realizeResidueStage(k - 1, true); });
      if (std::none_of(active.begin(), active.end(), [](auto a) { return a != 0; })) break;
      if (k == limit) {  // an automatic count, and these channels' residues have 3 extrema
        limitReached_ = active;
        break;
      }
      siftRealizedStage(haveMode, active);
      ceemdanFinish(active);
    }
    appendResidue(r_.get(), std::vector<std::uint8_t>(C_, 1), sigma_);
  }

  // d = mean_i IMF_i; r -= d (active channels).
  void ceemdanFinish(const std::vector<std::uint8_t>& active) {
    ensembleMeanKernel<<<gridC(), kThreads, 0, stream_>>>(
        d_.get(), sifter_.imfs(), sifter_.status(), static_cast<const R*>(nullptr),
        static_cast<const R*>(nullptr), nullptr, nullptr, n_, C_, I_, false);
    MODESCOPE_CUDA_CHECK_LAUNCH("ensembleMeanKernel", stream_);
    appendRows(d_.get(), active, true, I_, sigma_);
    combineKernel<<<blocksFor(rowsC()), kThreads, 0, stream_>>>(rNew_.get(), r_.get(), d_.get(),
                                                                R(-1), rowsC());
    MODESCOPE_CUDA_CHECK_LAUNCH("combineKernel", stream_);
    copyActiveRows(r_.get(), rNew_.get(), active);
  }

  const SignalBlock& block_;
  std::size_t first_;
  int C_;
  const EmdParams& p_;
  std::int64_t n_;
  int I_, B_;
  // ICEEMDAN sifts each stage's members and the noise's next mode in one batch (siftStage): the
  // noise members in the sifter's rows noiseRow_ = B .. 2 B - 1. Otherwise noiseRow_ = 0 and the
  // noise modes are all computed first.
  bool noiseInStages_;
  int noiseRow_;
  cudaStream_t stream_;
  const JobContext& ctx_;
  BatchSifter<R> sifter_;
  DeviceBuffer<R> x_, r_, rNew_, d_;
  DeviceBuffer<double> mean_, std_;
  DeviceBuffer<R> maxAbs_;
  DeviceBuffer<double> statsScratch_;  // rowStatistics's
  DeviceBuffer<double> factor_, scale_;
  DeviceBuffer<int> hasMode_, modeCount_;
  DeviceBuffer<std::uint8_t> enabled_, channelActive_;
  DeviceBuffer<int> aliveTotal_;
  DeviceBuffer<std::uint64_t> channelIds_;
  std::vector<DeviceBuffer<R>> noiseModes_;
  DeviceBuffer<R> noiseResidue_, noiseRef_;  // while noise modes are computed (startNoiseModes)
  bool noiseGoesOn_ = false;                 // another noise mode is to be computed
  bool noiseBelowLimit_ = false;             // fewer noise modes than needed (keepNoiseMode)
  bool aliveQueued_ = false;  // hostAlive_ has a copy queued that noiseGoesOn has not read
  int neededNoiseModes_ = 0;  // at most this many (0: until exhausted, at most automaticImfLimit)
  PinnedBuffer<int> hostStatus_, hostSifts_, hostAlive_;
  Event aliveCopied_;  // hostAlive_'s copy
  Event probed_;       // the probe's statuses copied to hostStatus_
  std::vector<double> sigma_;
  std::vector<EmdChannelModes> out_;
  ImfRowsDownload<R> rowsDown_;  // after out_, which its host thread fills
  StageStatusTally tally_;
  std::vector<std::uint8_t> deviceActive_;  // what channelActive_ holds (empty: not set yet)
  bool membersEnabled_ = false;             // memberEnabled() expanded from channelActive_
  bool capReached_ = false;                 // by the statuses fetchStatus waits for (and tally_'s)
  // Per channel: an automatic IMF count stopped at imfLimit with an IMF left (empty: none).
  std::vector<std::uint8_t> limitReached_;
};

}  // namespace

int emdNoiseModeEstimate(const EmdParams& p, std::int64_t samples) {
  if (p.method == EmdMethod::Emd || p.method == EmdMethod::Eemd) return 0;
  return imfLimit(p, samples);  // the most any run computes
}

std::size_t emdNoiseInStagesBytesPerChannel(const EmdParams& p, std::int64_t samples) {
  if (p.method != EmdMethod::Iceemdan || p.stop != p.noiseStop) return 0;
  const std::size_t sifter = p.gpuPrecision == GpuPrecision::Float64
                                 ? BatchSifter<double>::bytesPerSignal(samples)
                                 : BatchSifter<float>::bytesPerSignal(samples);
  return static_cast<std::size_t>(p.ensembleSize) * sifter;
}

std::size_t emdBytesPerChannel(const EmdParams& p, std::int64_t samples) {
  const std::size_t r = p.gpuPrecision == GpuPrecision::Float64 ? sizeof(double) : sizeof(float);
  const std::size_t members = p.method == EmdMethod::Emd ? 1 : p.ensembleSize;
  const std::size_t n = static_cast<std::size_t>(samples);
  const std::size_t sifter = r == sizeof(double) ? BatchSifter<double>::bytesPerSignal(samples)
                                                 : BatchSifter<float>::bytesPerSignal(samples);
  const std::size_t noise = static_cast<std::size_t>(emdNoiseModeEstimate(p, samples)) * n * r;
  // Per member: sifter, noise modes, one work row (noise residue / EEMD residue), the row
  // statistics' scratch; per channel: five rows (x, r, rNew, d, staging) and small arrays.
  const std::size_t stats = rowStatsScratch(samples, 1) * sizeof(double);
  return members * (sifter + noise + n * r + stats + 64) + 5 * n * r + 1024;
}

template <class R>
void decomposeChannelBatch(const SignalBlock& block, std::size_t firstRow, int channels,
                           const EmdParams& p, bool noiseInStages,
                           std::vector<EmdChannelModes>& out, Diagnostics& diagnostics,
                           cudaStream_t stream, const JobContext& ctx) {
  BatchRun<R> run(block, firstRow, channels, p, noiseInStages, stream, ctx);
  for (auto& m : run.run(diagnostics)) out.push_back(std::move(m));
}

template void decomposeChannelBatch<float>(const SignalBlock&, std::size_t, int, const EmdParams&,
                                           bool, std::vector<EmdChannelModes>&, Diagnostics&,
                                           cudaStream_t, const JobContext&);
template void decomposeChannelBatch<double>(const SignalBlock&, std::size_t, int, const EmdParams&,
                                            bool, std::vector<EmdChannelModes>&, Diagnostics&,
                                            cudaStream_t, const JobContext&);

}  // namespace modescope::cuda
