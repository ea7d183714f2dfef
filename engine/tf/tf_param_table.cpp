// The time-frequency parameters, declared once (engine/method/param_table.h). Defaults suit EEG at
// 256-512 Hz (a 256-tap Gaussian, FFT 512, one column per sample, EVSS1); docs/time-frequency.md
// gives the operators and their sources. `rows` is the channel selection, not a parameter.
#include <cmath>
#include <string>

#include "engine/method/param_table.h"
#include "engine/tf/tf_operators.h"
#include "engine/tf/tf_params.h"

namespace modescope {
namespace {

using Field = ParamField<TfParams>;

bool isGaussian(const TfParams& p) { return p.window == TfWindow::Gaussian; }
bool squeezes(const TfParams& p) { return p.order != TfOrder::Spectrogram; }

const ChoiceNames<TfOrder>& orderNames() {
  static const ChoiceNames<TfOrder> names{{TfOrder::Spectrogram, "0"},     {TfOrder::First, "1"},
                                          {TfOrder::Second, "2"},          {TfOrder::Third, "3"},
                                          {TfOrder::ThirdCanonical, "3c"}, {TfOrder::Fourth, "4"}};
  return names;
}

const ChoiceNames<TfWindow>& windowNames() {
  static const ChoiceNames<TfWindow> names{
      {TfWindow::Gaussian, "gaussian"}, {TfWindow::Hann, "hann"}, {TfWindow::Hamming, "hamming"}};
  return names;
}

std::vector<Field> makeFields() {
  std::vector<Field> f;
  f.push_back(bindChoice<TfParams>(
      choiceParam(
          "order", "order", "Order",
          {{"0",
            "0: spectrogram",
            "the STFT itself, |F|^2 the spectrogram",
            {"spectrogram", "stft"}},
           {"1", "1: first-order VSS", "omega - Im(F^Dh / F^h): biased on chirps", {"vss1"}},
           {"2",
            "2: second-order VSS",
            "the 2x2 local-polynomial system: exact on linear chirps",
            {"vss2"}},
           {"3",
            "3: EVSS1",
            "the 3x3 system (Gambrych and Abratkiewicz): exact on cubic phase",
            {"evss1", "vss3"}},
           {"3c",
            "3c: CVSS3",
            "IF + chirp rate x delay + jerk x delay^2 (the seed's canonical form)",
            {"cvss3"}},
           {"4", "4: fourth-order VSS", "the 4x4 system (Pham and Meignen 2017)", {"vss4"}}})
          .because("the local phase model the bins are squeezed with (order 0: no squeezing)"),
      &TfParams::order, orderNames()));
  f.push_back(bindChoice<TfParams>(
      choiceParam("window", "window", "Window",
                  {{"gaussian", "Gaussian", "analytic derivatives; every order", {"gauss"}},
                   {"hann", "Hann", "the plain spectrogram (order 0) only", {"hanning"}},
                   {"hamming", "Hamming", "the plain spectrogram (order 0) only", {}}})
          .because("the STFT window; squeezing needs the Gaussian's analytic derivatives"),
      &TfParams::window, windowNames()));
  f.push_back(bindField<TfParams>(
      integerParam("windowLength", "window-length", "Window length")
          .in("samples")
          .atLeast(kTfMinWindow)
          .atMost(kTfMaxFft)
          .because("taps of the window, centred on the column's sample (EEG: 0.5-2 s; the seed's "
                   "radar grid: 32-96)"),
      &TfParams::windowLength));
  f.push_back(bindField<TfParams>(
      realParam("sigma", "sigma", "Gaussian sigma")
          .in("samples")
          .above(0)
          .atMost(kTfMaxFft)
          .orSpecial(0, "automatic")
          .shown(2, 1)
          .because("the Gaussian's standard deviation; automatic = window length / 10, so the "
                   "window spans +-5 sigma")
          .onlyFor("the Gaussian window"),
      &TfParams::sigma, isGaussian));
  f.push_back(bindField<TfParams>(
      integerParam("fftLength", "fft", "FFT length")
          .in("bins")
          .atLeast(kTfMinFft)
          .atMost(kTfMaxFft)
          .because("N: the bins are m fs / N for m = 0..N/2; at least the window length"),
      &TfParams::fftLength));
  f.push_back(bindField<TfParams>(
      integerParam("hop", "hop", "Hop")
          .in("samples")
          .atLeast(1)
          .atMost(kTfMaxHop)
          .because("samples between columns (the seed: 1, one column per sample; reconstruction "
                   "of the whole signal needs 1)"),
      &TfParams::hop));
  f.push_back(bindField<TfParams>(
      realParam("threshold", "threshold", "Amplitude threshold")
          .in("x RMS x sum(h)")
          .atLeast(0)
          .atMost(1)
          .shown(5, 0.0001)
          .because("bins with |F^h| below it stay in place instead of being relocated (near-zero "
                   "F^h gives arbitrary frequencies; the seed has none)")
          .onlyFor("orders 1-4"),
      &TfParams::threshold, squeezes));
  f.push_back(bindField<TfParams>(
      realParam("minFrequency", "fmin", "Lowest frequency")
          .in("Hz")
          .atLeast(0)
          .shown(2, 1)
          .because("the lowest frequency in the image; energy squeezed below it is discarded"),
      &TfParams::minFrequency));
  f.push_back(bindField<TfParams>(
      realParam("maxFrequency", "fmax", "Highest frequency")
          .in("Hz")
          .above(0)
          .orSpecial(0, "Nyquist")
          .shown(2, 1)
          .because("the highest frequency in the image, at most half the sampling rate; energy "
                   "squeezed above it is discarded"),
      &TfParams::maxFrequency));
  return f;
}

void crossCheck(const TfParams& p) {
  if (p.fftLength < p.windowLength)
    throw InvalidParameterError("fftLength", std::to_string(p.fftLength) + " bins",
                                "at least the window length, " + std::to_string(p.windowLength),
                                "raise the FFT length or shorten the window");
  if (p.order != TfOrder::Spectrogram && p.window != TfWindow::Gaussian)
    throw InvalidParameterError(
        "window", tfWindowName(p.window),
        std::string("the Gaussian window for order ") + tfOrderName(p.order),
        "use --window gaussian, or order 0 (the plain spectrogram) for a Hann or Hamming window");
  if (p.maxFrequency > 0 && p.minFrequency >= p.maxFrequency)
    throw InvalidParameterError(
        "minFrequency", std::to_string(p.minFrequency) + " Hz",
        "below the highest frequency, " + std::to_string(p.maxFrequency) + " Hz",
        "lower --fmin or raise --fmax");
}

}  // namespace

const ParamTable<TfParams>& tfParamTable() {
  static const ParamTable<TfParams> table(makeFields(), crossCheck);
  return table;
}

const char* tfOrderName(TfOrder o) {
  for (const auto& [value, name] : orderNames())
    if (value == o) return name.c_str();
  return "?";
}

const char* tfWindowName(TfWindow w) {
  for (const auto& [value, name] : windowNames())
    if (value == w) return name.c_str();
  return "?";
}

TfOrder parseTfOrder(const std::string& text) {
  const auto& f = *tfParamTable().find("order");
  TfParams p;
  f.set(p, parseValue(f.decl, text, "order"));
  return p.order;
}

TfWindow parseTfWindow(const std::string& text) {
  const auto& f = *tfParamTable().find("window");
  TfParams p;
  f.set(p, parseValue(f.decl, text, "window"));
  return p.window;
}

void validateTfParams(const TfParams& p) { tfParamTable().validate(p); }

// TfOrder's values are tf::OrderCode's (the plan hands the kernels static_cast<int>(order)), so
// the order rules are tf_operators.h's, written once for the host and the kernels.
static_assert(static_cast<int>(TfOrder::Spectrogram) == tf::kSpectrogram &&
                  static_cast<int>(TfOrder::First) == tf::kFirst &&
                  static_cast<int>(TfOrder::Second) == tf::kSecond &&
                  static_cast<int>(TfOrder::Third) == tf::kThird &&
                  static_cast<int>(TfOrder::ThirdCanonical) == tf::kThirdCanonical &&
                  static_cast<int>(TfOrder::Fourth) == tf::kFourth,
              "TfOrder and tf::OrderCode list the orders alike");

int tfModelOrder(TfOrder o) { return tf::modelOrder(static_cast<int>(o)); }

int tfStftCount(TfOrder o) { return tf::stftCount(static_cast<int>(o)); }

double tfSigma(const TfParams& p) { return p.sigma > 0 ? p.sigma : p.windowLength / 10.0; }

}  // namespace modescope
