// The live replay window (contract in replay_window.h).
#include "app/gui/replay_window.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "app/core/gpu_backend.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/result_dock.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/ar/ar_params.h"
#include "engine/core/error.h"
#include "widgets/page_export.h"
#include "widgets/scalp_map_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

// The replayed channels: those at the first EEG channel's rate (all channels of the first one's
// rate when none is typed EEG), leaving out annotation/status channels (STIM).
std::vector<std::size_t> replayChannels(const Recording& rec) {
  std::vector<std::size_t> out;
  std::size_t first = rec.channelCount();
  for (std::size_t c = 0; c < rec.channelCount(); ++c)
    if (rec.channels[c].type == ChannelType::EEG) {
      first = c;
      break;
    }
  const bool eegOnly = first < rec.channelCount();
  if (!eegOnly) first = 0;
  if (rec.channelCount() == 0) return out;
  const double fs = rec.channels[first].sampleRate;
  for (std::size_t c = 0; c < rec.channelCount(); ++c) {
    const ChannelInfo& ch = rec.channels[c];
    if (ch.sampleRate != fs || ch.type == ChannelType::STIM) continue;
    if (eegOnly && ch.type != ChannelType::EEG) continue;
    out.push_back(c);
  }
  return out;
}

const double kSpeeds[] = {1.0, 2.0, 4.0, 0.0};

}  // namespace

ReplayWindow::ReplayWindow(std::shared_ptr<const Recording> recording, const QString& title,
                           BackendChoice backend, SignalBrowser* browser, QWidget* parent)
    : QWidget(parent, Qt::Window), recording_(std::move(recording)), browser_(browser) {
  setObjectName(QStringLiteral("replayWindow"));
  setWindowTitle(tr("Live replay (AR features): %1").arg(title));
  channels_ = replayChannels(*recording_);
  std::string note;
  try {
    backend_ = chooseBackend(backend, &note);
  } catch (const Error& e) {
    // CUDA forced but unavailable: the replay still runs, on the CPU.
    note = e.what();
    backend_ = makeCpuBackend(0);
  }
  buildUi(title);
  // Kept for the window's life: a rebuild clears problem_, but why the replay runs on the CPU
  // stays true (and visible in the status line) until the window closes.
  if (!note.empty()) backendNote_ = QString::fromStdString(note);
  rebuildReplay();
  if (!backendNote_.isEmpty() && status_->text().isEmpty()) status_->setText(backendNote_);
}

ReplayWindow::~ReplayWindow() {
  runner_.reset();  // joins the runner's thread before the backend and the views go
}

ReplayWindow* ReplayWindow::showFor(Workspace& workspace, WorkflowHost& host) {
  const Document* doc = workspace.currentDocument();
  if (!doc || !doc->recording) return nullptr;
  QMainWindow* window = host.hostWindow();
  for (ReplayWindow* w : window->findChildren<ReplayWindow*>()) {
    if (w->recording_ == doc->recording) {
      w->show();
      w->raise();
      w->activateWindow();
      return w;
    }
  }
  auto* w = new ReplayWindow(doc->recording, doc->title, workspace.engine()->backendChoice(),
                             browserAt(host, workspace.currentIndex()), window);
  w->setAttribute(Qt::WA_DeleteOnClose);
  w->resize(1100, 620);
  w->show();
  return w;
}

void ReplayWindow::buildUi(const QString& title) {
  auto* root = new QVBoxLayout(this);

  // Row 1: transport and the pipeline's configuration.
  auto* controls = new QHBoxLayout;
  playButton_ = new QPushButton(tr("Play"), this);
  playButton_->setObjectName(QStringLiteral("replayPlay"));
  playButton_->setCheckable(true);
  connect(playButton_, &QPushButton::toggled, this, [this](bool on) {
    if (updatingControls_) return;
    on ? play() : pause();
  });
  controls->addWidget(playButton_);

  auto addLabelled = [&](const QString& label, QWidget* w) {
    controls->addWidget(new QLabel(label, this));
    controls->addWidget(w);
  };
  speed_ = new QComboBox(this);
  speed_->setObjectName(QStringLiteral("replaySpeed"));
  speed_->addItems({tr("1x"), tr("2x"), tr("4x"), tr("max")});
  speed_->setToolTip(
      tr("Replay speed against the recording's time; max: as fast as the "
         "computation allows (no pacing)"));
  connect(speed_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (runner_ && i >= 0) runner_->setSpeed(kSpeeds[i]);
  });
  addLabelled(tr("Speed"), speed_);

  blockMs_ = new QSpinBox(this);
  blockMs_->setObjectName(QStringLiteral("replayBlock"));
  blockMs_->setRange(5, 1000);
  blockMs_->setValue(50);
  blockMs_->setSuffix(tr(" ms"));
  blockMs_->setToolTip(tr("Block length: one update per block (BCI2000 and the seed use 50 ms)"));
  connect(blockMs_, &QSpinBox::editingFinished, this, [this] { rebuildReplay(); });
  addLabelled(tr("Block"), blockMs_);

  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("replayPreset"));
  for (const BurgArPreset& p : burgArPresets()) {
    preset_->addItem(QString::fromStdString(p.name), QString::fromStdString(p.name));
    preset_->setItemData(preset_->count() - 1, QString::fromStdString(p.description),
                         Qt::ToolTipRole);
  }
  connect(preset_, &QComboBox::currentIndexChanged, this, [this] { rebuildReplay(); });
  addLabelled(tr("Preset"), preset_);

  filter_ = new QComboBox(this);
  filter_->setObjectName(QStringLiteral("replayFilter"));
  filter_->addItems(
      {tr("None"), tr("Common average (CAR)"), tr("Small Laplacian"), tr("Large Laplacian")});
  filter_->setCurrentIndex(1);
  connect(filter_, &QComboBox::currentIndexChanged, this, [this] { rebuildReplay(); });
  addLabelled(tr("Spatial filter"), filter_);

  bandLow_ = new QDoubleSpinBox(this);
  bandHigh_ = new QDoubleSpinBox(this);
  for (QDoubleSpinBox* s : {bandLow_, bandHigh_}) {
    s->setRange(0.0, 2000.0);
    s->setDecimals(1);
    s->setSuffix(tr(" Hz"));
    connect(s, &QDoubleSpinBox::editingFinished, this, [this] { rebuildReplay(); });
  }
  bandLow_->setValue(8.0);
  bandHigh_->setValue(12.0);
  bandLow_->setToolTip(
      tr("Band power: the mean of the bins whose centres lie in the band "
         "(8-12 Hz: the mu rhythm)"));
  addLabelled(tr("Band"), bandLow_);
  controls->addWidget(bandHigh_);

  channel_ = new QComboBox(this);
  channel_->setObjectName(QStringLiteral("replayChannel"));
  channel_->setToolTip(tr("The channel whose spectrum is drawn"));
  connect(channel_, &QComboBox::currentIndexChanged, this, [this] { yMax_ = yMin_ = 0.0; });
  addLabelled(tr("Spectrum of"), channel_);
  decibels_ = new QCheckBox(tr("dB"), this);
  decibels_->setObjectName(QStringLiteral("replayDecibels"));
  decibels_->setChecked(true);
  decibels_->setToolTip(
      tr("Spectrum in decibels: EEG spectra span orders of magnitude (and "
         "BCI2000's undetrended 0 Hz bin holds the DC offset)"));
  connect(decibels_, &QCheckBox::toggled, this, [this] { yMax_ = yMin_ = 0.0; });
  controls->addWidget(decibels_);

  auto* exportButton = new QPushButton(tr("Export..."), this);
  connect(exportButton, &QPushButton::clicked, this, [this] { chooseAndExport(); });
  controls->addStretch(1);
  controls->addWidget(exportButton);
  root->addLayout(controls);

  // Row 2: position.
  auto* where = new QHBoxLayout;
  position_ = new QSlider(Qt::Horizontal, this);
  position_->setObjectName(QStringLiteral("replayPosition"));
  connect(position_, &QSlider::sliderReleased, this, [this] { seek(position_->value() / 100.0); });
  positionLabel_ = new QLabel(this);
  positionLabel_->setMinimumWidth(150);
  follow_ = new QCheckBox(tr("Follow in browser"), this);
  follow_->setChecked(browser_ != nullptr);
  follow_->setEnabled(browser_ != nullptr);
  where->addWidget(new QLabel(tr("Position"), this));
  where->addWidget(position_, 1);
  where->addWidget(positionLabel_);
  where->addWidget(follow_);
  root->addLayout(where);

  // Views: spectrum | band-power map.
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->hide();
  series_ = new QLineSeries(chart);
  chart->addSeries(series_);
  xAxis_ = new QValueAxis(chart);
  yAxis_ = new QValueAxis(chart);
  xAxis_->setTitleText(tr("Frequency (Hz)"));
  chart->addAxis(xAxis_, Qt::AlignBottom);
  chart->addAxis(yAxis_, Qt::AlignLeft);
  series_->attachAxis(xAxis_);
  series_->attachAxis(yAxis_);
  QPen pen = series_->pen();
  pen.setWidthF(2.0);
  series_->setPen(pen);
  series_->setPointsVisible(true);
  chartView_ = new QChartView(chart, split);
  chartView_->setObjectName(QStringLiteral("replaySpectrum"));
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumSize(360, 300);
  map_ = new ScalpMapView(split);
  map_->setObjectName(QStringLiteral("replayMap"));
  map_->setSymmetricScale(false);  // band power is positive: a sequential scale
  map_->setShowContours(true);
  map_->setMinimumSize(300, 300);
  split->addWidget(chartView_);
  split->addWidget(map_);
  chartView_->setMinimumWidth(480);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({560, 440});
  root->addWidget(split, 1);

  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("replayStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  root->addWidget(status_);
  Q_UNUSED(title);
}

ArReplayConfig ReplayWindow::currentConfig() const {
  ArReplayConfig cfg;
  cfg.channels = channels_;
  cfg.params = burgArPreset(preset_->currentData().toString().toStdString());
  cfg.blockSeconds = blockMs_->value() / 1000.0;
  cfg.bandLowHz = bandLow_->value();
  cfg.bandHighHz = bandHigh_->value();
  switch (filter_->currentIndex()) {
    case 1:
      cfg.filter =
          std::make_shared<SpatialFilter>(commonAverageReference(recording_->channels, channels_));
      break;
    case 2:
      cfg.filter = std::make_shared<SpatialFilter>(
          surfaceLaplacian(recording_->channels, channels_, LaplacianSize::Small));
      break;
    case 3:
      cfg.filter = std::make_shared<SpatialFilter>(
          surfaceLaplacian(recording_->channels, channels_, LaplacianSize::Large));
      break;
    default:
      break;
  }
  return cfg;
}

void ReplayWindow::rebuildReplay() {
  double at = 0.0;
  bool wasPlaying = false;
  if (runner_) {
    at = runner_->position();
    wasPlaying = runner_->playing();
    runner_.reset();
  }
  std::unique_ptr<ArReplay> replay;
  try {
    replay = std::make_unique<ArReplay>(recording_, currentConfig(), *backend_);
  } catch (const Error& e) {
    showError(QString::fromStdString(e.what()));
    updatingControls_ = true;
    playButton_->setChecked(false);
    playButton_->setEnabled(false);
    updatingControls_ = false;
    return;
  }
  problem_.clear();
  playButton_->setEnabled(true);
  outputs_ = replay->outputChannels();
  binCenters_ = replay->binCenters();
  layout_ = scalpLayout(outputs_);
  interpolator_.reset();
  try {
    if (layout_.positions.size() >= 3)
      interpolator_ = sharedScalpInterpolator(layout_.positions, layout_.headPolarDegrees);
  } catch (const Error&) {
    // ScalpMapView::setMap explains why there is no map (duplicated positions, too few).
  }
  yMax_ = yMin_ = 0.0;
  xAxis_->setRange(binCenters_.empty() ? 0.0 : std::min(0.0, binCenters_.front()),
                   binCenters_.empty() ? 1.0 : binCenters_.back());

  const QString previous = channel_->currentText();
  {
    QSignalBlocker block(channel_);
    channel_->clear();
    for (const ChannelInfo& c : outputs_) channel_->addItem(QString::fromStdString(c.name));
    int index = channel_->findText(previous);
    if (index < 0) index = channel_->findText(QStringLiteral("C3"));
    channel_->setCurrentIndex(std::max(index, 0));
  }
  position_->setRange(0, static_cast<int>(std::lround(replay->duration() * 100.0)));

  runner_ = std::make_unique<ArReplayRunner>(
      std::move(replay), [this](const ArReplayFrame& f, const ArReplayStats& s) { onFrame(f, s); },
      [this](const std::string& message) {
        QMetaObject::invokeMethod(
            this, [this, m = QString::fromStdString(message)] { showError(m); },
            Qt::QueuedConnection);
      },
      [this] {
        QMetaObject::invokeMethod(
            this,
            [this] {
              updatingControls_ = true;
              playButton_->setChecked(false);
              updatingControls_ = false;
            },
            Qt::QueuedConnection);
      });
  runner_->setSpeed(kSpeeds[std::max(0, speed_->currentIndex())]);
  runner_->seek(at);
  if (wasPlaying) runner_->play();
}

void ReplayWindow::play() {
  if (!runner_) return;
  runner_->play();
  updatingControls_ = true;
  playButton_->setChecked(true);
  playButton_->setText(tr("Pause"));
  updatingControls_ = false;
}

void ReplayWindow::pause() {
  if (!runner_) return;
  runner_->pause();
  updatingControls_ = true;
  playButton_->setChecked(false);
  playButton_->setText(tr("Play"));
  updatingControls_ = false;
}

bool ReplayWindow::playing() const { return runner_ && runner_->playing(); }

void ReplayWindow::setSpeed(double speed) {
  for (int i = 0; i < 4; ++i)
    if (kSpeeds[i] == (speed > 0 && std::isfinite(speed) ? speed : 0.0)) speed_->setCurrentIndex(i);
}

void ReplayWindow::seek(double seconds) {
  if (runner_) runner_->seek(seconds);
}

void ReplayWindow::setFilterChoice(int index) { filter_->setCurrentIndex(index); }

void ReplayWindow::setDecibels(bool on) { decibels_->setChecked(on); }

ArReplayStats ReplayWindow::stats() const { return runner_ ? runner_->stats() : ArReplayStats{}; }

QString ReplayWindow::statusText() const { return status_->text(); }

QString ReplayWindow::problem() const { return problem_; }

QChart* ReplayWindow::spectrumChart() const { return chartView_->chart(); }

void ReplayWindow::onFrame(const ArReplayFrame& frame, const ArReplayStats& stats) {
  ++framesReceived_;
  {
    std::lock_guard lock(pendingMutex_);
    pendingFrame_ = frame;  // a newer frame replaces one not drawn yet
    pendingStats_ = stats;
  }
  if (!redrawQueued_.exchange(true)) {
    const int q = ++queued_;
    int seen = maxQueued_.load();
    while (q > seen && !maxQueued_.compare_exchange_weak(seen, q)) {
    }
    QMetaObject::invokeMethod(
        this, [this] { applyLatest(); }, Qt::QueuedConnection);
  }
}

void ReplayWindow::applyLatest() {
  std::optional<ArReplayFrame> frame;
  ArReplayStats stats;
  {
    std::lock_guard lock(pendingMutex_);
    frame.swap(pendingFrame_);
    stats = pendingStats_;
    --queued_;
    redrawQueued_ = false;
  }
  if (!frame) return;
  ++redraws_;
  lastReplayTime_ = frame->replayTime;
  shownStats_ = stats;

  const double duration = static_cast<double>(position_->maximum()) / 100.0;
  if (!position_->isSliderDown()) {
    QSignalBlocker block(position_);
    position_->setValue(static_cast<int>(std::lround(frame->replayTime * 100.0)));
  }
  positionLabel_->setText(
      tr("%1 s / %2 s").arg(frame->replayTime, 0, 'f', 2).arg(duration, 0, 'f', 1));

  const std::string unit = outputs_.empty() ? std::string("uV") : outputs_.front().unit;
  const BurgArParams params = burgArPreset(preset_->currentData().toString().toStdString());
  if (frame->ready && !outputs_.empty()) {
    const std::size_t bins = binCenters_.size();
    const auto c = static_cast<std::size_t>(std::max(0, channel_->currentIndex()));
    const bool db = decibels_->isChecked();
    // Power is a square quantity (10 log10), amplitude a root-power one (20 log10).
    const double dbFactor = params.output == ArOutput::Amplitude ? 20.0 : 10.0;
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(bins));
    double peak = -std::numeric_limits<double>::infinity();
    double low = std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; b < bins && c < outputs_.size(); ++b) {
      double v = frame->values[c * bins + b];
      if (db) {
        if (!(v > 0)) continue;  // a flat output has no spectrum to draw in dB
        v = dbFactor * std::log10(v);
      }
      points.append(QPointF(binCenters_[b], v));
      peak = std::max(peak, v);
      low = std::min(low, v);
    }
    series_->replace(points);
    // The axis grows at once and shrinks slowly, so it does not jump with every block.
    const QString valueUnit = QString::fromStdString(arValueUnit(params.output, unit));
    if (points.isEmpty()) {
      yAxis_->setRange(0.0, 1.0);
    } else if (db) {
      const bool fresh = yMax_ == yMin_;
      yMax_ = fresh || peak + 3 > yMax_ ? peak + 3 : std::max(peak + 3, yMax_ - 0.3);
      yMin_ = fresh || low - 3 < yMin_ ? low - 3 : std::min(low - 3, yMin_ + 0.3);
      yAxis_->setRange(yMin_, yMax_);
      yAxis_->setTitleText(tr("dB re 1 %1").arg(valueUnit));
    } else {
      yMax_ = peak > yMax_ ? 1.15 * peak : std::max(1.15 * peak, 0.97 * yMax_);
      yAxis_->setRange(0.0, yMax_ > 0 ? yMax_ : 1.0);
      yAxis_->setTitleText(valueUnit);
    }
    chartView_->chart()->setTitle(tr("AR spectrum of %1 at %2 s")
                                      .arg(channel_->currentText())
                                      .arg(frame->replayTime, 0, 'f', 2));

    const QString mapTitle = tr("%1-%2 Hz band power")
                                 .arg(bandLow_->value(), 0, 'g', 4)
                                 .arg(bandHigh_->value(), 0, 'g', 4);
    const QString mapUnit = QString::fromStdString(arValueUnit(ArOutput::Power, unit));
    if (interpolator_) {
      std::vector<double> mapped;
      mapped.reserve(layout_.mapped.size());
      for (std::size_t i : layout_.mapped) mapped.push_back(frame->bandPower[i]);
      map_->setInterpolated(outputs_, layout_, mapped, interpolator_->grid(mapped), mapTitle,
                            mapUnit);
    } else {
      map_->setMap(outputs_, frame->bandPower, mapTitle, mapUnit);
    }
  }

  QString text = QString::fromStdString(stats.describe());
  for (const QString& extra : {problem_, backendNote_})
    if (!extra.isEmpty()) text += QStringLiteral(" | ") + extra;
  status_->setText(text);

  if (browser_ && follow_->isChecked()) {
    const double start = browser_->pageStart(), length = browser_->pageLength();
    if (frame->replayTime < start || frame->replayTime > start + length)
      browser_->setPageStart(std::max(0.0, frame->replayTime - 0.1 * length));
  }
  emit frameShown();
}

void ReplayWindow::showError(const QString& message) {
  problem_ = message;
  status_->setText(message);
  updatingControls_ = true;
  playButton_->setChecked(false);
  playButton_->setText(tr("Play"));
  updatingControls_ = false;
  emit replayFailed(message);
}

bool ReplayWindow::exportFigure(const QString& which, const QString& path, QString* error) const {
  const QSize chartSize = chartView_->size();
  const QSize mapSize = map_->size();
  auto drawChart = [this](QPainter& p, const QRect& area) {
    chartView_->render(&p, QRectF(area), chartView_->viewport()->rect());
  };
  auto drawMap = [this](QPainter& p, const QRect& area) { map_->render(p, area); };
  if (which == QLatin1String("spectrum"))
    return exportView(path, chartSize, drawChart, windowTitle(), error);
  if (which == QLatin1String("map"))
    return exportView(path, mapSize, drawMap, windowTitle(), error);
  if (which == QLatin1String("both")) {
    const QSize size(chartSize.width() + mapSize.width(),
                     std::max(chartSize.height(), mapSize.height()));
    return exportView(
        path, size,
        [&](QPainter& p, const QRect& area) {
          const int split = area.width() * chartSize.width() / std::max(1, size.width());
          drawChart(p, QRect(area.left(), area.top(), split, area.height()));
          drawMap(p, QRect(area.left() + split, area.top(), area.width() - split, area.height()));
        },
        windowTitle(), error);
  }
  if (error) *error = tr("Unknown figure '%1' (spectrum, map or both)").arg(which);
  return false;
}

void ReplayWindow::chooseAndExport() {
  QMenu menu(this);
  QAction* both = menu.addAction(tr("Spectrum and map..."));
  QAction* spectrum = menu.addAction(tr("Spectrum..."));
  QAction* map = menu.addAction(tr("Band-power map..."));
  QAction* chosen = menu.exec(QCursor::pos());
  if (!chosen) return;
  const QString which = chosen == both       ? QStringLiteral("both")
                        : chosen == spectrum ? QStringLiteral("spectrum")
                                             : QStringLiteral("map");
  const QString path = askFigurePath(this, chosen->text().remove(QStringLiteral("...")));
  if (path.isEmpty()) return;
  QString error;
  if (!exportFigure(which, path, &error)) showError(error);
  Q_UNUSED(map);
}

}  // namespace modescope
