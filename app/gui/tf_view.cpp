#include "app/gui/tf_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/tf_page_worker.h"
#include "engine/core/error.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/page_export.h"
#include "widgets/spectrum_pixel_writer.h"

namespace modescope {
namespace {

constexpr double kDefaultDbFloor = 50.0;  // dB below the page's peak power
constexpr int kDefaultRidges = 2;
// Before the first layout the plot width is unknown: about a laptop dock's half.
constexpr int kFallbackPixels = 700;

// The page's power grid as a spectrum view's grid: bins centred on their frequencies and columns
// on their samples.
SpectrumGrid gridOf(const TfPage& page, const std::vector<float>& power, const QString& unit) {
  SpectrumGrid g;
  g.rows = page.rows;
  g.cols = page.cols;
  g.values = power;
  for (int k = 0; k <= page.rows; ++k)
    g.frequencyEdges.push_back(std::max(0.0, page.firstHz + (k - 0.5) * page.binHz));
  const double half = 0.5 * page.hop / page.sampleRate;
  for (int c = 0; c <= page.cols; ++c) g.timeEdges.push_back(page.columnSeconds(c) - half);
  g.valueUnit = unit.isEmpty() ? QObject::tr("a.u.\u00b2") : unit + QStringLiteral("\u00b2");
  g.quantity = QObject::tr("Power");
  return g;
}

QLabel* smallLabel(const QString& text, QWidget* buddy) {
  auto* l = new QLabel(text);
  l->setBuddy(buddy);
  return l;
}

}  // namespace

TfView::TfView(std::shared_ptr<ComputeBackend> backend, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tfView"));
  worker_ = new TfPageWorker(std::move(backend), this);
  connect(worker_, &TfPageWorker::pageReady, this,
          [this](std::shared_ptr<const TfPage> page) { showPage(std::move(page)); });
  connect(worker_, &TfPageWorker::pageFailed, this, [this](const QString& message) {
    problem_ = message;
    updateStatus();
  });
  buildUi();
}

TfView::~TfView() = default;

void TfView::buildUi() {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* controls = new QWidget;
  auto* controlsLayout = new QVBoxLayout(controls);
  controlsLayout->setContentsMargins(0, 0, 0, 0);

  // The view's own controls.
  auto* top = new QHBoxLayout;
  display_ = new QComboBox;
  display_->setObjectName(QStringLiteral("tfDisplay"));
  display_->addItem(tr("Side by side"));
  display_->addItem(tr("Spectrogram"));
  display_->addItem(tr("Synchrosqueezed"));
  display_->setToolTip(
      tr("The spectrogram |F|^2 and the synchrosqueezed |T|^2 of the order "
         "chosen, side by side or one of them"));
  colour_ = new QComboBox;
  colour_->setObjectName(QStringLiteral("tfColour"));
  colour_->addItem(tr("Log (dB)"));
  colour_->addItem(tr("Linear"));
  dbFloor_ = new QDoubleSpinBox;
  dbFloor_->setObjectName(QStringLiteral("tfDbFloor"));
  dbFloor_->setRange(3, 200);
  dbFloor_->setDecimals(0);
  dbFloor_->setSingleStep(10);
  dbFloor_->setSuffix(tr(" dB"));
  dbFloor_->setValue(kDefaultDbFloor);
  dbFloor_->setToolTip(
      tr("Log colour: the colour bar reaches this far below the page's peak "
         "power; weaker bins are drawn in the lowest colour"));
  // The ridges' count, penalty and half-width are the readout's declarations (the CLI's
  // --ridges, --ridge-penalty, --ridge-width); reconstruction and storage are not the view's.
  readoutEditors_.build(tfReadoutParamTable(), this, QStringLiteral("tf"));
  for (const char* key : {"reconstruct", "complex"}) readoutEditors_.editor(key)->hide();
  TfReadoutParams readout;
  readout.ridges = kDefaultRidges;
  readoutEditors_.set(readout);
  export_ = new QPushButton(tr("Export figure..."));
  export_->setObjectName(QStringLiteral("tfExport"));
  reconstruct_ = new QPushButton(tr("Reconstruct ridges..."));
  reconstruct_->setObjectName(QStringLiteral("tfReconstructRidges"));
  reconstruct_->setToolTip(
      tr("The signal along each ridge of this page (hop 1), and what is "
         "left, as a new recording tab"));
  top->addWidget(smallLabel(tr("Show"), display_));
  top->addWidget(display_);
  top->addWidget(smallLabel(tr("Colour"), colour_));
  top->addWidget(colour_);
  top->addWidget(smallLabel(tr("Floor"), dbFloor_));
  top->addWidget(dbFloor_);
  for (const char* key : {"ridges", "ridgePenalty", "ridgeWidth"}) {
    const auto* field = tfReadoutParamTable().find(key);
    top->addWidget(
        smallLabel(QString::fromStdString(field->decl.label), readoutEditors_.editor(key)));
    top->addWidget(readoutEditors_.editor(key));
  }
  top->addStretch(1);
  top->addWidget(export_);
  top->addWidget(reconstruct_);
  controlsLayout->addLayout(top);

  // The declared parameters, two rows.
  editors_.build(tfParamTable(), this, QStringLiteral("tf"));
  fitHop_ = new QCheckBox(tr("fits the screen"));
  fitHop_->setObjectName(QStringLiteral("tfFitHop"));
  fitHop_->setChecked(true);
  fitHop_->setToolTip(
      tr("One column per screen pixel: the image is computed for what is on "
         "screen (the hop editor is used when this is off)"));
  auto* grid = new QGridLayout;
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(2);
  const char* rows[2][5] = {{"order", "window", "windowLength", "sigma", "fftLength"},
                            {"hop", "threshold", "minFrequency", "maxFrequency", nullptr}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 5 && rows[r][c]; ++c) {
      const auto* field = tfParamTable().find(rows[r][c]);
      QWidget* editor = editors_.editor(rows[r][c]);
      grid->addWidget(smallLabel(QString::fromStdString(field->decl.label), editor), r, 2 * c,
                      Qt::AlignRight);
      if (std::string(rows[r][c]) == "hop") {
        auto* both = new QHBoxLayout;
        both->addWidget(editor);
        both->addWidget(fitHop_);
        grid->addLayout(both, r, 2 * c + 1);
      } else {
        grid->addWidget(editor, r, 2 * c + 1);
      }
    }
  controlsLayout->addLayout(grid);
  // The controls scroll sideways rather than widen the dock (and the window) past the screen.
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("tfControls"));
  scroll->setWidget(controls);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFixedHeight(controls->sizeHint().height() +
                         scroll->horizontalScrollBar()->sizeHint().height());
  layout->addWidget(scroll);

  images_ = new QSplitter(Qt::Horizontal);
  spectrogram_ = new HilbertSpectrumView;
  spectrogram_->setObjectName(QStringLiteral("tfSpectrogram"));
  spectrogram_->setFigureTitle(tr("Spectrogram"));
  squeezed_ = new HilbertSpectrumView;
  squeezed_->setObjectName(QStringLiteral("tfSqueezed"));
  squeezed_->setFigureTitle(tr("Synchrosqueezed"));
  images_->addWidget(spectrogram_);
  images_->addWidget(squeezed_);
  spectrogram_->installEventFilter(this);
  squeezed_->installEventFilter(this);
  layout->addWidget(images_, 1);

  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("tfStatus"));
  status_->setWordWrap(true);  // an engine message may be long; it must not widen the window
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  readout_ = new QLabel;
  readout_->setObjectName(QStringLiteral("tfReadout"));
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(status_, 1);
  bottom->addWidget(readout_);
  layout->addLayout(bottom);

  editors_.set(base_);
  editors_.enableApplicable(base_);
  editors_.editor("hop")->setEnabled(false);
  editors_.onChanged(this, [this] {
    editors_.enableApplicable(params());
    editors_.editor("hop")->setEnabled(!fitHop_->isChecked());
    recompute();
  });
  connect(fitHop_, &QCheckBox::toggled, this, [this](bool on) {
    editors_.editor("hop")->setEnabled(!on);
    recompute();
  });
  connect(display_, &QComboBox::currentIndexChanged, this, [this] {
    spectrogram_->setVisible(display() != Display::Squeezed);
    squeezed_->setVisible(display() != Display::Spectrogram);
    recompute();
  });
  connect(colour_, &QComboBox::currentIndexChanged, this, [this] { applyColouring(); });
  connect(dbFloor_, &QDoubleSpinBox::valueChanged, this, [this] { applyColouring(); });
  readoutEditors_.onChanged(this, [this] { recompute(); });
  connect(export_, &QPushButton::clicked, this, &TfView::exportRequested);
  connect(reconstruct_, &QPushButton::clicked, this,
          [this] { emit reconstructRequested(modesRequest()); });
  for (HilbertSpectrumView* v : {spectrogram_, squeezed_}) {
    connect(v, &HilbertSpectrumView::cursorMoved, readout_, &QLabel::setText);
    connect(v, &HilbertSpectrumView::drawingPathChanged, this, [this] { updateStatus(); });
  }
  applyColouring();
}

void TfView::setPixelWriterFactory(
    const std::function<std::unique_ptr<SpectrumPixelWriter>()>& make) {
  spectrogram_->setPixelWriter(make());
  squeezed_->setPixelWriter(make());
}

void TfView::setBackend(std::shared_ptr<ComputeBackend> backend) {
  worker_->setBackend(std::move(backend));
  recompute();
}

void TfView::setSource(std::shared_ptr<const Recording> recording, std::size_t channel,
                       const QString& title) {
  recording_ = std::move(recording);
  channel_ = channel;
  title_ = title;
  recompute();
}

void TfView::setPage(double startSeconds, double seconds) {
  if (startSeconds == pageStart_ && seconds == pageSeconds_) return;
  pageStart_ = startSeconds;
  pageSeconds_ = seconds;
  recompute();
}

TfParams TfView::params() const {
  TfParams p = editors_.get(base_);
  if (fitHop_ && fitHop_->isChecked() && recording_ && channel_ < recording_->channelCount())
    p.hop = tfDisplayHop(recording_->channels[channel_].sampleRate, pageSeconds_, plotPixels());
  return p;
}

void TfView::setParams(const TfParams& p) {
  base_ = p;
  editors_.set(p);
  recompute();
}

void TfView::setOrder(TfOrder order) {
  TfParams p = editors_.get(base_);
  p.order = order;
  setParams(p);
}

void TfView::setDisplay(Display display) { display_->setCurrentIndex(static_cast<int>(display)); }

TfView::Display TfView::display() const { return static_cast<Display>(display_->currentIndex()); }

void TfView::setRidgeCount(int ridges) {
  TfReadoutParams r = readout();
  r.ridges = ridges;
  readoutEditors_.set(r);
}

int TfView::ridgeCount() const { return readout().ridges; }

TfReadoutParams TfView::readout() const { return readoutEditors_.get(); }
void TfView::setLogColour(bool log) { colour_->setCurrentIndex(log ? 0 : 1); }
void TfView::setDbFloor(double db) { dbFloor_->setValue(db); }

int TfView::plotPixels() const {
  const HilbertSpectrumView* v = display() == Display::Spectrogram ? spectrogram_ : squeezed_;
  const int w = static_cast<int>(v->plotRect().width());
  return v->isVisible() && w > 50 ? w : kFallbackPixels;
}

bool TfView::eventFilter(QObject* watched, QEvent* event) {
  // A new plot width (the dock resized, the splitter moved, one image shown instead of two)
  // changes the hop that fits the screen.
  if (event->type() == QEvent::Resize && fitHop_->isChecked() && recording_ &&
      params().hop != requestedHop_)
    recompute();
  return QWidget::eventFilter(watched, event);
}

QString TfView::problemText() const { return problem_; }

void TfView::recompute() {
  if (!recording_ || !worker_) return;
  const TfParams p = params();
  if (fitHop_->isChecked()) {
    // The hop editor shows the hop the screen gives (it is used as typed once unchecked).
    QWidget* hop = editors_.editor("hop");
    const QSignalBlocker block(hop);
    setParamEditorValue(hop, tfParamTable().find("hop")->decl, ParamValue(int64_t{p.hop}));
  }
  problem_ = editors_.problem(p);
  if (problem_.isEmpty()) problem_ = readoutEditors_.problem(readout());
  if (problem_.isEmpty()) {
    try {
      validateTfParams(p);
      tfReadoutParamTable().validate(readout());
    } catch (const std::exception& e) {
      problem_ = QString::fromUtf8(e.what());
    }
  }
  if (!problem_.isEmpty()) {
    updateStatus();
    return;
  }
  TfPageRequest request;
  request.channel = channel_;
  request.startSeconds = pageStart_;
  request.seconds = pageSeconds_;
  request.params = p;
  request.spectrogram = display() != Display::Squeezed;
  request.squeezed = display() != Display::Spectrogram;
  request.readout = readout();
  requestedHop_ = p.hop;
  worker_->request(recording_, request);
  updateStatus();
}

void TfView::showPage(std::shared_ptr<const TfPage> page) {
  // A page computed for another source than the one now shown (a late result) is dropped.
  if (!page || page->request.channel != channel_) return;
  page_ = std::move(page);
  problem_.clear();
  const QString unit = recording_ && channel_ < recording_->channelCount()
                           ? QString::fromStdString(recording_->channels[channel_].unit)
                           : QString();
  const bool squeezed = !page_->squeezed.empty();
  const QString order = QString::fromLatin1(tfOrderName(page_->request.params.order));
  spectrogram_->setGrid(page_->spectrogram.empty() ? SpectrumGrid{}
                                                   : gridOf(*page_, page_->spectrogram, unit));
  squeezed_->setFigureTitle(tr("Synchrosqueezed (order %1)").arg(order));
  squeezed_->setGrid(squeezed ? gridOf(*page_, page_->squeezed, unit) : SpectrumGrid{});
  // Ridges over the image they were found in.
  std::vector<QPolygonF> curves;
  for (const std::vector<int>& rows : page_->ridgeRows) {
    QPolygonF curve;
    curve.reserve(static_cast<int>(rows.size()));
    for (int c = 0; c < static_cast<int>(rows.size()); ++c)
      curve << QPointF(page_->columnSeconds(c), page_->rowHz(rows[static_cast<std::size_t>(c)]));
    curves.push_back(std::move(curve));
  }
  spectrogram_->setOverlayCurves(squeezed ? std::vector<QPolygonF>{} : curves);
  squeezed_->setOverlayCurves(squeezed ? curves : std::vector<QPolygonF>{});
  applyColouring();
  updateStatus();
  emit pageShown();
}

void TfView::applyColouring() {
  const bool log = colour_->currentIndex() == 0;
  dbFloor_->setEnabled(log);
  for (HilbertSpectrumView* v : {spectrogram_, squeezed_}) {
    // Power: 10 dB per decade.
    v->setLogDecades(dbFloor_->value() / 10.0);
    v->setColourScaleKind(log ? ColourScaleKind::Log : ColourScaleKind::Linear);
  }
}

QString TfView::statusText() const { return status_->text(); }

void TfView::updateStatus() {
  QString text;
  if (!problem_.isEmpty()) {
    status_->setStyleSheet(QStringLiteral("color: #b00020"));
    status_->setText(problem_);
    return;
  }
  status_->setStyleSheet({});
  if (page_) {
    const TfParams& p = page_->request.params;
    text = tr("%1 %2-%3 s: %4 columns x %5 bins (hop %6, %7 Hz per bin), order %8, %9 ms on %10")
               .arg(title_)
               .arg(page_->request.startSeconds, 0, 'f', 2)
               .arg(page_->request.startSeconds + page_->request.seconds, 0, 'f', 2)
               .arg(page_->cols)
               .arg(page_->rows)
               .arg(page_->hop)
               .arg(page_->binHz, 0, 'g', 3)
               .arg(QString::fromLatin1(tfOrderName(p.order)))
               .arg(page_->computeSeconds * 1000, 0, 'f', 0)
               .arg(QString::fromStdString(page_->backend));
    // How the image is drawn (and why not on the GPU) is a sentence: the tool tip.
    status_->setToolTip(
        (display() == Display::Spectrogram ? spectrogram_ : squeezed_)->drawingPath());
  } else {
    text = tr("Computing %1...").arg(title_);
  }
  status_->setText(text);
}

bool TfView::exportFigure(const QString& path, QString* error) const {
  std::vector<const HilbertSpectrumView*> shown;
  for (const HilbertSpectrumView* v : {spectrogram_, squeezed_})
    if (!v->isHidden()) shown.push_back(v);
  if (shown.empty()) {
    if (error) *error = tr("no image is shown");
    return false;
  }
  // Side by side at their on-screen sizes, a gap between them (the left one's colour bar title
  // would touch the right one's frequency title).
  constexpr int kGap = 16;
  int width = 0, height = 0;
  for (const HilbertSpectrumView* v : shown) {
    width += std::max(v->width(), 320) + (width > 0 ? kGap : 0);
    height = std::max(height, std::max(v->height(), 220));
  }
  const ViewRenderer render = [shown, width](QPainter& painter, const QRect& area) {
    painter.fillRect(area, shown.front()->palette().color(QPalette::Base));
    int x = area.left();
    for (const HilbertSpectrumView* v : shown) {
      const int w = area.width() * std::max(v->width(), 320) / std::max(width, 1);
      v->renderTo(painter, QRect(x, area.top(), w, area.height()));
      x += w + area.width() * kGap / std::max(width, 1);
    }
  };
  return exportView(path, QSize(width, height), render,
                    tr("Time-frequency: %1 %2-%3 s")
                        .arg(title_)
                        .arg(pageStart_, 0, 'f', 2)
                        .arg(pageStart_ + pageSeconds_, 0, 'f', 2),
                    error);
}

TfModesRequest TfView::modesRequest() const {
  TfModesRequest r;
  r.channel = channel_;
  r.startSeconds = pageStart_;
  r.seconds = pageSeconds_;
  r.params = params();
  r.params.hop = 1;
  r.readout = readout();
  r.readout.ridges = std::max(1, r.readout.ridges);
  return r;
}

}  // namespace modescope
