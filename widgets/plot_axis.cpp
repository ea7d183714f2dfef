#include "widgets/plot_axis.h"

#include <cmath>

namespace modescope {

std::vector<double> linearTicks(double lo, double hi, int targetCount) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double raw = (hi - lo) / std::max(targetCount, 1);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * decade;
    if (step >= raw) break;
  }
  // Index-based so that long ranges do not accumulate rounding in the tick values.
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first; k * step <= hi + step * 1e-9; k += 1.0) {
    const double v = k * step;
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::vector<double> logTicks(double lo, double hi) {
  if (!(lo > 0.0) || !(hi > lo)) return linearTicks(lo, hi, 5);
  std::vector<double> ticks;
  const double decades = std::log10(hi / lo);
  const bool fine = decades < 3.0;
  for (int e = static_cast<int>(std::floor(std::log10(lo)));
       e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    const double base = std::pow(10.0, e);
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !fine) continue;
      const double v = m * base;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
    }
  }
  if (ticks.size() < 2) return linearTicks(lo, hi, 4);
  return ticks;
}

double niceCeil(double value) {
  if (!(value > 0) || !std::isfinite(value)) return value;
  const double decade = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * decade >= value * (1 - 1e-12)) return m * decade;
  }
  return 10.0 * decade;
}

QString formatTick(double value) {
  if (value == 0.0) return QStringLiteral("0");
  const double a = std::fabs(value);
  if (a >= 1e5 || a < 1e-3) return QString::number(value, 'g', 2);
  return QString::number(value, 'g', a >= 1000 ? 5 : 3);
}

}  // namespace modescope
