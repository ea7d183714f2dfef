// runInfomaxGpu (cuda_ica.h): the shared Infomax driver (engine/ica) with device moments and
// passes. The raw block goes to the GPU once; the covariance and the sphered data (float,
// sample-major) are computed there (ica_whitening_gpu.h); each pass uploads its permutation and
// runs one kernel (in plain TF32 on compute 9.0 the warpgroup kernels, one warpgroup up to 64
// components and two up to 128; else up to 64 the register-resident one, and up to 256 the
// tensor-core cluster kernel in TF32 and 3xTF32; else, and for FP32, the WMMA cluster kernel:
// infomax_kernels.cuh, planInfomaxKernels below); the driver reads W back after every pass for
// the change and angle (R x R floats: negligible next to the pass).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_ica.h"
#include "cuda/device_memory.cuh"
#include "cuda/ica_whitening_gpu.h"
#include "cuda/infomax_kernels.cuh"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/ica/infomax.h"
#include "engine/ica/infomax_passes.h"

namespace modescope::cuda {
namespace {

InfomaxMath toKernelMath(IcaGpuMath m) {
  switch (m) {
    case IcaGpuMath::Tf32x3:
      return InfomaxMath::Tf32x3;
    case IcaGpuMath::Tf32:
      return InfomaxMath::Tf32;
    case IcaGpuMath::Fp32:
      return InfomaxMath::Fp32;
  }
  return InfomaxMath::Tf32x3;
}

// The pass kernel the planner picks for a problem, with the layout it runs on (exactly one of
// the optional ones, or none: the WMMA cluster kernel). `wmma` is planned either way: its R is
// the device state's rows of W.
struct InfomaxKernelPlan {
  InfomaxLayout wmma;
  std::optional<InfomaxWgmmaLayout> warpgroup;
  std::optional<InfomaxFastLayout> fast;
  std::optional<InfomaxMmaClusterLayout> mmaCluster;
  std::string describe() const;  // the kernel in words, for benchmarks and logs
};

// A warpgroup kernel (plain TF32, up to 128 components, compute 9.0), else the register-resident
// one (up to 64), else the tensor-core cluster kernel (65 to 256), where they apply, else the
// WMMA cluster kernel; unless a test forces the WMMA cluster kernel through its slab-rows hook,
// holds the warpgroup kernels back, or asks for a shape of the tensor-core cluster kernel.
// False where no kernel takes the problem (more than 256 components).
bool planInfomaxKernels(int components, int blockSize, IcaGpuMath gpuMath,
                        const cudaDeviceProp& props, int optin, InfomaxKernelPlan& out);

class GpuInfomaxPasses final : public InfomaxPasses {
 public:
  // `kernels`: the pass kernel to run and its layout (planInfomaxKernels).
  // `raw`: the block on the device, from which the constructor spheres the data.
  GpuInfomaxPasses(const InfomaxSetup& s, DeviceIcaBlock& raw, const InfomaxKernelPlan& kernels)
      : setup_(s), r_(s.components), R_(kernels.wmma.R), kernels_(kernels) {
    // Plain TF32 rounds every product input: round the data once, as they are sphered.
    dataTf32_ = (kernels_.warpgroup || kernels_.fast || kernels_.mmaCluster) &&
                toKernelMath(s.params.gpuMath) == InfomaxMath::Tf32;
    // The warpgroup kernels read rows of 64 or 128 with their own channel order
    // (infomax_kernels.cuh).
    const int row = kernels_.warpgroup ? kernels_.warpgroup->rows : R_;
    const std::size_t n = static_cast<std::size_t>(s.samples);
    const std::size_t dataBytes =
        n * static_cast<std::size_t>(row) * sizeof(float) + n * sizeof(int);
    const std::size_t freeBytes = cudaMemoryInfo().freeBytes;
    if (dataBytes > freeBytes)
      throw OutOfDeviceMemoryError(
          "ICA on the GPU keeps the sphered data resident: " + std::to_string(s.samples) +
          " samples x " + std::to_string(row) + " components need " + formatMebibytes(dataBytes) +
          "; " + formatMebibytes(freeBytes) +
          " of GPU memory is free. Use a shorter time range, a lower PCA rank, or the CPU "
          "backend");
    // Sample-major, rows padded with zeros (padded components never move), sphered on the device.
    data_ = DeviceBuffer<float>(n * static_cast<std::size_t>(row));
    SpheredRows rows;
    rows.components = r_;
    rows.row = row;
    rows.warpgroupSlots = kernels_.warpgroup.has_value();
    rows.tf32 = dataTf32_;
    raw.sphere(s.mean, s.sphere, rows, data_.get());
    for (int k = 0; k < 2; ++k) {
      perm_[k] = DeviceBuffer<int>(n);
      permHost_[k] = PinnedBuffer<int>(n);  // page-locked: the upload is one DMA
    }
    const std::size_t rr = static_cast<std::size_t>(R_) * R_;
    w_ = DeviceBuffer<float>(rr);
    wlo_ = DeviceBuffer<float>(rr);
    vectors_ = DeviceBuffer<float>(4 * static_cast<std::size_t>(R_));
    counters_ = DeviceBuffer<long long>(4);
    extBlocks_ = DeviceBuffer<double>(1);
    std::vector<float> oldKurt(static_cast<std::size_t>(R_), 0.f);
    MODESCOPE_CUDA_TRY(cudaMemcpy(vectors_.get() + 3 * R_, oldKurt.data(), R_ * sizeof(float),
                                  cudaMemcpyHostToDevice));
    const long long zeros[4] = {0, 0, 0, 0};
    MODESCOPE_CUDA_TRY(cudaMemcpy(counters_.get(), zeros, sizeof zeros, cudaMemcpyHostToDevice));
    resetState(0);
  }

  bool pass(const std::vector<int32_t>& perm, double lrate,
            const std::vector<int32_t>& next) override {
    // This pass's permutation: staged by the previous pass (wait for its copy), else uploaded
    // now. Every copy and kernel of a pass is finished when it returns, so both buffers are free.
    int slot = 0;
    if (staged_ == perm.data() && stagedSize_ == perm.size()) {
      slot = stagedSlot_;
      MODESCOPE_CUDA_TRY(cudaStreamWaitEvent(stream_.get(), stagedCopy_.get(), 0));
    } else {
      upload(perm, slot, stream_.get());
    }
    InfomaxPassArgs a;
    a.data = data_.get();
    a.dataTf32 = dataTf32_;
    a.perm = perm_[slot].get();
    a.components = r_;
    a.n = setup_.samples;
    a.block = setup_.resolved.blockSize;
    a.blocks = setup_.samples / a.block;
    a.learningRate = static_cast<float>(lrate);
    a.extended = setup_.params.extended ? 1 : 0;
    a.useBias = setup_.params.bias ? 1 : 0;
    a.maxWeight = static_cast<float>(std::min(setup_.params.maxWeight, 3.0e38));
    const IcaExtendedParams& e = setup_.params.ext;
    a.kurtosisSamples = e.kurtosisSamples;
    a.momentum = static_cast<float>(e.kurtosisMomentum);
    a.signsBias = static_cast<float>(e.signsBias);
    a.signCountThreshold = e.signCountThreshold;
    a.signCountStep = static_cast<float>(e.signCountStep);
    a.centredKurtosis = e.centredKurtosis ? 1 : 0;
    a.seed = setup_.params.seed;
    a.kurtosisStream = kIcaKurtosisStream;
    a.math = toKernelMath(setup_.params.gpuMath);
    a.state.w = w_.get();
    a.state.wlo = wlo_.get();
    a.state.bias = vectors_.get();
    a.state.signs = vectors_.get() + R_;
    a.state.oldSigns = vectors_.get() + 2 * R_;
    a.state.oldKurtosis = vectors_.get() + 3 * R_;
    a.state.counters = counters_.get();
    a.state.extBlocks = extBlocks_.get();
    setup_.ctx->checkpoint();
    if (kernels_.warpgroup)
      launchInfomaxWgmmaPass(a, *kernels_.warpgroup, stream_.get());
    else if (kernels_.fast)
      launchInfomaxFastPass(a, *kernels_.fast, stream_.get());
    else if (kernels_.mmaCluster)
      launchInfomaxMmaClusterPass(a, *kernels_.mmaCluster, stream_.get());
    else
      launchInfomaxPass(a, kernels_.wmma, stream_.get());
    // The next permutation travels while the kernel runs (2.4 MB at 600,000 samples: a host copy
    // and an upload that otherwise sat between two kernels).
    staged_ = nullptr;
    if (next.size() == perm.size()) {
      upload(next, 1 - slot, copyStream_.get());
      stagedCopy_.record(copyStream_.get());
      staged_ = next.data();
      stagedSize_ = next.size();
      stagedSlot_ = 1 - slot;
    }
    long long counters[4];
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(counters, counters_.get(), sizeof counters,
                                       cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    copyStream_.synchronize();
    return counters[3] == 0;
  }

  void restart() override { resetState(1); }

  IcaMatrix weights() const override {
    const std::size_t rr = static_cast<std::size_t>(R_) * R_;
    std::vector<float> hi(rr), lo(rr);
    MODESCOPE_CUDA_TRY(cudaMemcpy(hi.data(), w_.get(), rr * sizeof(float), cudaMemcpyDeviceToHost));
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(lo.data(), wlo_.get(), rr * sizeof(float), cudaMemcpyDeviceToHost));
    IcaMatrix m(r_, r_);
    for (int i = 0; i < r_; ++i)
      for (int j = 0; j < r_; ++j) {
        const std::size_t k = static_cast<std::size_t>(i) * R_ + j;
        m(i, j) = static_cast<double>(hi[k]) - static_cast<double>(lo[k]);  // Kahan: w - c
      }
    return m;
  }
  int64_t kurtosisEstimates() const override {
    long long counters[4];
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(counters, counters_.get(), sizeof counters, cudaMemcpyDeviceToHost));
    return counters[1];
  }
  std::vector<double> bias() const override {
    std::vector<float> b(static_cast<std::size_t>(R_));
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(b.data(), vectors_.get(), R_ * sizeof(float), cudaMemcpyDeviceToHost));
    return std::vector<double>(b.begin(), b.begin() + r_);
  }
  std::vector<int> signs() const override {
    std::vector<int> out(static_cast<std::size_t>(r_), 1);
    if (!setup_.params.extended) return out;
    std::vector<float> s(static_cast<std::size_t>(R_));
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(s.data(), vectors_.get() + R_, R_ * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < r_; ++k) out[static_cast<std::size_t>(k)] = s[k] < 0 ? -1 : 1;
    return out;
  }

 private:
  // W = I, Wlo = 0, b = 0, the signs' start values, old signs 0, extBlocks from the parameters
  // and the block counter; the kurtosis history, the sign count and the estimate counter carry
  // over (IcaSignState::reset).
  void resetState(long long blockNo) {
    const std::size_t rr = static_cast<std::size_t>(R_) * R_;
    std::vector<float> w(rr, 0.f);
    for (int i = 0; i < r_; ++i) w[static_cast<std::size_t>(i) * R_ + i] = 1.f;
    MODESCOPE_CUDA_TRY(cudaMemcpy(w_.get(), w.data(), rr * sizeof(float), cudaMemcpyHostToDevice));
    MODESCOPE_CUDA_TRY(cudaMemset(wlo_.get(), 0, rr * sizeof(float)));
    IcaSignState st;
    st.reset(r_, setup_.params.ext);
    std::vector<float> v(3 * static_cast<std::size_t>(R_), 0.f);  // bias, signs, old signs
    for (int k = 0; k < R_; ++k)
      v[static_cast<std::size_t>(R_ + k)] =
          k < r_ && setup_.params.extended ? static_cast<float>(st.signs[k]) : 1.f;
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(vectors_.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(counters_.get(), &blockNo, sizeof blockNo, cudaMemcpyHostToDevice));
    const long long noBlowup = 0;
    MODESCOPE_CUDA_TRY(
        cudaMemcpy(counters_.get() + 3, &noBlowup, sizeof noBlowup, cudaMemcpyHostToDevice));
    const double ext = st.extBlocks;
    MODESCOPE_CUDA_TRY(cudaMemcpy(extBlocks_.get(), &ext, sizeof ext, cudaMemcpyHostToDevice));
  }

  InfomaxSetup setup_;
  int r_, R_;
  InfomaxKernelPlan kernels_;  // the pass kernel and its layout
  bool dataTf32_ = false;
  // `p` into permutation buffer `slot` (through its page-locked twin) on `stream`.
  void upload(const std::vector<int32_t>& p, int slot, cudaStream_t stream) {
    std::memcpy(permHost_[slot].get(), p.data(), p.size() * sizeof(int));
    MODESCOPE_CUDA_TRY(cudaMemcpyAsync(perm_[slot].get(), permHost_[slot].get(),
                                       p.size() * sizeof(int), cudaMemcpyHostToDevice, stream));
  }

  Stream stream_;
  Stream copyStream_;  // the next permutation's upload, beside the running pass
  Event stagedCopy_;
  DeviceBuffer<float> data_;
  DeviceBuffer<int> perm_[2];
  PinnedBuffer<int> permHost_[2];
  const int32_t* staged_ = nullptr;  // the data of the permutation in buffer stagedSlot_
  std::size_t stagedSize_ = 0;
  int stagedSlot_ = 0;
  DeviceBuffer<float> w_, wlo_, vectors_;
  DeviceBuffer<long long> counters_;
  DeviceBuffer<double> extBlocks_;
};

// The tensor-core cluster kernel's layout: slabs of 16 columns of W per CTA where that fits
// a cluster of 8 CTAs, else 32 (or the one the test hook asks for). False where the kernel does
// not take the problem.
bool planMmaCluster(int R, int blockSize, InfomaxMath math, int ccMajor, std::size_t shared,
                    InfomaxMmaClusterLayout& out) {
  for (int columns : {16, 32}) {
    if (icaClusterColumns() != 0 && columns != icaClusterColumns()) continue;
    if (planInfomaxMmaCluster(R, blockSize, math, ccMajor, shared, columns, out)) return true;
  }
  return false;
}

// The current device's compute capability major and opt-in shared memory per block.
std::pair<int, int> deviceLimits(cudaDeviceProp& props) {
  int device = 0;
  MODESCOPE_CUDA_TRY(cudaGetDevice(&device));
  MODESCOPE_CUDA_TRY(cudaGetDeviceProperties(&props, device));
  int optin = 0;
  MODESCOPE_CUDA_TRY(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return {props.major, optin};
}

bool planInfomaxKernels(int components, int blockSize, IcaGpuMath gpuMath,
                        const cudaDeviceProp& props, int optin, InfomaxKernelPlan& out) {
  InfomaxKernelPlan plan;
  if (!planInfomaxLayout(components, blockSize, static_cast<std::size_t>(optin), plan.wmma,
                         icaSlabRows()))
    return false;
  const int R = plan.wmma.R;
  const InfomaxMath math = toKernelMath(gpuMath);
  const auto shared = static_cast<std::size_t>(optin);
  if (icaSlabRows() == 0) {
    InfomaxWgmmaLayout warpgroup;
    InfomaxFastLayout fast;
    InfomaxMmaClusterLayout mmaCluster;
    if (!icaNoWarpgroupKernel() && icaClusterColumns() == 0 &&
        planInfomaxWgmma(R, blockSize, math, props.major, props.minor, shared, warpgroup))
      plan.warpgroup = warpgroup;
    else if (planInfomaxFast(R, blockSize, math, shared, fast))
      plan.fast = fast;
    else if (planMmaCluster(R, blockSize, math, props.major, shared, mmaCluster))
      plan.mmaCluster = mmaCluster;
  }
  out = plan;
  return true;
}

std::string InfomaxKernelPlan::describe() const {
  if (warpgroup)
    return warpgroup->rows > 64 ? "two-warpgroup (wgmma) kernel, one CTA"
                                : "warpgroup (wgmma) kernel, one CTA";
  if (fast) return "register-resident (mma.sync) kernel, one CTA";
  if (mmaCluster)
    return "tensor-core cluster of " + std::to_string(mmaCluster->Q) + " CTAs x " +
           std::to_string(mmaCluster->S) + " columns of W";
  return "WMMA cluster of " + std::to_string(wmma.Q) + " CTAs x " + std::to_string(wmma.S) +
         " rows of W";
}

}  // namespace

IcaResult runInfomaxGpu(const SignalBlock& block, const IcaParams& params, int threads,
                        JobContext& ctx) {
  cudaDeviceProp props{};
  const int optin = deviceLimits(props).second;
  if (props.major < 9)
    throw DeviceError(std::string("ICA on the GPU needs compute capability 9.0 (Hopper) or newer "
                                  "for its thread block clusters; ") +
                      props.name + " has " + std::to_string(props.major) + "." +
                      std::to_string(props.minor) + ". Use the CPU backend");
  // The block goes to the device once, for the moments; the sphered data are made from it when
  // the passes start, after which it is freed.
  std::unique_ptr<DeviceIcaBlock> raw;
  const InfomaxMoments moments = [&](const SignalBlock& b, std::vector<double>& mean,
                                     std::vector<double>& covariance) {
    raw = std::make_unique<DeviceIcaBlock>(b);
    raw->moments(mean, covariance);
  };
  const InfomaxPassFactory makePasses = [&](const InfomaxSetup& s) {
    InfomaxKernelPlan kernels;
    if (!planInfomaxKernels(s.components, s.resolved.blockSize, s.params.gpuMath, props, optin,
                            kernels))
      throw InvalidParameterError(
          "components", std::to_string(s.components),
          "at most 256 on the GPU (one cluster of 8 thread blocks holds the weights)",
          "set a PCA rank of 256 or less, or run ICA on the CPU backend");
    auto passes = std::make_unique<GpuInfomaxPasses>(s, *raw, kernels);
    raw.reset();
    return std::unique_ptr<InfomaxPasses>(std::move(passes));
  };
  return runInfomax(block, params, threads, ctx, makePasses, moments);
}

}  // namespace modescope::cuda

namespace modescope {

std::string icaGpuKernel(int components, int blockSize, IcaGpuMath math) {
  cudaDeviceProp props{};
  const int optin = cuda::deviceLimits(props).second;
  cuda::InfomaxKernelPlan kernels;
  if (props.major < 9 ||
      !cuda::planInfomaxKernels(components, blockSize, math, props, optin, kernels))
    return {};
  return kernels.describe();
}

IcaClusterShape icaClusterShape(int components, int blockSize, IcaGpuMath math) {
  cudaDeviceProp props{};
  const auto [major, optin] = cuda::deviceLimits(props);
  cuda::InfomaxLayout state;  // its R: the rows of W the device state holds
  cuda::InfomaxMmaClusterLayout L;
  if (!cuda::planInfomaxLayout(components, blockSize, static_cast<std::size_t>(optin), state, 0) ||
      !cuda::planMmaCluster(state.R, blockSize, cuda::toKernelMath(math), major,
                            static_cast<std::size_t>(optin), L))
    return {};
  return {L.S, L.Q};
}

}  // namespace modescope
