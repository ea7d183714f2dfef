#include "widgets/time_format.h"

#include <cmath>

namespace modescope {

QString formatClock(double seconds) {
  const bool negative = seconds < 0;
  // Round to whole milliseconds first so 59.9996 shows as 1:00.000, not 0:59.1000.
  const long long ms = std::llround(std::fabs(seconds) * 1000.0);
  const long long h = ms / 3'600'000;
  const long long m = (ms / 60'000) % 60;
  const long long s = (ms / 1000) % 60;
  const long long frac = ms % 1000;
  return QStringLiteral("%1%2:%3:%4.%5")
      .arg(negative ? QStringLiteral("-") : QString())
      .arg(h)
      .arg(m, 2, 10, QLatin1Char('0'))
      .arg(s, 2, 10, QLatin1Char('0'))
      .arg(frac, 3, 10, QLatin1Char('0'));
}

QString formatDurationSeconds(double seconds) {
  if (seconds == 0.0) return QStringLiteral("-");
  return QString::number(seconds, 'f', 3) + QStringLiteral(" s");
}

QString formatHz(double hz) { return QString::number(hz, 'g', 10) + QStringLiteral(" Hz"); }

}  // namespace modescope
