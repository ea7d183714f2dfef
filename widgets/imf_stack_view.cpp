#include "widgets/imf_stack_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "widgets/page_export.h"
#include "widgets/plot_axis.h"

namespace modescope {
namespace {

constexpr int kLabelWidth = 150;
constexpr int kRightMargin = 56;  // instantaneous frequency scale
constexpr int kTopMargin = 6;
constexpr int kBottomMargin = 34;
constexpr int kBoxSize = 11;
constexpr double kWaveShare = 0.62;  // of an IMF row while its frequency trace is shown

const QColor kImfColour(0x1f, 0x4e, 0x9a);
const QColor kResidueColour(0x8c, 0x4a, 0x14);
const QColor kFrequencyColour(0xe0, 0x6c, 0x00);
const QColor kMarkedTrace(0xb4, 0xb4, 0xb4);
const QColor kMarkedLabel(0xc0, 0x1c, 0x1c);
const QColor kOriginalColour(0x9a, 0x9a, 0x9a);
const QColor kReconstructionColour(0x10, 0x7c, 0x41);

// A row's vertical scale: value v is drawn at centre - (v - mid) / half * rowHalfHeight.
struct RowScale {
  double mid = 0.0;
  double half = 1.0;
};

RowScale symmetricScale(const float* x, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) m = std::max(m, std::fabs(static_cast<double>(x[i])));
  return {0.0, m > 0 ? m : 1.0};
}

RowScale rangeScale(const float* x, int64_t n) {
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) continue;
    lo = std::min(lo, static_cast<double>(x[i]));
    hi = std::max(hi, static_cast<double>(x[i]));
  }
  if (!(hi >= lo)) return {};
  const double half = (hi - lo) / 2;
  return {(hi + lo) / 2, half > 0 ? half : std::max(std::fabs(hi), 1.0)};
}

// Samples [s0, s1) of x across `rect` (x axis) about its vertical centre. Long windows are
// reduced to a min/max pair per pixel column; short ones are drawn as a polyline.
void drawTrace(QPainter& painter, const float* x, int64_t s0, int64_t s1, const QRectF& rect,
               double pixelsPerSample, double firstSampleX, const RowScale& scale,
               double clipLow = -INFINITY) {
  if (s1 <= s0) return;
  const double cy = rect.center().y();
  const double k = rect.height() / 2 / scale.half * 0.92;
  auto yOf = [&](double v) {
    return std::clamp(cy - (std::max(v, clipLow) - scale.mid) * k, rect.top(), rect.bottom());
  };
  QPainterPath path;
  if (pixelsPerSample >= 0.5) {
    bool started = false;
    for (int64_t i = s0; i < s1; ++i) {
      if (!std::isfinite(x[i])) {
        started = false;
        continue;
      }
      const QPointF p(firstSampleX + static_cast<double>(i - s0) * pixelsPerSample, yOf(x[i]));
      if (started) {
        path.lineTo(p);
      } else {
        path.moveTo(p);
        started = true;
      }
    }
  } else {
    const int columns = static_cast<int>(std::ceil((s1 - s0) * pixelsPerSample)) + 1;
    int64_t i = s0;
    bool started = false;
    for (int c = 0; c < columns && i < s1; ++c) {
      const auto end =
          std::min<int64_t>(s1, s0 + static_cast<int64_t>(std::ceil((c + 1) / pixelsPerSample)));
      double lo = INFINITY, hi = -INFINITY;
      for (; i < end; ++i) {
        if (!std::isfinite(x[i])) continue;
        lo = std::min(lo, static_cast<double>(x[i]));
        hi = std::max(hi, static_cast<double>(x[i]));
      }
      if (!(hi >= lo)) continue;
      const double px = firstSampleX + c;
      if (started) {
        path.lineTo(px, yOf(hi));
      } else {
        path.moveTo(px, yOf(hi));
        started = true;
      }
      path.lineTo(px, yOf(lo));
    }
  }
  painter.drawPath(path);
}

}  // namespace

struct ImfStackView::Layout {
  QRectF plot;                    // trace area (all rows)
  QRectF preview;                 // empty without a preview
  std::vector<QRectF> rows;       // per result row: its band
  std::vector<QRectF> waves;      // per result row: the waveform part
  std::vector<QRectF> frequency;  // per result row: the frequency part (empty when hidden)
};

ImfStackView::ImfStackView(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void ImfStackView::setModes(std::shared_ptr<const EmdResult> result, int resultChannel,
                            std::shared_ptr<const HhtResult> hht, const QString& unit,
                            const QString& channelName) {
  result_ = std::move(result);
  hht_ = std::move(hht);
  channel_ = resultChannel;
  unit_ = unit;
  channelName_ = channelName;
  if (!modes()) channel_ = -1;
  if (hht_ && (channel_ < 0 || static_cast<std::size_t>(channel_) >= hht_->channels.size()))
    hht_.reset();
  marked_.assign(static_cast<std::size_t>(rowCount()), false);
  previewOriginal_.clear();
  previewReconstruction_.clear();
  showWholeBlock();
}

const EmdChannelModes* ImfStackView::modes() const {
  if (!result_ || channel_ < 0 || static_cast<std::size_t>(channel_) >= result_->channels.size())
    return nullptr;
  const EmdChannelModes& m = result_->channels[static_cast<std::size_t>(channel_)];
  if (m.rows <= 0 || m.data.size() != static_cast<std::size_t>(m.rows) *
                                          static_cast<std::size_t>(result_->samples))
    return nullptr;
  return &m;
}

const HhtImf* ImfStackView::hhtImf(int row) const {
  if (!hht_) return nullptr;
  for (const HhtImf& imf : hht_->channels[static_cast<std::size_t>(channel_)].imfs) {
    if (imf.row == row) return &imf;
  }
  return nullptr;
}

int ImfStackView::rowCount() const {
  const EmdChannelModes* m = modes();
  return m ? m->rows : 0;
}

QString ImfStackView::rowLabel(int row) const {
  const int rows = rowCount();
  if (row < 0 || row >= rows) return {};
  if (row == rows - 1) return tr("Residue");
  const HhtImf* imf = hhtImf(row);
  if (imf && std::isfinite(imf->meanFrequencyHz) && imf->meanFrequencyHz > 0) {
    const double f = imf->meanFrequencyHz;
    return tr("IMF %1 \u00b7 %2 Hz").arg(row + 1).arg(f, 0, 'f', f < 10 ? 2 : 1);
  }
  return tr("IMF %1").arg(row + 1);
}

bool ImfStackView::hasInstantaneousFrequency() const {
  if (!hht_) return false;
  for (const HhtImf& imf : hht_->channels[static_cast<std::size_t>(channel_)].imfs) {
    if (static_cast<int64_t>(imf.frequencyHz.size()) == result_->samples) return true;
  }
  return false;
}

int ImfStackView::traceCount() const {
  int n = rowCount();
  if (n == 0) return 0;
  if (hasPreview()) n += 2;
  if (showFrequency_) {
    for (int r = 0; r < rowCount() - 1; ++r) {
      const HhtImf* imf = hhtImf(r);
      if (imf && static_cast<int64_t>(imf->frequencyHz.size()) == result_->samples) ++n;
    }
  }
  return n;
}

void ImfStackView::setShowInstantaneousFrequency(bool show) {
  showFrequency_ = show;
  update();
}

void ImfStackView::setMarked(int row, bool marked) {
  if (row < 0 || row >= rowCount() || marked_[static_cast<std::size_t>(row)] == marked) return;
  marked_[static_cast<std::size_t>(row)] = marked;
  update();
  emit marksChanged();
}

void ImfStackView::setMarkedRows(const std::vector<int>& rows) {
  std::vector<bool> next(static_cast<std::size_t>(rowCount()), false);
  for (int r : rows)
    if (r >= 0 && r < rowCount()) next[static_cast<std::size_t>(r)] = true;
  if (next == marked_) return;
  marked_ = std::move(next);
  update();
  emit marksChanged();
}

bool ImfStackView::isMarked(int row) const {
  return row >= 0 && row < rowCount() && marked_[static_cast<std::size_t>(row)];
}

std::vector<int> ImfStackView::markedRows() const {
  std::vector<int> rows;
  for (int r = 0; r < rowCount(); ++r)
    if (marked_[static_cast<std::size_t>(r)]) rows.push_back(r);
  return rows;
}

void ImfStackView::setPreview(std::vector<float> original, std::vector<float> reconstruction) {
  const bool fits = result_ && static_cast<int64_t>(original.size()) == result_->samples &&
                    reconstruction.size() == original.size();
  previewOriginal_ = fits ? std::move(original) : std::vector<float>{};
  previewReconstruction_ = fits ? std::move(reconstruction) : std::vector<float>{};
  update();
}

void ImfStackView::clearPreview() { setPreview({}, {}); }

double ImfStackView::blockStart() const {
  return result_ && result_->sampleRate > 0
             ? static_cast<double>(result_->firstSample) / result_->sampleRate
             : 0.0;
}

double ImfStackView::blockSeconds() const {
  return result_ && result_->sampleRate > 0
             ? static_cast<double>(result_->samples) / result_->sampleRate
             : 1.0;
}

void ImfStackView::clampWindow() {
  const double minSeconds =
      result_ && result_->sampleRate > 0 ? kMinVisibleSamples / result_->sampleRate : 1e-3;
  windowSeconds_ = std::clamp(windowSeconds_, std::min(minSeconds, blockSeconds()), blockSeconds());
  windowStart_ =
      std::clamp(windowStart_, blockStart(), blockStart() + blockSeconds() - windowSeconds_);
}

void ImfStackView::setTimeWindow(double startSeconds, double seconds) {
  if (!std::isfinite(startSeconds) || !(seconds > 0)) return;
  windowStart_ = startSeconds;
  windowSeconds_ = seconds;
  clampWindow();
  update();
}

void ImfStackView::showWholeBlock() {
  windowStart_ = blockStart();
  windowSeconds_ = blockSeconds();
  update();
}

void ImfStackView::userSetWindow(double start, double seconds) {
  const double oldStart = windowStart_, oldSeconds = windowSeconds_;
  setTimeWindow(start, seconds);
  if (windowStart_ != oldStart || windowSeconds_ != oldSeconds)
    emit timeWindowChanged(windowStart_, windowSeconds_);
}

ImfStackView::Layout ImfStackView::layoutIn(const QRect& area) const {
  Layout l;
  l.plot = QRectF(area.left() + kLabelWidth, area.top() + kTopMargin,
                  std::max(10, area.width() - kLabelWidth - kRightMargin),
                  std::max(10, area.height() - kTopMargin - kBottomMargin));
  const int rows = rowCount();
  if (rows == 0) return l;
  const double units = rows + (hasPreview() ? 1.5 : 0.0);
  const double h = l.plot.height() / units;
  double y = l.plot.top();
  if (hasPreview()) {
    l.preview = QRectF(l.plot.left(), y, l.plot.width(), 1.5 * h);
    y += 1.5 * h;
  }
  for (int r = 0; r < rows; ++r) {
    const QRectF band(l.plot.left(), y, l.plot.width(), h);
    l.rows.push_back(band);
    const HhtImf* imf = showFrequency_ && r < rows - 1 ? hhtImf(r) : nullptr;
    if (imf && static_cast<int64_t>(imf->frequencyHz.size()) == result_->samples) {
      l.waves.emplace_back(band.left(), band.top(), band.width(), band.height() * kWaveShare);
      l.frequency.emplace_back(band.left(), band.top() + band.height() * kWaveShare, band.width(),
                               band.height() * (1 - kWaveShare));
    } else {
      l.waves.push_back(band);
      l.frequency.emplace_back();
    }
    y += h;
  }
  return l;
}

QRect ImfStackView::labelRect(int row) const {
  const Layout l = layoutIn(rect());
  if (row < 0 || row >= static_cast<int>(l.rows.size())) return {};
  const QRectF& band = l.rows[static_cast<std::size_t>(row)];
  return QRectF(2, band.top(), kLabelWidth - 6, band.height()).toAlignedRect();
}

int ImfStackView::rowAt(const QPoint& pos) const {
  const Layout l = layoutIn(rect());
  for (std::size_t r = 0; r < l.rows.size(); ++r) {
    const QRectF& band = l.rows[r];
    if (pos.y() >= band.top() && pos.y() < band.bottom()) return static_cast<int>(r);
  }
  return -1;
}

void ImfStackView::renderTo(QPainter& painter, const QRect& area) const {
  painter.save();
  painter.fillRect(area, palette().color(QPalette::Base));
  const QColor text = palette().color(QPalette::Text);
  const QColor grid = palette().color(QPalette::Mid);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  const Layout l = layoutIn(area);
  const EmdChannelModes* m = modes();
  if (!m) {
    painter.setPen(text);
    painter.drawText(l.plot, Qt::AlignCenter, tr("No decomposition"));
    painter.restore();
    return;
  }
  painter.setRenderHint(QPainter::Antialiasing, true);
  const int64_t n = result_->samples;
  const double fs = result_->sampleRate;
  // Visible samples, one more on each side so lines reach the edges.
  const double firstVisible = (windowStart_ - blockStart()) * fs;
  const int64_t s0 = std::clamp<int64_t>(static_cast<int64_t>(std::floor(firstVisible)), 0, n);
  const int64_t s1 = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(firstVisible + windowSeconds_ * fs)) + 1, 0, n);
  const double pps = l.plot.width() / (windowSeconds_ * fs);
  const double x0 = l.plot.left() + (static_cast<double>(s0) - firstVisible) * pps;
  painter.save();
  painter.setClipRect(l.plot.adjusted(0, -1, 0, 1));

  if (hasPreview()) {
    // One scale for both, spanning both: the reconstruction without a dropped slow row can sit
    // far from the original.
    const RowScale a = rangeScale(previewOriginal_.data(), n);
    const RowScale b = rangeScale(previewReconstruction_.data(), n);
    const double lo = std::min(a.mid - a.half, b.mid - b.half);
    const double hi = std::max(a.mid + a.half, b.mid + b.half);
    const RowScale sc{(lo + hi) / 2, hi > lo ? (hi - lo) / 2 : a.half};
    painter.setPen(QPen(kOriginalColour, 1.2));
    drawTrace(painter, previewOriginal_.data(), s0, s1, l.preview, pps, x0, sc);
    painter.setPen(QPen(kReconstructionColour, 1.0));
    drawTrace(painter, previewReconstruction_.data(), s0, s1, l.preview, pps, x0, sc);
  }
  for (int r = 0; r < m->rows; ++r) {
    const float* x = m->row(r, n);
    const bool residue = r == m->rows - 1;
    const RowScale sc = residue ? rangeScale(x, n) : symmetricScale(x, n);
    const QColor colour = isMarked(r) ? kMarkedTrace : residue ? kResidueColour : kImfColour;
    painter.setPen(QPen(colour, 1.0));
    drawTrace(painter, x, s0, s1, l.waves[static_cast<std::size_t>(r)], pps, x0, sc);
    const QRectF& fr = l.frequency[static_cast<std::size_t>(r)];
    if (!fr.isEmpty()) {
      const HhtImf* imf = hhtImf(r);
      // 0 at the bottom of the band; the top a round number above twice the mean frequency
      // (an IMF's instantaneous frequency spreads about its mean), at most Nyquist.
      const double mean = imf->meanFrequencyHz > 0 ? imf->meanFrequencyHz : fs / 8;
      const double top = std::min(fs / 2, niceCeil(2.2 * mean));
      painter.setPen(QPen(isMarked(r) ? kMarkedTrace : kFrequencyColour, 1.0));
      drawTrace(painter, imf->frequencyHz.data(), s0, s1, fr, pps, x0, {top / 2, top / 2 / 0.92},
                0.0);
      painter.setClipping(false);
      painter.setPen(kFrequencyColour);
      painter.drawText(QPointF(l.plot.right() + 4, fr.top() + fm.ascent()),
                       QStringLiteral("%1 Hz").arg(formatTick(top)));
      painter.drawText(QPointF(l.plot.right() + 4, fr.bottom() - 2), QStringLiteral("0"));
      painter.setClipRect(l.plot.adjusted(0, -1, 0, 1));
    }
  }
  painter.restore();
  painter.setRenderHint(QPainter::Antialiasing, false);

  // Row separators and labels.
  painter.setPen(grid);
  for (const QRectF& band : l.rows) painter.drawLine(band.topLeft(), band.topRight());
  if (hasPreview()) {
    painter.setPen(text);
    painter.drawText(QRectF(area.left() + 6, l.preview.top(), kLabelWidth - 10, l.preview.height()),
                     Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap,
                     tr("Signal\n(grey: original,\ngreen: kept rows)"));
  }
  for (int r = 0; r < m->rows; ++r) {
    const QRectF& band = l.rows[static_cast<std::size_t>(r)];
    const bool marked = isMarked(r);
    const QRectF box(area.left() + 6, band.center().y() - kBoxSize / 2.0, kBoxSize, kBoxSize);
    painter.setPen(marked ? kMarkedLabel : text);
    painter.drawRect(box);
    if (marked) {
      painter.drawLine(box.topLeft(), box.bottomRight());
      painter.drawLine(box.topRight(), box.bottomLeft());
    }
    QFont f = small;
    f.setStrikeOut(marked);
    painter.setFont(f);
    painter.drawText(
        QRectF(box.right() + 6, band.top(), kLabelWidth - kBoxSize - 18, band.height()),
        Qt::AlignVCenter | Qt::AlignLeft, rowLabel(r));
    painter.setFont(small);
  }
  painter.setPen(text);
  painter.drawRect(l.plot);

  // Time axis.
  const int target = std::max(2, static_cast<int>(l.plot.width() / 100));
  for (double t : linearTicks(windowStart_, windowStart_ + windowSeconds_, target)) {
    const double x = l.plot.left() + (t - windowStart_) / windowSeconds_ * l.plot.width();
    painter.setPen(grid);
    painter.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
    painter.setPen(text);
    painter.drawLine(QPointF(x, l.plot.bottom()), QPointF(x, l.plot.bottom() + 4));
    const QString label = formatTick(t);
    painter.drawText(
        QPointF(x - fm.horizontalAdvance(label) / 2, l.plot.bottom() + 6 + fm.ascent()), label);
  }
  QString title = tr("Time (s)");
  if (!channelName_.isEmpty()) title = channelName_ + QStringLiteral("   ") + title;
  if (!unit_.isEmpty()) title += tr("   rows scaled separately, %1").arg(unit_);
  painter.drawText(QPointF(l.plot.center().x() - fm.horizontalAdvance(title) / 2,
                           l.plot.bottom() + 8 + fm.height() + fm.ascent()),
                   title);
  painter.restore();
}

void ImfStackView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  renderTo(painter, rect());
}

bool ImfStackView::exportImage(const QString& path, QString* error) const {
  return exportView(
      path, size(), [this](QPainter& p, const QRect& area) { renderTo(p, area); }, tr("IMF stack"),
      error);
}

void ImfStackView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const QPoint pos = event->position().toPoint();
  if (pos.x() < kLabelWidth) {
    const int row = rowAt(pos);
    if (row >= 0) setMarked(row, !isMarked(row));
    return;
  }
  panning_ = true;
  panStart_ = event->position();
  panWindowStart_ = windowStart_;
  setCursor(Qt::ClosedHandCursor);
}

void ImfStackView::mouseMoveEvent(QMouseEvent* event) {
  if (!panning_) return;
  const QRectF plot = layoutIn(rect()).plot;
  const double dt = (event->position().x() - panStart_.x()) / plot.width() * windowSeconds_;
  userSetWindow(panWindowStart_ - dt, windowSeconds_);
}

void ImfStackView::mouseReleaseEvent(QMouseEvent*) {
  panning_ = false;
  unsetCursor();
}

void ImfStackView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->position().x() < kLabelWidth) {
    mousePressEvent(event);  // a quick second click toggles again
    return;
  }
  userSetWindow(blockStart(), blockSeconds());
}

void ImfStackView::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0 || !modes()) return;
  if (event->modifiers() & Qt::ControlModifier) {
    const QRectF plot = layoutIn(rect()).plot;
    const double fx = std::clamp((event->position().x() - plot.left()) / plot.width(), 0.0, 1.0);
    const double anchor = windowStart_ + fx * windowSeconds_;
    const double seconds = windowSeconds_ * std::pow(kZoomStep, -notches);  // up zooms in
    userSetWindow(anchor - fx * seconds, seconds);
  } else {
    userSetWindow(windowStart_ - notches * kWheelPanFraction * windowSeconds_, windowSeconds_);
  }
  event->accept();
}

void ImfStackView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Left:
      userSetWindow(windowStart_ - kWheelPanFraction * windowSeconds_, windowSeconds_);
      break;
    case Qt::Key_Right:
      userSetWindow(windowStart_ + kWheelPanFraction * windowSeconds_, windowSeconds_);
      break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      userSetWindow(windowStart_ + windowSeconds_ * (1 - 1 / kZoomStep) / 2,
                    windowSeconds_ / kZoomStep);
      break;
    case Qt::Key_Minus:
      userSetWindow(windowStart_ - windowSeconds_ * (kZoomStep - 1) / 2,
                    windowSeconds_ * kZoomStep);
      break;
    case Qt::Key_Home:
      userSetWindow(blockStart(), blockSeconds());
      break;
    default:
      QWidget::keyPressEvent(event);
  }
}

}  // namespace modescope
