#include "widgets/trace_measure_overlay.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "widgets/page_cache.h"
#include "widgets/signal_browser.h"
#include "widgets/time_format.h"
#include "widgets/trace_renderer.h"

namespace modescope {
namespace {

const QColor kCursorLine(0x10, 0x60, 0xc0, 170);
const QColor kReadoutBox(255, 255, 255, 225);
const QColor kRulerLine(0xd0, 0x20, 0x20);

browser::BrowserLayout layoutOf(const SignalBrowser& b) {
  return browser::BrowserLayout::compute(QRectF(b.rect()), b.rowCount(), QFontMetricsF(b.font()));
}

// A value in uV with a precision that suits its size ("12.3 uV", "1.25 mV").
QString amplitudeText(double uv) {
  if (std::abs(uv) >= 10000) return QStringLiteral("%1 mV").arg(uv / 1000.0, 0, 'f', 2);
  if (std::abs(uv) >= 100) return QStringLiteral("%1 uV").arg(uv, 0, 'f', 0);
  return QStringLiteral("%1 uV").arg(uv, 0, 'f', 1);
}

QString durationText(double s) {
  if (std::abs(s) < 1.0) return QStringLiteral("%1 ms").arg(s * 1000.0, 0, 'f', 1);
  return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
}

// A boxed text with its top-left corner at `at`, moved inside `bounds`.
void drawBoxedText(QPainter& p, QPointF at, const QString& text, const QRectF& bounds,
                   const QColor& ink) {
  const QFontMetricsF fm(p.font());
  QRectF box(at, QSizeF(fm.horizontalAdvance(text) + 8, fm.height() + 2));
  if (box.right() > bounds.right()) box.moveRight(bounds.right());
  if (box.bottom() > bounds.bottom()) box.moveBottom(bounds.bottom());
  box.moveLeft(std::max(box.left(), bounds.left()));
  box.moveTop(std::max(box.top(), bounds.top()));
  p.fillRect(box, kReadoutBox);
  p.setPen(ink);
  p.drawText(box, Qt::AlignCenter, text);
}

}  // namespace

TraceMeasureOverlay::TraceMeasureOverlay(SignalBrowser* browser)
    : QWidget(browser), browser_(browser) {
  setObjectName(QStringLiteral("traceMeasureOverlay"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  setGeometry(browser->rect());
  browser->setMouseTracking(true);
  browser->installEventFilter(this);
  connect(browser, &SignalBrowser::viewChanged, this, qOverload<>(&QWidget::update));
  show();
  raise();
}

void TraceMeasureOverlay::setReadoutEnabled(bool enabled) {
  readout_ = enabled;
  update();
}

std::optional<double> TraceMeasureOverlay::timeAt(QPointF pos) const {
  if (!browser_ || !browser_->recording()) return std::nullopt;
  const auto l = layoutOf(*browser_);
  if (!l.traces.contains(pos) || l.traces.width() <= 0) return std::nullopt;
  return browser_->pageStart() +
         (pos.x() - l.traces.left()) / l.traces.width() * browser_->pageLength();
}

QPointF TraceMeasureOverlay::positionFor(double seconds, int row, double microvolts) const {
  const auto l = layoutOf(*browser_);
  const double x = l.traces.left() +
                   (seconds - browser_->pageStart()) / browser_->pageLength() * l.traces.width();
  const double y = l.rowCentre(row) - microvolts / browser_->microvoltsPerDivision() * l.rowHeight;
  return {x, y};
}

std::optional<TraceMeasureOverlay::Point> TraceMeasureOverlay::pointAt(QPointF pos) const {
  const auto t = timeAt(pos);
  if (!t) return std::nullopt;
  const auto l = layoutOf(*browser_);
  const int row = l.rowAt(pos.y());
  if (row < 0 || l.rowHeight <= 0) return std::nullopt;
  Point p;
  p.t = *t;
  p.row = row;
  p.microvolts = (l.rowCentre(row) - pos.y()) / l.rowHeight * browser_->microvoltsPerDivision();
  return p;
}

std::optional<double> TraceMeasureOverlay::cursorTime() const {
  return mouse_ ? timeAt(*mouse_) : std::nullopt;
}

std::vector<TraceMeasureOverlay::RowValue> TraceMeasureOverlay::valuesAt(double seconds) const {
  std::vector<RowValue> out;
  const browser::DecimatedPage* page = browser_ ? browser_->displayedPage() : nullptr;
  if (!page || page->request.length <= 0) return out;
  // The page is the one on screen only if it covers the browser's current view.
  if (std::abs(page->request.start - browser_->pageStart()) > 1e-9 ||
      std::abs(page->request.length - browser_->pageLength()) > 1e-9)
    return out;
  const double column =
      (seconds - page->request.start) / page->request.length * page->request.columns;
  const int rows = std::min<int>(browser_->rowCount(), static_cast<int>(page->traces.size()));
  for (int r = 0; r < rows; ++r) {
    const browser::DecimatedTrace& t = page->traces[static_cast<std::size_t>(r)];
    if (t.x.empty()) continue;
    // The nearest point of the polyline in x (x ascends); a decimated column holds a min and a
    // max at the same x: their mean is what the column stands for.
    auto it = std::lower_bound(t.x.begin(), t.x.end(), static_cast<float>(column));
    std::size_t i = static_cast<std::size_t>(it - t.x.begin());
    if (i == t.x.size() || (i > 0 && std::abs(t.x[i - 1] - column) < std::abs(t.x[i] - column)))
      i = i == 0 ? 0 : i - 1;
    double value = t.y[i];
    if (t.decimated) {
      std::size_t j = i;
      if (i + 1 < t.x.size() && t.x[i + 1] == t.x[i]) j = i + 1;
      if (i > 0 && t.x[i - 1] == t.x[i]) j = i - 1;
      value = 0.5 * (static_cast<double>(t.y[i]) + t.y[j]);
    }
    out.push_back({r, browser_->rowLabel(r), value});
  }
  return out;
}

void TraceMeasureOverlay::startRuler() {
  armed_ = true;
  first_.reset();
  second_.reset();
  complete_ = false;
  update();
  emit rulerChanged();
}

void TraceMeasureOverlay::clearRuler() {
  armed_ = dragging_ = complete_ = false;
  first_.reset();
  second_.reset();
  update();
  emit rulerChanged();
}

std::optional<TraceMeasureOverlay::Measurement> TraceMeasureOverlay::ruler() const {
  if (!first_ || !second_) return std::nullopt;
  Measurement m;
  m.t0 = first_->t;
  m.t1 = second_->t;
  m.row = first_->row;
  m.a0 = first_->microvolts;
  // The second point's height relative to the first point's row: rows lie one division apart.
  m.a1 = second_->microvolts + (first_->row - second_->row) * browser_->microvoltsPerDivision();
  m.complete = complete_;
  return m;
}

QString TraceMeasureOverlay::measurementText(const Measurement& m) {
  QString text = QStringLiteral("\u0394t %1   \u0394A %2")
                     .arg(durationText(m.dt()), amplitudeText(m.dAmplitude()));
  if (m.dt() != 0) text += QStringLiteral("   %1 Hz").arg(m.frequency(), 0, 'f', 2);
  return text;
}

void TraceMeasureOverlay::setSecond(QPointF pos, bool complete) {
  // pointAt gives the height relative to the point's own row; ruler() converts it to the first
  // point's row.
  if (auto p = pointAt(pos)) second_ = p;
  complete_ = complete;
  update();
  emit rulerChanged();
}

bool TraceMeasureOverlay::eventFilter(QObject* watched, QEvent* event) {
  if (watched != browser_) return false;
  switch (event->type()) {
    case QEvent::Resize:
      setGeometry(browser_->rect());
      break;
    case QEvent::MouseMove: {
      const QPointF pos = static_cast<QMouseEvent*>(event)->position();
      mouse_ = pos;
      if (first_ && (!complete_ || dragging_)) setSecond(pos, false);
      update();
      break;
    }
    case QEvent::Leave:
      mouse_.reset();
      update();
      break;
    case QEvent::MouseButtonPress: {
      auto* e = static_cast<QMouseEvent*>(event);
      const auto p = pointAt(e->position());
      if (!p) break;
      if (e->button() == Qt::MiddleButton) {
        first_ = p;
        second_ = p;
        dragging_ = true;
        complete_ = false;
        armed_ = false;
        update();
        emit rulerChanged();
        return true;
      }
      if (e->button() == Qt::LeftButton && armed_) {
        if (!first_) {
          first_ = p;
          second_ = p;
          complete_ = false;
        } else {
          setSecond(e->position(), true);
          armed_ = false;
        }
        update();
        emit rulerChanged();
        return true;  // the click belongs to the ruler, not to the browser
      }
      break;
    }
    case QEvent::MouseButtonRelease: {
      auto* e = static_cast<QMouseEvent*>(event);
      if (e->button() == Qt::MiddleButton && dragging_) {
        dragging_ = false;
        setSecond(e->position(), true);
        return true;
      }
      break;
    }
    case QEvent::KeyPress:
      if (static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape && (first_ || armed_)) {
        clearRuler();
        return true;
      }
      break;
    default:
      break;
  }
  return false;
}

void TraceMeasureOverlay::paintEvent(QPaintEvent*) {
  if (!browser_ || !browser_->recording()) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  const auto l = layoutOf(*browser_);
  const QColor ink = palette().color(QPalette::Text);

  if (readout_ && mouse_) {
    if (const auto t = timeAt(*mouse_)) {
      const double x = mouse_->x();
      p.setPen(QPen(kCursorLine, 1, Qt::DashLine));
      p.drawLine(QLineF(x, l.traces.top(), x, l.traces.bottom()));
      // Each trace's value beside the line at its zero line; thinned when rows are too close
      // for a label each.
      const QFontMetricsF fm(font());
      const int every = std::max(1, static_cast<int>(std::ceil((fm.height() + 2) / l.rowHeight)));
      for (const RowValue& v : valuesAt(*t)) {
        if (v.row % every != 0) continue;
        drawBoxedText(p, QPointF(x + 4, l.rowCentre(v.row) - fm.height() / 2),
                      amplitudeText(v.value), l.traces, ink);
      }
      drawBoxedText(p, QPointF(x + 4, l.annotationBand.top()),
                    QStringLiteral("%1 (%2 s)").arg(formatClock(*t)).arg(*t, 0, 'f', 3), l.area,
                    ink);
    }
  }

  if (first_) {
    const QPointF a = positionFor(first_->t, first_->row, first_->microvolts);
    const QPointF b = second_ ? positionFor(second_->t, second_->row, second_->microvolts) : a;
    p.setPen(QPen(kRulerLine, 1.5));
    p.drawLine(a, b);
    // The right-angle legs: dt horizontally, dA vertically.
    p.setPen(QPen(kRulerLine, 1, Qt::DotLine));
    p.drawLine(a, QPointF(b.x(), a.y()));
    p.drawLine(QPointF(b.x(), a.y()), b);
    p.setBrush(kRulerLine);
    p.setPen(Qt::NoPen);
    p.drawEllipse(a, 3, 3);
    p.drawEllipse(b, 3, 3);
    if (const auto m = ruler()) {
      drawBoxedText(p, QPointF(std::max(a.x(), b.x()) + 6, std::min(a.y(), b.y()) - 20),
                    measurementText(*m), l.traces, kRulerLine);
    }
  } else if (armed_) {
    drawBoxedText(p, QPointF(l.traces.left() + 6, l.traces.top() + 4),
                  tr("Ruler: click the first point (Esc cancels)"), l.traces, kRulerLine);
  }
}

}  // namespace modescope
