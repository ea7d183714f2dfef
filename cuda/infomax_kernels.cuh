// The Infomax pass kernel (internal to cuda/): one launch runs a whole pass over the data, every
// block update of runica's loop, without returning to the host. The updates are sequential by
// nature (each block uses the weights the previous one produced), so the kernel is one thread
// block cluster of Q CTAs that keeps W in shared memory for the whole pass:
//
//   CTA q owns the row slab q*S .. q*S+S-1 of W (S x R, R = r rounded up to 16). Per block of B
//   samples, in column chunks of C samples:
//     gather X (R x C) through the permutation;  U_q = W_q X + b_q        (tensor cores)
//     Y'_q = -(K tanh(U_q) + U_q) (extended) or -tanh(U_q / 2) (logistic); bias sums
//     cluster barrier; copy every CTA's U slab into a local U (R x C) through distributed
//     shared memory;  G_q += Y'_q U^T                                        (tensor cores)
//   G_q += B I (real rows);  GW_q = sum_p G_q[:, slab p] W_p  (W_p read from CTA p)
//   cluster barrier; W_q += lr GW_q (Kahan-compensated in FP32); b_q += lr * bias sums;
//   max|W| over the cluster decides a blow-up; every extBlocks blocks a kurtosis estimate.
//
// Padded rows and columns (r < R, partial chunks) are kept at zero so they never contribute.
// Slabs of at least 16 rows, at most 8 CTAs (the portable cluster size), so r <= 256 on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace modescope::cuda {

enum class InfomaxMath : int { Tf32x3 = 0, Tf32 = 1, Fp32 = 2 };

// Shared-memory layout of one CTA (float offsets, each region 32-byte aligned for WMMA).
struct InfomaxLayout {
  int r = 0;             // components
  int R = 0;             // r rounded up to 16
  int S = 0;             // rows per CTA
  int Q = 0;             // CTAs in the cluster
  int C = 0;             // samples per column chunk (multiple of 16)
  int ldW = 0, ldC = 0;  // leading dimensions (padded against bank conflicts)
  int ldX = 0;           // data chunks are sample-major: C x ldX
  bool wholeW = false;   // clusters: copy every remote W slab at once (R <= 128)
  int offW = 0, offWlo = 0, offG = 0, offU0 = 0, offU1 = 0, offY = 0;
  int offX0 = 0, offX1 = 0;  // double-buffered data chunks (C x ldX): the next one loads
                             // asynchronously while the current one is computed
  int offB = 0;      // R x ldC or S x ldW: the gathered U (clusters), then GW; kurtosis chunks
  int offWq = 0;     // S x ldW, or R x ldW when wholeW: remote W slabs (clusters only)
  int offIdx3 = 0;   // 3 x C ints: permutation entries, fetched two chunks ahead
  int offVec = 0;    // 4 float vectors of S: bias, bias sums, signs, old signs; old kurtosis
  int offMom = 0;    // double moments: 4 x S
  int offIdx = 0;    // C ints: the kurtosis draws
  int offFlags = 0;  // 8 ints
  std::size_t bytes = 0;
};

// Picks S, Q and the largest C (<= block rounded up to 16) that fits `maxSharedBytes`.
// slabRows = S (rounded up to 16); <= 0: R / 8 rounded up to 16, at least 16.
// Returns false when more than 8 CTAs would be needed or not even C = 16 fits.
bool planInfomaxLayout(int r, int blockSize, std::size_t maxSharedBytes, InfomaxLayout& out,
                       int slabRows = 0);

// Device-resident state that lives across passes (row-major, leading dimension R).
struct InfomaxDeviceState {
  float* w = nullptr;             // R x R
  float* wlo = nullptr;           // R x R Kahan compensation (true W ~ w - wlo)
  float* bias = nullptr;          // R
  float* signs = nullptr;         // R
  float* oldSigns = nullptr;      // R
  float* oldKurtosis = nullptr;   // R
  long long* counters = nullptr;  // [0] block number, [1] estimates, [2] sign count, [3] blow-up
  double* extBlocks = nullptr;    // 1
};

struct InfomaxPassArgs {
  const float* data = nullptr;  // n x R, sample-major, padded rows zero
  bool dataTf32 = false;        // the data are already rounded to TF32 (plain TF32 only)
  const int* perm = nullptr;    // n
  int components = 0;           // r (rows of W that are real; the rest is zero padding)
  long long n = 0;
  int block = 0;
  long long blocks = 0;
  float learningRate = 0;
  int extended = 1, useBias = 1;
  float maxWeight = 1e8f;
  // extended mode
  int kurtosisSamples = 6000;
  float momentum = 0.5f, signsBias = 0.02f;
  int signCountThreshold = 25;
  float signCountStep = 2.0f;
  int centredKurtosis = 0;
  unsigned long long seed = 1;
  unsigned long long kurtosisStream = 1;
  InfomaxMath math = InfomaxMath::Tf32x3;
  InfomaxDeviceState state;
};

// The kernels that read plain TF32 operands straight from the data need them rounded on upload
// (args.dataTf32) exactly when the math is plain TF32; throws std::logic_error naming `launcher`
// otherwise (a driver bug).
void requireTf32DataExactlyForTf32(const InfomaxPassArgs& args, const char* launcher);

// ---- The register-resident kernel for up to 64 components (infomax_fast_kernel.cu) ----------
// The cluster kernel above spends ~13 us per block update at 64 components: its products go
// through shared memory (WMMA loads and stores) with barriers around each, and its CTAs wait
// for each other across the cluster. For R <= 64 one CTA holds everything: W's rows sit in
// registers as tensor-core fragments, U and Y' go from the accumulators straight to the next
// product's operands, and a block update needs three CTA barriers. The CTA has 4 x (R / 16)
// warps; blocks of up to 96 samples (runica's default block is 5 ln N: 66 for 30 minutes at
// 256 Hz); TF32 and 3xTF32 math (FP32 products use the cluster kernel).
struct InfomaxFastLayout {
  int R = 0;   // rows of W, a multiple of 16, at most 64
  int NT = 0;  // 8-sample tiles of a block (block rounded up to 8, over 8)
  int warps = 0;
  int ldX = 0, ldU = 0, ldG = 0, ldP = 0;
  int offX0 = 0, offX1 = 0, offU = 0, offY = 0, offG = 0;
  int offP0 = 0, offP1 = 0, offPT0 = 0, offPT1 = 0;
  int offVec = 0, offMom = 0, offIdx3 = 0, offIdxK = 0, offFlags = 0;
  std::size_t bytes = 0;
};

// Whether the fast kernel takes this problem (R <= 64, blocks of at most 96 samples, the shared
// memory fits, not FP32 math), and its layout.
bool planInfomaxFast(int R, int blockSize, InfomaxMath math, std::size_t maxSharedBytes,
                     InfomaxFastLayout& out);

// Launches one pass of the fast kernel (one CTA) on `stream`. Plain TF32 needs the data rounded
// to TF32 on upload (args.dataTf32), 3xTF32 the FP32 data. Throws DeviceError.
void launchInfomaxFastPass(const InfomaxPassArgs& args, const InfomaxFastLayout& layout,
                           cudaStream_t stream);

// ---- The Hopper warpgroup kernels for up to 128 components in TF32 -------------------------
// The register-resident kernel above still spends ~4.6 us per block update: its 16 warps issue
// ~1,000 instructions each (mma.sync fragments loaded from shared memory by 4 warps each), and
// the target (64 channels x 30 min in 5 s) needs ~2 us. On compute capability 9.0 one warpgroup
// does the three products with wgmma: each product is a handful of instructions, B comes from
// shared memory once per warpgroup, and every product's accumulators are the next product's A
// fragments in registers, so only U and W^T are stored per update (one CTA barrier)
// (infomax_wgmma_kernel.cu). From 65 to 128 components two warpgroups of one CTA hold 64 rows of
// W each and compute the update reassociated, W += lr (B W + Y' (U^T W)), as the tensor-core
// cluster kernel does, but with no cluster: the tensor-core cluster kernel spends ~5.4 us per
// update at 128 components, mostly in the latency of its exchanges between CTAs
// (infomax_wgmma128_kernel.cu). Plain TF32 only (3xTF32 and FP32 keep the kernels above),
// blocks of 25 to 96 samples (25 to 72 from 65 components: the shared memory holds no more);
// the data rows are 64 or 128 floats with each 8 channels in the order 0 2 4 6 1 3 5 7 (the
// kernel files say why).
struct InfomaxWgmmaLayout {
  int R = 0;     // rows of W in the device state (the kernel pads to `rows` internally)
  int rows = 0;  // 64 or 128: W's padded rows, and the floats per data row
  int NT = 0;    // 8-sample tiles of a block
  int offX = 0, offU = 0, offWT = 0, offVt = 0, offBars = 0, offIdxK = 0, offFlags = 0;  // bytes
  std::size_t bytes = 0;
};

// Whether a warpgroup kernel takes this problem (TF32, R <= 128, compute capability exactly
// 9.0: sm_90a code runs nowhere else; the block sizes above; the shared memory fits).
bool planInfomaxWgmma(int R, int blockSize, InfomaxMath math, int ccMajor, int ccMinor,
                      std::size_t maxSharedBytes, InfomaxWgmmaLayout& out);
// The two-warpgroup kernel's part of that (64 < R <= 128; infomax_wgmma128_kernel.cu).
bool planInfomaxWgmma128(int R, int blockSize, std::size_t maxSharedBytes, InfomaxWgmmaLayout& out);

// The position of channel c in a data row of the warpgroup kernels.
constexpr int wgmmaChannelSlot(int c) { return (c & ~7) | ((c & 1) << 2) | ((c & 7) >> 1); }

// Launches one pass of the warpgroup kernel the layout names (one CTA: one or two computing
// warpgroups and a producer warp) on `stream`. The data must be rounded to TF32 (args.dataTf32)
// and laid out as above. Throws DeviceError.
void launchInfomaxWgmmaPass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& layout,
                            cudaStream_t stream);
void launchInfomaxWgmma128Pass(const InfomaxPassArgs& args, const InfomaxWgmmaLayout& layout,
                               cudaStream_t stream);

// ---- The tensor-core cluster kernel for 65 to 256 components (infomax_mma_cluster_kernel.cu) --
// The cluster kernel below spends ~116 us per block update at 256 x 67 (H100): its WMMA products
// go through shared memory with barriers around each, and every CTA reads every other CTA's W
// slab remotely for the R^3 product G W. This one computes W += lr (B W + Y' (U^T W)) (no R^3
// product), keeps W's columns in mma.sync accumulator registers spread over a cluster of
// RK / S CTAs (RK = R rounded up to 64; S = 16 or 32 columns of W per CTA, each CTA RK / 16
// warps), and exchanges only the partial activations and U through distributed shared memory:
// two cluster barriers and one CTA barrier per update. 65-128 components run on 8 CTAs of 16
// columns (4 % faster per pass than 4 CTAs of 32 on an H200), 129-256 on 6 or 8 CTAs of 32
// (16 columns would need 12 or 16 CTAs, more than the portable cluster size of 8).
// TF32 and 3xTF32 (FP32 keeps the kernel below), blocks up to 96 samples where the shared memory
// fits (256 components: blocks up to 80).
struct InfomaxMmaClusterLayout {
  int R = 0;    // rows of W in the device state and of the data (components rounded up to 16)
  int RK = 0;   // rows the kernel computes: R rounded up to 64
  int S = 0;    // columns of W per CTA: 16 or 32
  int Q = 0;    // CTAs of the cluster: RK / S
  int NT = 0;   // 8-sample tiles of a block
  int ldS = 0;  // floats per row of the partial-activation slots
  int offX = 0, offSlots = 0, offU = 0, offW = 0, offV = 0;  // floats
  int offVec = 0, offMom = 0, offIdx3 = 0, offIdxK = 0, offFlags = 0;
  std::size_t bytes = 0;
};

// Whether the tensor-core cluster kernel takes this problem with slabs of `columns` (16 or 32)
// columns of W per CTA (TF32 or 3xTF32, 64 < R <= 256, compute capability 9.0 or newer, blocks
// up to 96 samples, the shared memory fits), and its layout.
bool planInfomaxMmaCluster(int R, int blockSize, InfomaxMath math, int ccMajor,
                           std::size_t maxSharedBytes, int columns, InfomaxMmaClusterLayout& out);

// Launches one pass of it (one cluster) on `stream`. The data are rows of R floats, rounded to
// TF32 on upload for plain TF32 (args.dataTf32). Throws DeviceError.
void launchInfomaxMmaClusterPass(const InfomaxPassArgs& args, const InfomaxMmaClusterLayout& layout,
                                 cudaStream_t stream);

// The test hooks (cuda_backend.h CudaTestHooks): the slab rows (0 = unset), whether the
// warpgroup kernel is held back, and the tensor-core cluster kernel's columns per CTA (0 = unset).
int icaSlabRows();
bool icaNoWarpgroupKernel();
int icaClusterColumns();

// Launches the pass kernel (one cluster) on `stream`. Throws DeviceError on a launch failure.
void launchInfomaxPass(const InfomaxPassArgs& args, const InfomaxLayout& layout,
                       cudaStream_t stream);

}  // namespace modescope::cuda
