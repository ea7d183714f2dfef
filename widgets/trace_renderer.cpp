#include "widgets/trace_renderer.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QPaintEngine>
#include <QPainter>
#include <QPointF>
#include <QVarLengthArray>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "widgets/annotation_colours.h"

namespace modescope::browser {

namespace {

const QColor kBackground{0xff, 0xff, 0xff};
const QColor kLabelBackground{0xf2, 0xf3, 0xf5};
const QColor kSelectedLabel{0xcf, 0xe0, 0xfb};
const QColor kSelectedRow{0xee, 0xf4, 0xff};
const QColor kMinorGrid{0xec, 0xec, 0xec};
const QColor kMajorGrid{0xc8, 0xc8, 0xc8};
const QColor kAxisText{0x30, 0x30, 0x30};
const QColor kSpanFill{0xff, 0xb0, 0x50, 0x26};
const QColor kUserSpanFill{0x40, 0xc0, 0xb0, 0x26};

QString secondsText(double t, double step) {
  // Enough decimals to tell neighbouring ticks apart.
  const int decimals = step >= 1.0 ? 0 : step >= 0.1 ? 1 : 2;
  if (t >= 3600.0 && step >= 1.0) {
    const auto s = static_cast<long long>(std::llround(t));
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  }
  return QString::number(t, 'f', decimals) + QStringLiteral(" s");
}

void paintGridAndAxis(QPainter& p, const BrowserLayout& l, const PageScene& s) {
  const double pxPerSecond = l.traces.width() / s.length;
  const QFontMetricsF fm(p.font());
  // Labels are at most "00:00:00" wide, or "00:00:00.000" when the step is below a second.
  double step = chooseTimeStep(pxPerSecond, fm.horizontalAdvance(QStringLiteral("00:00:00")) + 16);
  if (step < 1.0 && s.clockStart.isValid()) {
    step = chooseTimeStep(pxPerSecond, fm.horizontalAdvance(QStringLiteral("00:00:00.000")) + 16);
  }
  // Minor grid every second when seconds are at least 5 px apart, else only the labelled ticks.
  const double minor = pxPerSecond >= 5.0 && step > 1.0 ? 1.0 : step;

  QVector<QLineF> minorLines, majorLines;
  const double t0 = s.start, t1 = s.start + s.length;
  // Integer tick counts, so 0.1 s steps do not accumulate rounding over a long page.
  const auto k0 = static_cast<long long>(std::ceil(t0 / minor - 1e-9));
  for (long long k = k0;; ++k) {
    const double t = static_cast<double>(k) * minor;
    if (t > t1 + 1e-9) break;
    const double x = l.traces.left() + (t - t0) * pxPerSecond;
    const double ratio = t / step;
    const bool major = std::abs(ratio - std::round(ratio)) < 1e-6;
    (major ? majorLines : minorLines).append(QLineF(x, l.traces.top(), x, l.traces.bottom()));
  }
  p.setPen(QPen(kMinorGrid, 0));
  p.drawLines(minorLines);
  p.setPen(QPen(kMajorGrid, 0));
  p.drawLines(majorLines);

  // Tick labels: seconds from the start, and the clock time when the start is known.
  p.setPen(kAxisText);
  p.drawLine(QLineF(l.traces.left(), l.axis.top(), l.traces.right(), l.axis.top()));
  const double lineH = fm.height();
  double freeFrom = -1e300;  // labels never overlap: one that would is skipped
  for (const QLineF& line : majorLines) {
    const double x = line.x1();
    const double t = t0 + (x - l.traces.left()) / pxPerSecond;
    p.drawLine(QLineF(x, l.axis.top(), x, l.axis.top() + 4));
    const QString sec = secondsText(std::max(0.0, t), step);
    QString clock;
    if (s.clockStart.isValid()) {
      const QDateTime at = s.clockStart.addMSecs(static_cast<qint64>(std::llround(t * 1000.0)));
      clock =
          at.toString(step >= 1.0 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm:ss.zzz"));
    }
    // Left-aligned just right of the tick: the step guarantees room for one label per tick;
    // one that would run past the right edge is left out.
    const double w = std::max(fm.horizontalAdvance(sec), fm.horizontalAdvance(clock));
    const double tx = x + 3;
    if (tx < freeFrom || tx + w > l.axis.right()) continue;
    freeFrom = tx + w + 8;
    p.drawText(QPointF(tx, l.axis.top() + 4 + fm.ascent()), sec);
    if (!clock.isEmpty()) p.drawText(QPointF(tx, l.axis.top() + 4 + lineH + fm.ascent()), clock);
  }
}

void paintAnnotations(QPainter& p, const BrowserLayout& l, const PageScene& s) {
  if (s.annotations.empty()) return;
  const double pxPerSecond = l.traces.width() / s.length;
  const double t0 = s.start, t1 = s.start + s.length;
  auto xOf = [&](double t) { return l.traces.left() + (t - t0) * pxPerSecond; };

  // Spans first (under the markers), clipped to the page.
  for (const IndexedAnnotation& ia : s.annotations) {
    const Annotation& a = *ia.annotation;
    if (a.duration <= 0) continue;
    const double x0 = xOf(std::max(a.onset, t0)), x1 = xOf(std::min(a.onset + a.duration, t1));
    if (x1 - x0 >= 1.0) {
      p.fillRect(QRectF(x0, l.traces.top(), x1 - x0, l.traces.height()),
                 ia.user ? kUserSpanFill : kSpanFill);
    }
  }
  // Markers in their event type's colour (widgets/annotation_colours.h): one line per pixel
  // column at most per kind (file, user), in the colour of the first annotation there, then one
  // drawLines per colour.
  std::map<QRgb, QVector<QLineF>> lines;
  int lastFileX = INT32_MIN, lastUserX = INT32_MIN;
  for (const IndexedAnnotation& ia : s.annotations) {
    const double t = ia.annotation->onset;
    if (t < t0 || t > t1) continue;
    const double x = xOf(t);
    const int ix = static_cast<int>(std::floor(x));
    int& last = ia.user ? lastUserX : lastFileX;
    if (ix == last) continue;
    last = ix;
    lines[annotationColour(ia.annotation->text).rgb()].append(
        QLineF(x, l.annotationBand.top(), x, l.traces.bottom()));
  }
  for (const auto& [colour, group] : lines) {
    p.setPen(QPen(QColor::fromRgb(colour), 0));
    p.drawLines(group);
  }

  // Texts in the band above the traces: skipped where they would overlap the previous one, and
  // at most kMaxAnnotationTexts, so a page with thousands of events stays legible and fast.
  const QFontMetricsF fm(p.font());
  const double maxW = std::max(40.0, l.traces.width() / 8);
  double freeFrom = -1e300;
  int drawn = 0;
  for (const IndexedAnnotation& ia : s.annotations) {
    if (drawn >= kMaxAnnotationTexts) break;
    const Annotation& a = *ia.annotation;
    const double x = std::max(xOf(std::max(a.onset, t0)), l.traces.left()) + 2;
    if (x < freeFrom) continue;
    const QString text = fm.elidedText(QString::fromStdString(a.text), Qt::ElideRight, maxW);
    if (text.isEmpty()) continue;
    p.setPen(annotationColour(a.text).darker(ia.user ? 140 : 115));
    p.drawText(QPointF(x, l.annotationBand.top() + fm.ascent() + 1), text);
    freeFrom = x + fm.horizontalAdvance(text) + 6;
    ++drawn;
  }
}

QRgb rowColour(const RowStyle& style) {
  return (style.bad ? kBadChannelColour : style.colour).rgba() | 0xff000000u;
}

void paintTracesVector(QPainter& p, const BrowserLayout& l, const PageScene& s) {
  const double pxPerColumn = l.traces.width() / s.page->request.columns;
  const double pxPerMicrovolt = l.rowHeight / s.microvoltsPerDivision;
  const double left = l.traces.left();
  std::vector<QPointF> points;
  const std::size_t n = std::min(s.rows.size(), s.page->traces.size());
  for (std::size_t r = 0; r < n; ++r) {
    const DecimatedTrace& t = s.page->traces[r];
    if (t.x.size() < 2) continue;
    const double centre = l.rowCentre(static_cast<int>(r));
    points.resize(t.x.size());
    for (std::size_t i = 0; i < t.x.size(); ++i) {
      points[i] =
          QPointF(left + t.x[i] * pxPerColumn, centre - (t.y[i] - t.offset) * pxPerMicrovolt);
    }
    p.setPen(QPen(QColor::fromRgb(rowColour(s.rows[r])), 0));
    p.drawPolyline(points.data(), static_cast<int>(points.size()));
  }
}

void paintTracesRaster(QPainter& p, const BrowserLayout& l, const PageScene& s, double dpr,
                       TraceLayer& layer) {
  const QSize size(static_cast<int>(std::lround(l.traces.width() * dpr)),
                   static_cast<int>(std::lround(l.traces.height() * dpr)));
  if (size.isEmpty()) return;
  std::vector<QRgb> colours;
  for (const RowStyle& style : s.rows) colours.push_back(rowColour(style));
  const bool fresh = layer.image.size() == size && layer.image.devicePixelRatio() == dpr &&
                     layer.pageSerial == s.page->serial &&
                     layer.microvoltsPerDivision == s.microvoltsPerDivision &&
                     layer.rowHeight == l.rowHeight && layer.colours == colours;
  if (!fresh) {
    if (layer.image.size() != size) layer.image = QImage(size, QImage::Format_ARGB32_Premultiplied);
    layer.image.setDevicePixelRatio(dpr);
    layer.image.fill(Qt::transparent);
    const double xScale = size.width() / static_cast<double>(s.page->request.columns);
    const double yScale = l.rowHeight * dpr / s.microvoltsPerDivision;
    const std::size_t n = std::min(s.rows.size(), s.page->traces.size());
    for (std::size_t r = 0; r < n; ++r) {
      const double centre = (l.rowCentre(static_cast<int>(r)) - l.traces.top()) * dpr;
      rasterizeTrace(layer.image, s.page->traces[r], xScale, centre, yScale, colours[r]);
    }
    layer.pageSerial = s.page->serial;
    layer.microvoltsPerDivision = s.microvoltsPerDivision;
    layer.rowHeight = l.rowHeight;
    layer.colours = std::move(colours);
  }
  p.drawImage(l.traces.topLeft(), layer.image);
}

void paintTraces(QPainter& p, const BrowserLayout& l, const PageScene& s, TraceLayer* layer) {
  if (!s.page || s.page->request.columns <= 0) return;
  p.save();
  p.setClipRect(l.traces);
  p.setRenderHint(QPainter::Antialiasing, false);
  // The raster path needs pixels that map 1:1 onto the device: a raster engine and no
  // transform beyond a translation (the device pixel ratio is handled by the layer).
  const bool raster = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster &&
                      p.worldTransform().type() <= QTransform::TxTranslate;
  if (raster) {
    TraceLayer local;
    const double dpr = p.device() ? p.device()->devicePixelRatioF() : 1.0;
    paintTracesRaster(p, l, s, dpr, layer ? *layer : local);
  } else {
    paintTracesVector(p, l, s);
  }
  p.restore();
}

void paintLabels(QPainter& p, const BrowserLayout& l, const PageScene& s) {
  p.fillRect(l.labels, kLabelBackground);
  const QFontMetricsF fm(p.font());
  for (int r = 0; r < static_cast<int>(s.rows.size()); ++r) {
    if (!s.rows[static_cast<std::size_t>(r)].selected) continue;
    const double top = l.traces.top() + r * l.rowHeight;
    p.fillRect(QRectF(l.labels.left(), top, l.labels.width(), l.rowHeight), kSelectedLabel);
  }
  // With more rows than lines of text fit, labels are thinned so they never overlap.
  double freeFrom = -1e300;
  QFont bold = p.font();
  bold.setBold(true);
  const QFont normal = p.font();
  for (int r = 0; r < static_cast<int>(s.rows.size()); ++r) {
    const RowStyle& style = s.rows[static_cast<std::size_t>(r)];
    const double centre = l.rowCentre(r);
    const double top = centre - fm.height() / 2;
    if (top < freeFrom && !style.selected) continue;
    const QString text = fm.elidedText(style.label, Qt::ElideRight, l.labels.width() - 8);
    p.setFont(style.selected ? bold : normal);
    p.setPen(style.bad ? kBadChannelColour : style.colour);
    p.drawText(QPointF(l.labels.left() + 4, centre - fm.height() / 2 + fm.ascent()), text);
    freeFrom = top + fm.height();
  }
  p.setFont(normal);
  p.setPen(QPen(kMajorGrid, 0));
  p.drawLine(QLineF(l.labels.right(), l.annotationBand.top(), l.labels.right(), l.axis.bottom()));
}

void paintScaleBar(QPainter& p, const BrowserLayout& l, const PageScene& s) {
  // A vertical bar one row spacing tall at the right of the traces, labelled in uV.
  const QFontMetricsF fm(p.font());
  const double h = std::min(l.rowHeight, l.traces.height());
  const QString text = QString::number(s.microvoltsPerDivision, 'g', 4) + QStringLiteral(" µV");
  const double tw = fm.horizontalAdvance(text);
  const double x = l.traces.right() - 8;
  const double y1 = l.traces.bottom() - 4, y0 = y1 - h;
  const QRectF box(x - tw - 10, y0 - 2, tw + 16, h + 4);
  p.fillRect(box, QColor(255, 255, 255, 210));
  p.setPen(QPen(Qt::black, 0));
  p.drawLine(QLineF(x, y0, x, y1));
  p.drawLine(QLineF(x - 3, y0, x + 3, y0));
  p.drawLine(QLineF(x - 3, y1, x + 3, y1));
  p.drawText(QPointF(x - tw - 6, (y0 + y1) / 2 + fm.ascent() / 2 - 1), text);
}

}  // namespace

int BrowserLayout::rowAt(double y) const {
  if (rows <= 0 || rowHeight <= 0 || y < traces.top() || y >= traces.bottom()) return -1;
  return std::clamp(static_cast<int>((y - traces.top()) / rowHeight), 0, rows - 1);
}

BrowserLayout BrowserLayout::compute(const QRectF& area, int rows, const QFontMetricsF& fm) {
  BrowserLayout l;
  l.area = area;
  l.rows = std::max(0, rows);
  // Whole logical pixels, so the trace layer lands on device pixels without resampling.
  const double labelW = std::round(std::min(
      area.width() / 3, std::max(72.0, fm.horizontalAdvance(QStringLiteral("MMMMMMMM")) + 8)));
  const double bandH = std::ceil(fm.height() + 4);
  const double axisH = std::ceil(2 * fm.height() + 8);  // seconds and clock time
  const double tracesH = std::max(1.0, area.height() - bandH - axisH);
  l.annotationBand = QRectF(area.left() + labelW, area.top(), area.width() - labelW, bandH);
  l.traces = QRectF(area.left() + labelW, area.top() + bandH, std::max(1.0, area.width() - labelW),
                    tracesH);
  l.labels = QRectF(area.left(), l.traces.top(), labelW, tracesH);
  l.axis = QRectF(l.traces.left(), l.traces.bottom(), l.traces.width(), axisH);
  l.rowHeight = l.rows > 0 ? tracesH / l.rows : 0.0;
  return l;
}

QColor channelTypeColour(ChannelType type) {
  switch (type) {
    case ChannelType::EEG:
      return QColor(0x1a, 0x2e, 0x6e);
    case ChannelType::EOG:
      return QColor(0x1b, 0x7a, 0x2f);
    case ChannelType::ECG:
      return QColor(0xb7, 0x1c, 0x1c);
    case ChannelType::EMG:
      return QColor(0x6a, 0x1b, 0x9a);
    case ChannelType::STIM:
      return QColor(0xc7, 0x5b, 0x00);
    case ChannelType::MISC:
      return QColor(0x45, 0x5a, 0x64);
  }
  return Qt::black;
}

double chooseTimeStep(double pixelsPerSecond, double minPixels) {
  static const double kSteps[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,   2,    5,   10,
                                  15,   30,   60,   120, 300, 600, 900, 1800, 3600};
  for (double s : kSteps) {
    if (s * pixelsPerSecond >= minPixels) return s;
  }
  return 3600.0 * std::ceil(minPixels / (3600.0 * std::max(pixelsPerSecond, 1e-12)));
}

void rasterizeTrace(QImage& image, const DecimatedTrace& t, double xScale, double centreY,
                    double yScale, QRgb colour) {
  const int w = image.width(), h = image.height();
  const std::size_t n = t.x.size();
  if (n == 0 || w <= 0 || h <= 0) return;
  uchar* const bits = image.bits();
  const qsizetype bpl = image.bytesPerLine();
  // Colours the pixels of column c between y = lo and y = hi. Pixel row j covers [j, j + 1),
  // as in QPainter's aliased drawing.
  auto fill = [&](int c, double lo, double hi) {
    if (c < 0 || c >= w || hi < 0.0 || lo >= h) return;
    // Truncation is floor here: hi >= 0, and a negative lo is clamped to 0 either way.
    const int ya = lo > 0.0 ? static_cast<int>(lo) : 0;
    const int yb = std::min(h - 1, static_cast<int>(hi));
    uchar* p = bits + ya * bpl + static_cast<qsizetype>(c) * 4;
    for (int y = ya; y <= yb; ++y, p += bpl) *reinterpret_cast<QRgb*>(p) = colour;
  };
  auto Y = [&](std::size_t i) { return centreY - (t.y[i] - t.offset) * yScale; };

  if (t.decimated && xScale == 1.0 && n % 2 == 0) {
    // The common case, one (first, second) pair per column at x = c + 0.5: a column covers its
    // pair and half of each connecting segment, which ends at the midpoint on the border. One
    // pass, each column filled as soon as its right neighbour is known.
    int pc = -2;
    double plo = 0.0, phi = 0.0, pb = 0.0;
    for (std::size_t i = 0; i < n; i += 2) {
      const int c = static_cast<int>(t.x[i]);
      const double a = Y(i), b = Y(i + 1);
      double lo = std::min(a, b), hi = std::max(a, b);
      if (c == pc + 1) {
        const double mid = 0.5 * (pb + a);
        plo = std::min(plo, mid);
        phi = std::max(phi, mid);
        lo = std::min(lo, mid);
        hi = std::max(hi, mid);
      }
      if (pc != -2) fill(pc, plo, phi);
      pc = c, plo = lo, phi = hi, pb = b;
    }
    if (pc != -2) fill(pc, plo, phi);
    return;
  }

  // General polyline (raw samples when zoomed in, or a layer wider than the decimation): the
  // extent of the line over each column [c, c + 1).
  std::vector<double> lo(static_cast<std::size_t>(w), std::numeric_limits<double>::infinity());
  std::vector<double> hi(static_cast<std::size_t>(w), -std::numeric_limits<double>::infinity());
  auto extend = [&](int c, double ya, double yb) {
    if (c < 0 || c >= w) return;
    lo[c] = std::min({lo[c], ya, yb});
    hi[c] = std::max({hi[c], ya, yb});
  };
  auto X = [&](std::size_t i) { return t.x[i] * xScale; };
  if (n == 1) extend(static_cast<int>(std::floor(X(0))), Y(0), Y(0));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double x0 = X(i), x1 = X(i + 1), y0 = Y(i), y1 = Y(i + 1);
    const int c0 = static_cast<int>(std::floor(x0)), c1 = static_cast<int>(std::floor(x1));
    if (c0 == c1 || !(x1 > x0)) {
      extend(c0, y0, y1);
      continue;
    }
    // A segment over several columns: its value at each column's edges bounds it there.
    const double slope = (y1 - y0) / (x1 - x0);
    for (int c = std::max(c0, 0); c <= std::min(c1, w - 1); ++c) {
      const double xa = std::max(x0, static_cast<double>(c));
      const double xb = std::min(x1, static_cast<double>(c + 1));
      extend(c, y0 + (xa - x0) * slope, y0 + (xb - x0) * slope);
    }
  }
  for (int c = 0; c < w; ++c) {
    if (lo[c] <= hi[c]) fill(c, lo[c], hi[c]);
  }
}

void paintPage(QPainter& p, const BrowserLayout& l, const PageScene& s, TraceLayer* layer) {
  p.save();
  p.fillRect(l.area, kBackground);
  for (int r = 0; r < static_cast<int>(s.rows.size()); ++r) {
    if (!s.rows[static_cast<std::size_t>(r)].selected) continue;
    p.fillRect(
        QRectF(l.traces.left(), l.traces.top() + r * l.rowHeight, l.traces.width(), l.rowHeight),
        kSelectedRow);
  }
  if (s.length > 0 && l.traces.width() > 1) {
    paintGridAndAxis(p, l, s);
    paintAnnotations(p, l, s);
    if (s.message.isEmpty()) {
      paintTraces(p, l, s, layer);
    } else {
      p.setPen(kAxisText);
      p.drawText(l.traces, Qt::AlignCenter | Qt::TextWordWrap, s.message);
    }
  }
  paintLabels(p, l, s);
  if (!s.status.isEmpty()) {
    p.setPen(kAxisText);
    const QFontMetricsF fm(p.font());
    const QRectF box(l.area.left() + 4, l.annotationBand.top(), l.labels.width() - 6,
                     l.annotationBand.height());
    p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(s.status, Qt::ElideRight, box.width()));
  }
  if (s.rows.size() > 0 && s.message.isEmpty()) paintScaleBar(p, l, s);
  p.restore();
}

}  // namespace modescope::browser
