// Infomax ICA's parameters, declared once (engine/method/param_table.h). Defaults and ranges are
// runica.m's (EEGLAB 2024) and MNE 1.3 infomax()'s; docs/ica.md tabulates both.
#include <string>

#include "engine/ica/ica_params.h"
#include "engine/method/param_table.h"

namespace modescope {
namespace {

using Field = ParamField<IcaParams>;

bool isExtended(const IcaParams& p) { return p.extended; }

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindField<IcaParams>(
      flagParam("extended", "extended", "Extended Infomax")
          .because("Lee, Girolami and Sejnowski 1999: tanh with kurtosis signs, so "
                   "sub-Gaussian sources (line noise) separate too (runica 'extended')"),
      &IcaParams::extended));
  f.push_back(bindChoice<IcaParams>(
      choiceParam("rules", "rules", "Automatic values",
                  {{"runica",
                    "runica",
                    "EEGLAB runica.m: lrate 0.00065/ln(channels), block "
                    "ceil(min(5 ln N, 0.3 N)), stop 1e-6",
                    {"eeglab"}},
                   {"mne",
                    "MNE",
                    "MNE 1.3 infomax(): lrate 0.01/ln(components^2), block "
                    "floor(sqrt(N/3)), stop 1e-12",
                    {}}})
          .because("whose rules fill the fields left at automatic"),
      &IcaParams::rules,
      ChoiceNames<IcaRules>{{IcaRules::Runica, "runica"}, {IcaRules::Mne, "mne"}}));
  f.push_back(bindField<IcaParams>(
      realParam("learningRate", "lrate", "Learning rate")
          .above(0)
          .atMost(0.1)
          .orSpecial(0, "automatic")
          .shown(6, 0.0001)
          .because("initial rate of the natural-gradient steps; 0.1 is runica's MAX_LRATE"),
      &IcaParams::learningRate));
  f.push_back(bindField<IcaParams>(integerParam("blockSize", "block", "Block size")
                                       .in("samples")
                                       .atLeast(1)
                                       .atMost(100000000)
                                       .orSpecial(0, "automatic")
                                       .because("samples per weight update (runica block)"),
                                   &IcaParams::blockSize));
  f.push_back(bindField<IcaParams>(
      realParam("annealDegrees", "anneal-deg", "Anneal angle")
          .storedAs("anneal_deg")
          .in("deg")
          .above(0)
          .atMost(180)
          .shown(1, 5)
          .because("anneal when the angle between successive weight changes exceeds this "
                   "(runica annealdeg 60)"),
      &IcaParams::annealDegrees));
  f.push_back(bindField<IcaParams>(
      realParam("annealFactor", "anneal-step", "Anneal factor")
          .above(0)
          .atMost(1)
          .orSpecial(0, "automatic")
          .shown(3, 0.01)
          .because("learning rate x this on annealing (runica annealstep 0.98 extended, 0.90 "
                   "logistic)"),
      &IcaParams::annealFactor));
  f.push_back(bindField<IcaParams>(
      realParam("stopTolerance", "stop", "Stop tolerance")
          .above(0)
          .atMost(1)
          .orSpecial(0, "automatic")
          .shown(12, 1e-7)
          .because("stop when the squared weight change falls below this (runica 1e-6, 1e-7 "
                   "above 32 components)"),
      &IcaParams::stopTolerance));
  f.push_back(bindField<IcaParams>(integerParam("maxSteps", "max-steps", "Max steps")
                                       .in("steps")
                                       .atLeast(1)
                                       .atMost(1000000)
                                       .because("passes over the data (runica maxsteps 512)"),
                                   &IcaParams::maxSteps));
  f.push_back(bindField<IcaParams>(
      integerParam("pcaRank", "rank", "Components")
          .atLeast(1)
          .atMost(100000)
          .orSpecial(0, "automatic")
          .because("PCA reduction to this many components; automatic: the data's detected rank"),
      &IcaParams::pcaRank));
  f.push_back(bindField<IcaParams>(
      realParam("rankTolerance", "rank-tolerance", "Rank tolerance")
          .above(0)
          .below(1)
          .shown(12, 1e-10)
          .because("covariance eigenvalues above this fraction of the largest count toward the "
                   "rank (1e-10 separates float32 noise from real EEG components)"),
      &IcaParams::rankTolerance));
  f.push_back(bindChoice<IcaParams>(
      choiceParam("sphering", "sphering", "Sphering",
                  {{"runica", "runica (2 inv(sqrtm(cov)))", "symmetric, as runica", {}},
                   {"pca-unit", "PCA to unit variance", "D^-1/2 E^T, as MNE's ICA", {"pca"}}})
          .because("how the data are whitened before the Infomax steps"),
      &IcaParams::sphering,
      ChoiceNames<IcaSphering>{{IcaSphering::Runica, "runica"},
                               {IcaSphering::PcaUnit, "pca-unit"}}));
  f.push_back(
      bindField<IcaParams>(flagParam("bias", "bias", "Bias term")
                               .because("the bias u = W x + b of both rules (runica 'bias' on)"),
                           &IcaParams::bias));
  f.push_back(bindChoice<IcaParams>(
      choiceParam(
          "gpuMath", "gpu-math", "GPU arithmetic",
          {{"tf32x3", "3xTF32 (FP32 accuracy)", "split products that keep FP32 accuracy", {}},
           {"tf32", "TF32 (tensor cores)", "fastest; the same separation in every test", {}},
           {"fp32", "FP32 (CUDA cores)", "fused multiply-adds, no tensor cores", {}}})
          .because("arithmetic of the GPU's matrix products (the CPU computes in double)"),
      &IcaParams::gpuMath,
      ChoiceNames<IcaGpuMath>{
          {IcaGpuMath::Tf32, "tf32"}, {IcaGpuMath::Tf32x3, "tf32x3"}, {IcaGpuMath::Fp32, "fp32"}}));
  f.push_back(bindField<IcaParams>(
      seedParam("seed", "seed", "Seed")
          .because("Philox key of the per-step sample permutations and kurtosis draws: a run "
                   "repeats exactly"),
      &IcaParams::seed));
  const std::string ext = "extended Infomax";
  f.push_back(bindField<IcaParams>(
      integerParam("ext.extBlocks", "ext-blocks", "Kurtosis every")
          .storedAs("ext_blocks")
          .in("blocks")
          .atLeast(-1000000)
          .atMost(1000000)
          .because("estimate the kurtosis every this many blocks; <= 0 keeps the signs fixed "
                   "(runica 'extended', N)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::extBlocks, isExtended));
  f.push_back(bindField<IcaParams>(
      integerParam("ext.subGaussian", "sub-gaussian", "Sub-Gaussian at start")
          .in("components")
          .atLeast(0)
          .atMost(100000)
          .because("components that start with the sub-Gaussian sign (runica nsub 1)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::subGaussian, isExtended));
  f.push_back(bindField<IcaParams>(
      integerParam("ext.kurtosisSamples", "kurtosis-samples", "Kurtosis samples")
          .in("samples")
          .atLeast(2)
          .atMost(100000000)
          .because("samples drawn for each kurtosis estimate (runica kurtsize 6000)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::kurtosisSamples, isExtended));
  f.push_back(bindField<IcaParams>(
      realParam("ext.kurtosisMomentum", "kurtosis-momentum", "Kurtosis momentum")
          .atLeast(0)
          .below(1)
          .shown(3, 0.05)
          .because("weight of the previous kurtosis estimate (runica extmomentum 0.5)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::kurtosisMomentum, isExtended));
  f.push_back(bindField<IcaParams>(
      realParam("ext.signsBias", "signs-bias", "Signs bias")
          .atLeast(-1000)
          .atMost(1000)
          .shown(3, 0.01)
          .because("signs = sign(kurtosis + bias): ties go super-Gaussian (runica 0.02)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::signsBias, isExtended));
  f.push_back(bindField<IcaParams>(
      integerParam("ext.signCountThreshold", "sign-count", "Sign count threshold")
          .atLeast(1)
          .atMost(1000000)
          .because("after this many unchanged sign vectors the estimates thin out (runica "
                   "signcount 25)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::signCountThreshold, isExtended));
  f.push_back(
      bindField<IcaParams>(realParam("ext.signCountStep", "sign-count-step", "Sign count step")
                               .atLeast(1)
                               .atMost(1000)
                               .shown(2, 0.5)
                               .because("kurtosis interval x this once the signs settle (runica 2)")
                               .onlyFor(ext),
                           &IcaParams::ext, &IcaExtendedParams::signCountStep, isExtended));
  f.push_back(bindField<IcaParams>(
      flagParam("ext.centredKurtosis", "centred-kurtosis", "Centred kurtosis")
          .because("centre the activations before the kurtosis (MNE, scipy) instead of raw "
                   "moments (runica)")
          .onlyFor(ext),
      &IcaParams::ext, &IcaExtendedParams::centredKurtosis, isExtended));
  f.push_back(bindField<IcaParams>(
      realParam("maxWeight", "max-weight", "Max weight")
          .above(0)
          .atMost(1e20)
          .because("restart from the start weights when any |W| exceeds this (runica "
                   "MAX_WEIGHT 1e8)"),
      &IcaParams::maxWeight));
  f.push_back(bindField<IcaParams>(
      realParam("restartFactor", "restart-factor", "Restart factor")
          .above(0)
          .below(1)
          .because("learning rate x this on a restart (runica DEFAULT_RESTART_FAC 0.9)"),
      &IcaParams::restartFactor));
  f.push_back(bindField<IcaParams>(
      realParam("blowupChange", "blowup", "Blow-up change")
          .above(0)
          .atMost(1e20)
          .because("a weight change above this lowers the learning rate (runica 1e9)"),
      &IcaParams::blowupChange));
  f.push_back(bindField<IcaParams>(
      realParam("blowupFactor", "blowup-factor", "Blow-up factor")
          .above(0)
          .atMost(1)
          .because("learning rate x this after a blow-up (runica DEFAULT_BLOWUP_FAC 0.8)"),
      &IcaParams::blowupFactor));
  f.push_back(
      bindField<IcaParams>(realParam("minLearningRate", "min-lrate", "Min learning rate")
                               .above(0)
                               .atMost(0.1)
                               .shown(12, 1e-7)
                               .because("restarts below this give up (runica MIN_LRATE 1e-6)"),
                           &IcaParams::minLearningRate));
  f.push_back(bindField<IcaParams>(
      integerParam("maxSmallAngleSteps", "small-angle-steps", "Small-angle stop")
          .in("steps")
          .atLeast(1)
          .atMost(1000000)
          .orSpecial(0, "off")
          .because("MNE only: stop after this many consecutive steps below the anneal angle "
                   "(n_small_angle 20)"),
      &IcaParams::maxSmallAngleSteps));
  return f;
}

}  // namespace

const ParamTable<IcaParams>& icaParamTable() {
  static const ParamTable<IcaParams> table(makeFields());
  return table;
}

}  // namespace modescope
