#include "widgets/signal_browser.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMetaObject>
#include <QMouseEvent>
#include <QPaintDevice>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/text.h"
#include "widgets/amplitude_autoscale.h"
#include "widgets/annotation_index.h"
#include "widgets/page_cache.h"
#include "widgets/page_export.h"
#include "widgets/trace_renderer.h"
#include "widgets/view_state_text.h"

namespace modescope {

namespace {
constexpr double kMinMicrovoltsPerDivision = 1e-3;
constexpr double kMaxMicrovoltsPerDivision = 1e7;
}  // namespace

struct SignalBrowser::Impl {
  std::shared_ptr<const Recording> recording;
  double pageStart = 0.0;
  double pageLength = 10.0;
  double microvoltsPerDivision = 50.0;
  int firstChannel = 0;
  int visibleCount = 32;
  std::vector<int> selected;  // sorted, unique
  ReferenceSpec montage;
  std::vector<FilterSpec> filters;  // the display filter chain (empty: none)
  std::vector<Annotation> userAnnotations;
  std::optional<std::vector<Annotation>> fileAnnotations;  // corrected by the user
  std::set<std::string> badNames;                          // lower case
  QDateTime clockStart;
  double channelWheelRemainder = 0.0;  // high-resolution wheels send fractions of a notch

  browser::PageCache cache;
  browser::TraceLayer traceLayer;  // the traces as pixels, reused while the page is unchanged
  browser::AnnotationIndex annotations;
  std::set<std::string> reportedProblems;  // so a failing read is reported once, not per paint

  double duration() const { return recording ? recording->duration() : 0.0; }
  int channelCount() const { return recording ? static_cast<int>(recording->channelCount()) : 0; }
  int rows() const { return std::min(visibleCount, channelCount()); }
  const std::vector<Annotation>* fileAnnotationList() const {
    if (fileAnnotations) return &*fileAnnotations;
    return recording ? &recording->annotations : nullptr;
  }

  double clampStart(double s) const {
    if (!std::isfinite(s)) s = 0.0;
    if (!recording) return std::max(0.0, s);
    return std::clamp(s, 0.0, std::max(0.0, duration() - pageLength));
  }
  double clampLength(double l) const {
    if (!std::isfinite(l)) l = 10.0;
    const double maxLength = recording ? std::max(duration(), kMinPageLength) : 86400.0;
    return std::clamp(l, kMinPageLength, maxLength);
  }
  int clampVisible(int n) const { return std::clamp(n, 1, std::max(1, channelCount())); }
  int clampFirst(int f) const { return std::clamp(f, 0, std::max(0, channelCount() - rows())); }

  // Applies the montage to the page cache; returns the problem for displayProblem, or "".
  QString applyMontage(const ReferenceSpec& spec) {
    const std::string problem = cache.setMontage(spec);
    montage = problem.empty() ? spec : ReferenceSpec{};
    if (problem.empty()) return {};
    return QStringLiteral("Montage \"%1\" cannot be shown (%2); showing the signals as recorded")
        .arg(QString::fromStdString(browser::montageText(spec)), QString::fromStdString(problem));
  }
  QString applyFilters(const std::vector<FilterSpec>& chain) {
    filters = chain;
    return QString::fromStdString(cache.setFilters(chain));
  }

  bool isBad(const ChannelInfo& c) const {
    return badNames.count(toLower(c.name)) > 0 || badNames.count(toLower(c.label)) > 0;
  }
};

SignalBrowser::SignalBrowser(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);  // renderPage fills every pixel
  setMinimumSize(240, 160);
}

SignalBrowser::~SignalBrowser() = default;

void SignalBrowser::setRecording(std::shared_ptr<const Recording> recording) {
  Impl& d = *impl_;
  d.recording = std::move(recording);
  d.cache.setRecording(d.recording);
  d.reportedProblems.clear();
  d.selected.clear();
  d.fileAnnotations.reset();
  d.annotations.build(d.fileAnnotationList(), &d.userAnnotations);
  d.clockStart = QDateTime();
  if (d.recording && !d.recording->info.startDateTime.empty()) {
    d.clockStart = QDateTime::fromString(QString::fromStdString(d.recording->info.startDateTime),
                                         Qt::ISODateWithMs);
  }
  if (d.recording) {
    d.microvoltsPerDivision = std::clamp(suggestMicrovoltsPerDivision(*d.recording),
                                         kMinMicrovoltsPerDivision, kMaxMicrovoltsPerDivision);
  }
  d.pageLength = d.clampLength(d.pageLength);
  d.pageStart = d.clampStart(d.pageStart);
  d.visibleCount = d.clampVisible(d.visibleCount);
  d.firstChannel = d.clampFirst(d.firstChannel);
  // Re-check the montage and filter against the new recording.
  const QString montageProblem = d.applyMontage(d.montage);
  const QString filterProblem = d.applyFilters(d.filters);
  if (!montageProblem.isEmpty()) emit displayProblem(montageProblem);
  if (!filterProblem.isEmpty()) emit displayProblem(filterProblem);
  update();
  emit selectionChanged();
  emit viewChanged();
}

std::shared_ptr<const Recording> SignalBrowser::recording() const { return impl_->recording; }

ViewState SignalBrowser::viewState() const {
  const Impl& d = *impl_;
  ViewState v;
  v.pageStart = d.pageStart;
  v.pageLength = d.pageLength;
  v.microvoltsPerDivision = d.microvoltsPerDivision;
  v.firstVisibleChannel = d.firstChannel;
  v.visibleChannelCount = d.visibleCount;
  if (d.recording) {
    for (int c : d.selected) v.selectedChannels.push_back(d.recording->channels[c].name);
  }
  v.montage = browser::montageText(d.montage);
  v.displayFilter = browser::filterChainText(d.filters);
  return v;
}

void SignalBrowser::setViewState(const ViewState& state) {
  Impl& d = *impl_;
  d.pageLength = d.clampLength(state.pageLength);
  d.pageStart = d.clampStart(state.pageStart);
  if (std::isfinite(state.microvoltsPerDivision)) {
    d.microvoltsPerDivision = std::clamp(state.microvoltsPerDivision, kMinMicrovoltsPerDivision,
                                         kMaxMicrovoltsPerDivision);
  }
  d.visibleCount = d.recording ? d.clampVisible(state.visibleChannelCount)
                               : std::max(1, state.visibleChannelCount);
  d.firstChannel = d.recording ? d.clampFirst(state.firstVisibleChannel)
                               : std::max(0, state.firstVisibleChannel);
  d.selected.clear();
  for (const std::string& name : state.selectedChannels) {
    const int i = d.recording ? d.recording->findChannel(name) : -1;
    if (i >= 0) d.selected.push_back(i);
  }
  std::sort(d.selected.begin(), d.selected.end());
  d.selected.erase(std::unique(d.selected.begin(), d.selected.end()), d.selected.end());

  QStringList problems;
  if (auto montage = browser::parseMontageText(state.montage)) {
    const QString p = d.applyMontage(*montage);
    if (!p.isEmpty()) problems << p;
  } else {
    problems << QStringLiteral(
                    "Unknown montage \"%1\" in the view state; expected \"as "
                    "recorded\", \"average\", \"linked mastoids\" or \"ref:NAME\"")
                    .arg(QString::fromStdString(state.montage));
  }
  if (auto filter = browser::parseFilterChainText(state.displayFilter)) {
    const QString p = d.applyFilters(*filter);
    if (!p.isEmpty()) problems << p;
  } else {
    problems << QStringLiteral(
                    "Unknown display filter \"%1\" in the view state; expected "
                    "e.g. \"bandpass 1-40 Hz\" or \"none\"")
                    .arg(QString::fromStdString(state.displayFilter));
  }
  update();
  for (const QString& p : problems) emit displayProblem(p);
  emit selectionChanged();
  emit viewChanged();
}

double SignalBrowser::pageStart() const { return impl_->pageStart; }
double SignalBrowser::pageLength() const { return impl_->pageLength; }
double SignalBrowser::microvoltsPerDivision() const { return impl_->microvoltsPerDivision; }
int SignalBrowser::firstVisibleChannel() const { return impl_->firstChannel; }
int SignalBrowser::visibleChannelCount() const { return impl_->visibleCount; }
std::vector<int> SignalBrowser::selectedChannels() const { return impl_->selected; }

const browser::DecimatedPage* SignalBrowser::displayedPage() const {
  return impl_->cache.lastPage();
}

int SignalBrowser::rowCount() const { return impl_->rows(); }

QString SignalBrowser::rowLabel(int row) const {
  const Impl& d = *impl_;
  if (!d.recording || row < 0 || row >= d.rows()) return {};
  const ChannelInfo& info = d.recording->channels[static_cast<std::size_t>(d.firstChannel + row)];
  return QString::fromStdString(info.name.empty() ? info.label : info.name);
}

void SignalBrowser::setUserAnnotations(std::vector<Annotation> annotations) {
  Impl& d = *impl_;
  d.userAnnotations = std::move(annotations);
  d.annotations.build(d.fileAnnotationList(), &d.userAnnotations);
  update();
}

void SignalBrowser::setFileAnnotations(std::optional<std::vector<Annotation>> annotations) {
  Impl& d = *impl_;
  d.fileAnnotations = std::move(annotations);
  d.annotations.build(d.fileAnnotationList(), &d.userAnnotations);
  update();
}

void SignalBrowser::setBadChannels(const std::vector<std::string>& names) {
  impl_->badNames.clear();
  for (const auto& n : names) impl_->badNames.insert(toLower(n));
  update();
}

void SignalBrowser::renderPage(QPainter& painter, const QRect& area) const {
  Impl& d = *impl_;
  painter.save();
  painter.setFont(font());
  const int rows = d.rows();
  const browser::BrowserLayout layout =
      browser::BrowserLayout::compute(QRectF(area), rows, QFontMetricsF(font()));

  browser::PageScene scene;
  scene.start = d.pageStart;
  scene.length = d.pageLength;
  scene.microvoltsPerDivision = d.microvoltsPerDivision;
  scene.clockStart = d.clockStart;
  const std::string montage = browser::montageText(d.montage);
  const std::string filter = browser::filterChainText(d.filters);
  QStringList status;
  if (d.montage.kind != ReferenceKind::AsRecorded) status << QString::fromStdString(montage);
  if (!d.filters.empty()) status << QString::fromStdString(filter);
  scene.status = status.join(QStringLiteral(" | "));

  if (d.recording && rows > 0) {
    browser::PageRequest request;
    for (int r = 0; r < rows; ++r) {
      const int c = d.firstChannel + r;
      request.channels.push_back(c);
      const ChannelInfo& info = d.recording->channels[static_cast<std::size_t>(c)];
      browser::RowStyle style;
      style.label = QString::fromStdString(info.name.empty() ? info.label : info.name);
      style.colour = browser::channelTypeColour(info.type);
      style.bad = d.isBad(info);
      style.selected = std::binary_search(d.selected.begin(), d.selected.end(), c);
      scene.rows.push_back(std::move(style));
    }
    request.start = d.pageStart;
    request.length = d.pageLength;
    // One decimation column per device pixel: twice the logical width on a 2x PNG export.
    const double dpr = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
    request.columns = std::max(1, static_cast<int>(std::lround(layout.traces.width() * dpr)));
    std::vector<std::string> problems;
    try {
      scene.page = &d.cache.page(request);
    } catch (const std::exception& e) {
      scene.message = QStringLiteral("Cannot show this page: %1").arg(QString::fromUtf8(e.what()));
      problems.push_back(e.what());
    }
    for (auto& p : d.cache.takeProblems()) problems.push_back(std::move(p));
    QStringList fresh;
    for (const auto& p : problems) {
      if (d.reportedProblems.insert(p).second) fresh << QString::fromStdString(p);
    }
    if (!fresh.isEmpty()) {
      // Emitted later: renderPage runs inside paintEvent, where a slot must not change the view.
      auto* self = const_cast<SignalBrowser*>(this);
      QMetaObject::invokeMethod(
          self,
          [self, fresh] {
            for (const QString& p : fresh) emit self->displayProblem(p);
          },
          Qt::QueuedConnection);
    }
    scene.annotations = d.annotations.query(d.pageStart, d.pageStart + d.pageLength);
  }
  browser::paintPage(painter, layout, scene, &d.traceLayer);
  painter.restore();
}

void SignalBrowser::setReadAhead(bool enabled) { impl_->cache.setReadAhead(enabled); }

bool SignalBrowser::exportPage(const QString& path, QString* error) const {
  const QSize size = this->size();
  QString title = QStringLiteral("ModeScope");
  if (impl_->recording && !impl_->recording->sourcePath.empty()) {
    title += QStringLiteral(": ") + QString::fromStdString(impl_->recording->sourcePath);
  }
  return exportView(
      path, size, [this](QPainter& p, const QRect& area) { renderPage(p, area); }, title, error);
}

void SignalBrowser::setPageStart(double seconds) {
  const double s = impl_->clampStart(seconds);
  if (s == impl_->pageStart) return;
  impl_->pageStart = s;
  update();
  emit viewChanged();
}

void SignalBrowser::setPageLength(double seconds) {
  Impl& d = *impl_;
  const double l = d.clampLength(seconds);
  if (l == d.pageLength) return;
  d.pageLength = l;
  d.pageStart = d.clampStart(d.pageStart);
  update();
  emit viewChanged();
}

void SignalBrowser::setMicrovoltsPerDivision(double uv) {
  if (!std::isfinite(uv)) return;
  const double v = std::clamp(uv, kMinMicrovoltsPerDivision, kMaxMicrovoltsPerDivision);
  if (v == impl_->microvoltsPerDivision) return;
  impl_->microvoltsPerDivision = v;
  update();
  emit viewChanged();
}

void SignalBrowser::setFirstVisibleChannel(int index) {
  const int f = impl_->clampFirst(index);
  if (f == impl_->firstChannel) return;
  impl_->firstChannel = f;
  update();
  emit viewChanged();
}

void SignalBrowser::setVisibleChannelCount(int count) {
  Impl& d = *impl_;
  const int n = d.recording ? d.clampVisible(count) : std::max(1, count);
  if (n == d.visibleCount) return;
  d.visibleCount = n;
  d.firstChannel = d.clampFirst(d.firstChannel);
  update();
  emit viewChanged();
}

void SignalBrowser::setSelectedChannels(const std::vector<int>& channels) {
  Impl& d = *impl_;
  std::vector<int> s;
  for (int c : channels) {
    if (c >= 0 && c < d.channelCount()) s.push_back(c);
  }
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  if (s == d.selected) return;
  d.selected = std::move(s);
  update();
  emit selectionChanged();
}

void SignalBrowser::setMontage(const ReferenceSpec& montage) {
  const QString problem = impl_->applyMontage(montage);
  update();
  if (!problem.isEmpty()) emit displayProblem(problem);
  emit viewChanged();
}

void SignalBrowser::setDisplayFilter(std::optional<FilterSpec> filter) {
  setDisplayFilters(filter ? std::vector<FilterSpec>{*filter} : std::vector<FilterSpec>{});
}

std::vector<FilterSpec> SignalBrowser::displayFilters() const { return impl_->filters; }

void SignalBrowser::setDisplayFilters(std::vector<FilterSpec> chain) {
  const QString problem = impl_->applyFilters(chain);
  update();
  if (!problem.isEmpty()) emit displayProblem(problem);
  emit viewChanged();
}

void SignalBrowser::nextPage() { setPageStart(impl_->pageStart + impl_->pageLength); }
void SignalBrowser::previousPage() { setPageStart(impl_->pageStart - impl_->pageLength); }
void SignalBrowser::jumpTo(double seconds) { setPageStart(seconds - impl_->pageLength / 2); }

void SignalBrowser::zoomTime(double factor) {
  if (!(factor > 0)) return;
  // Zoom about the page centre, which is where the eye is.
  Impl& d = *impl_;
  const double centre = d.pageStart + d.pageLength / 2;
  const double length = d.clampLength(d.pageLength * factor);
  if (length == d.pageLength) return;
  d.pageLength = length;
  d.pageStart = d.clampStart(centre - length / 2);
  update();
  emit viewChanged();
}

void SignalBrowser::zoomAmplitude(double factor) {
  if (!(factor > 0)) return;
  setMicrovoltsPerDivision(impl_->microvoltsPerDivision * factor);
}

void SignalBrowser::paintEvent(QPaintEvent*) {
  QPainter p(this);
  renderPage(p, rect());
}

void SignalBrowser::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  update();  // the page cache is keyed by the width, so the next paint re-decimates
}

void SignalBrowser::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  // Some platforms turn shift+wheel into a horizontal wheel.
  const double notches = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0;
  if (notches == 0) return;
  const Qt::KeyboardModifiers mods = event->modifiers();
  if (mods & Qt::ControlModifier) {
    zoomAmplitude(std::pow(kAmplitudeStep, -notches));  // wheel up: larger traces
  } else if (mods & Qt::ShiftModifier) {
    Impl& d = *impl_;
    d.channelWheelRemainder += notches;
    const int whole = static_cast<int>(d.channelWheelRemainder);
    d.channelWheelRemainder -= whole;
    if (whole != 0) setFirstVisibleChannel(d.firstChannel - whole);
  } else {
    // Wheel down (negative) moves forward in time, as a page scrolls down.
    setPageStart(impl_->pageStart - notches * kWheelStepFraction * impl_->pageLength);
  }
  event->accept();
}

void SignalBrowser::keyPressEvent(QKeyEvent* event) {
  Impl& d = *impl_;
  switch (event->key()) {
    case Qt::Key_Left:
      setPageStart(d.pageStart - kArrowStepFraction * d.pageLength);
      break;
    case Qt::Key_Right:
      setPageStart(d.pageStart + kArrowStepFraction * d.pageLength);
      break;
    case Qt::Key_PageUp:
      previousPage();
      break;
    case Qt::Key_PageDown:
      nextPage();
      break;
    case Qt::Key_Up:
      setFirstVisibleChannel(d.firstChannel - 1);
      break;
    case Qt::Key_Down:
      setFirstVisibleChannel(d.firstChannel + 1);
      break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomAmplitude(1.0 / kAmplitudeStep);
      break;
    case Qt::Key_Minus:
      zoomAmplitude(kAmplitudeStep);
      break;
    case Qt::Key_Home:
      setPageStart(0.0);
      break;
    case Qt::Key_End:
      setPageStart(d.duration());
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  event->accept();
}

namespace {
// The channel whose label is under `pos`, or -1.
int labelHit(const QWidget& w, int rows, int first, QPointF pos) {
  const auto layout =
      browser::BrowserLayout::compute(QRectF(w.rect()), rows, QFontMetricsF(w.font()));
  if (pos.x() < layout.labels.left() || pos.x() >= layout.labels.right()) return -1;
  const int row = layout.rowAt(pos.y());
  return row < 0 ? -1 : first + row;
}
}  // namespace

void SignalBrowser::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  const int c = labelHit(*this, impl_->rows(), impl_->firstChannel, event->position());
  if (c < 0) return QWidget::mousePressEvent(event);
  std::vector<int> s = impl_->selected;
  if (event->modifiers() & Qt::ControlModifier) {
    auto it = std::find(s.begin(), s.end(), c);
    if (it != s.end())
      s.erase(it);
    else
      s.push_back(c);
  } else {
    s = {c};
  }
  setSelectedChannels(s);
  event->accept();
}

void SignalBrowser::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mouseDoubleClickEvent(event);
  const int c = labelHit(*this, impl_->rows(), impl_->firstChannel, event->position());
  if (c < 0) return QWidget::mouseDoubleClickEvent(event);
  emit channelActivated(c);
  event->accept();
}

}  // namespace modescope
