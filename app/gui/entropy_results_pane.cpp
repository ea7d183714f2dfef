#include "app/gui/entropy_results_pane.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "app/gui/error_presenter.h"
#include "app/gui/pane_figures.h"
#include "app/gui/result_dock.h"
#include "engine/core/text.h"
#include "engine/entropy/entropy_csv.h"
#include "engine/montage/channel_names.h"
#include "widgets/connectivity_scalp_view.h"
#include "widgets/matrix_heat_map.h"
#include "widgets/page_export.h"

namespace modescope {
namespace {

QString measureName(const EntropyParams& p) {
  return p.measure == EntropyMeasure::ApproximateEntropy ? QObject::tr("Cross-ApEn")
                                                         : QObject::tr("cross-SampEn");
}

QString number(double v) { return QString::fromStdString(formatNumber(v)); }

// The series the statistic sees: x z-scored by its own mean and SD (population or sample).
std::vector<double> zScored(const std::vector<float>& x, SdConvention sd) {
  const double n = static_cast<double>(x.size());
  double mean = 0.0;
  for (float v : x) mean += v;
  mean /= std::max(1.0, n);
  double ss = 0.0;
  for (float v : x) ss += (v - mean) * (v - mean);
  const double div = sd == SdConvention::Sample ? n - 1.0 : n;
  const double s = div > 0 ? std::sqrt(ss / div) : 0.0;
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = s > 0 ? (x[i] - mean) / s : 0.0;
  return out;
}

double meanWhere(const std::vector<double>& m, std::size_t c, bool diagonal) {
  double s = 0;
  int n = 0;
  for (std::size_t u = 0; u < c; ++u)
    for (std::size_t v = 0; v < c; ++v)
      if ((u == v) == diagonal && std::isfinite(m[u * c + v])) {
        s += m[u * c + v];
        ++n;
      }
  return n ? s / n : std::nan("");
}

}  // namespace

QString entropyComparisonProblem(const EntropyFileRecording& a, const EntropyFileRecording& b) {
  const EntropyMatrixResult& x = a.result;
  const EntropyMatrixResult& y = b.result;
  if (x.channelNames != y.channelNames) {
    auto list = [](const std::vector<std::string>& v) {
      QStringList l;
      for (const std::string& s : v) l << QString::fromStdString(s);
      return l.join(QStringLiteral(", "));
    };
    return QObject::tr(
               "The channels differ: A has %1 (%2), B has %3 (%4). Compute both with "
               "the same channels in the same order.")
        .arg(x.channelNames.size())
        .arg(list(x.channelNames))
        .arg(y.channelNames.size())
        .arg(list(y.channelNames));
  }
  const EntropyParams& p = x.params;
  const EntropyParams& q = y.params;
  QStringList diff;
  if (p.measure != q.measure)
    diff << QObject::tr("measure %1 vs %2")
                .arg(QLatin1String(entropyMeasureName(p.measure)),
                     QLatin1String(entropyMeasureName(q.measure)));
  if (p.m != q.m) diff << QObject::tr("m %1 vs %2").arg(p.m).arg(q.m);
  if (p.r != q.r) diff << QObject::tr("r %1 vs %2").arg(number(p.r), number(q.r));
  if (p.sd != q.sd)
    diff << QObject::tr("SD %1 vs %2")
                .arg(QLatin1String(sdConventionName(p.sd)), QLatin1String(sdConventionName(q.sd)));
  if (x.epochSamples != y.epochSamples)
    diff << QObject::tr("epoch %1 vs %2 samples").arg(x.epochSamples).arg(y.epochSamples);
  if (p.measure == EntropyMeasure::ApproximateEntropy && p.measure == q.measure && p.bias != q.bias)
    diff << QObject::tr("bias %1 vs %2")
                .arg(QLatin1String(apEnBiasName(p.bias)), QLatin1String(apEnBiasName(q.bias)));
  if (diff.isEmpty()) return {};
  return QObject::tr(
             "The parameters differ (%1): entropy values are comparable only at equal "
             "(m, r, N). Compute B with A's parameters.")
      .arg(diff.join(QStringLiteral("; ")));
}

EntropyResultsPane::EntropyResultsPane(std::shared_ptr<const Recording> recording,
                                       EntropyJobResult job, const QString& title, QWidget* parent)
    : QWidget(parent), recording_(std::move(recording)), job_(std::move(job)), title_(title) {
  setObjectName(QStringLiteral("entropyResultsPane"));
  const EntropyMatrixResult& r = result();
  const std::size_t c = r.channelCount();
  for (std::size_t i = 0; i < c; ++i) {
    const std::string name = i < r.channelNames.size() ? r.channelNames[i] : std::to_string(i + 1);
    names_ << QString::fromStdString(name);
    // Positions from the recording when it has them, else from the montage by name.
    ChannelInfo info;
    if (recording_ && r.channels[i] < recording_->channelCount()) {
      info = recording_->channels[r.channels[i]];
    } else {
      info.name = name;
      info.position = standardPosition(name);
      info.type = ChannelType::EEG;
    }
    mapChannels_.push_back(std::move(info));
  }

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("entropySummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  average_ = new QCheckBox(tr("Average over epochs"), this);
  average_->setObjectName(QStringLiteral("entropyAverage"));
  average_->setToolTip(tr("The mean over the epochs with a finite value (per entry)"));
  average_->setChecked(true);
  epochSpin_ = new QSpinBox(this);
  epochSpin_->setObjectName(QStringLiteral("entropyEpochSpin"));
  epochSpin_->setRange(1, std::max<int>(1, static_cast<int>(r.epochCount())));
  epochSpin_->setPrefix(tr("epoch "));
  epochSpin_->setSuffix(tr(" / %1").arg(r.epochCount()));
  epochSpin_->setToolTip(
      tr("The epoch shown (PageUp / PageDown step it); the signal view "
         "always shows this epoch"));
  epochSlider_ = new QSlider(Qt::Horizontal, this);
  epochSlider_->setObjectName(QStringLiteral("entropyEpochSlider"));
  epochSlider_->setRange(1, epochSpin_->maximum());
  mask_ = new QCheckBox(tr("Mask diagonal"), this);
  mask_->setObjectName(QStringLiteral("entropyMaskDiagonal"));
  mask_->setToolTip(
      tr("Hide the diagonal (ApEn / SampEn of each channel; ApEn is lower there "
         "because every template matches itself) so the colour scale shows the "
         "channel pairs"));
  compare_ = new QPushButton(tr("Compare with..."), this);
  compare_->setObjectName(QStringLiteral("entropyCompare"));
  compare_->setToolTip(
      tr("Load B (another result of this session, or an HDF5 file of "
         "modescope-cli xapen) and show A - B"));
  difference_ = new QCheckBox(tr("Show A - B"), this);
  difference_->setObjectName(QStringLiteral("entropyDifference"));
  difference_->setEnabled(false);
  auto* exportButton = new QPushButton(tr("Export"), this);
  exportButton->setObjectName(QStringLiteral("entropyExport"));
  auto* exportMenu = new QMenu(exportButton);
  exportMenu->addAction(tr("Matrix figure (PNG, SVG, PDF)..."), this,
                        [this] { chooseAndExport(QStringLiteral("matrix"), tr("matrix")); });
  exportMenu->addAction(tr("Scalp lines figure..."), this,
                        [this] { chooseAndExport(QStringLiteral("scalp"), tr("scalp lines")); });
  exportMenu->addAction(tr("Signals figure..."), this,
                        [this] { chooseAndExport(QStringLiteral("signals"), tr("signals")); });
  exportMenu->addAction(tr("All three..."), this,
                        [this] { chooseAndExport(QStringLiteral("all"), tr("entropy figure")); });
  exportMenu->addSeparator();
  exportMenu->addAction(tr("Matrices to HDF5..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export entropy matrices"),
                                                      QString(), tr("HDF5 (*.h5 *.hdf5)"));
    QString error;
    if (!path.isEmpty() && !exportHdf5(path, &error))
      showError(this, tr("Export failed"), tr("Could not write %1.").arg(path), error);
  });
  exportMenu->addAction(tr("Shown matrix to CSV..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the shown matrix"),
                                                      QString(), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error))
      showError(this, tr("Export failed"), tr("Could not write %1.").arg(path), error);
  });
  exportButton->setMenu(exportMenu);

  auto* controls = new QHBoxLayout;
  controls->addWidget(average_);
  controls->addWidget(epochSpin_);
  controls->addWidget(epochSlider_, 1);
  controls->addWidget(mask_);
  controls->addWidget(compare_);
  controls->addWidget(difference_);
  controls->addWidget(exportButton);

  map_ = new MatrixHeatMap(this);
  map_->setObjectName(QStringLiteral("entropyMatrix"));
  map_->setAxisTitles(tr("template channel (u)"), tr("target channel (v)"));
  map_->setValueName(measureName(r.params));
  map_->setFocusPolicy(Qt::StrongFocus);

  scalp_ = new ConnectivityScalpView(this);
  lineCount_ = new QSpinBox(this);
  lineCount_->setObjectName(QStringLiteral("entropyLineCount"));
  lineCount_->setRange(1, std::max<int>(1, static_cast<int>(c * (c - 1) / 2)));
  lineCount_->setValue(std::min(10, lineCount_->maximum()));
  lineCount_->setPrefix(tr("K = "));
  lineCount_->setToolTip(tr("How many channel pairs to draw"));
  pick_ = new QComboBox(this);
  pick_->setObjectName(QStringLiteral("entropyPick"));
  pick_->addItem(tr("lowest values (most synchronous)"),
                 static_cast<int>(ConnectivityScalpView::Pick::Lowest));
  pick_->addItem(tr("highest values (most asynchronous)"),
                 static_cast<int>(ConnectivityScalpView::Pick::Highest));
  pick_->setToolTip(
      tr("Lower Cross-ApEn means v repeats u's patterns more often (more "
         "synchrony); pairs are ranked by the mean of both directions"));
  scalp_->setLineCount(lineCount_->value());
  auto* scalpControls = new QHBoxLayout;
  scalpControls->addWidget(lineCount_);
  scalpControls->addWidget(pick_, 1);
  auto* scalpBox = new QWidget(this);
  auto* scalpLayout = new QVBoxLayout(scalpBox);
  scalpLayout->setContentsMargins(0, 0, 0, 0);
  scalpLayout->addLayout(scalpControls);
  scalpLayout->addWidget(scalp_, 1);

  chart_ = new QChart;
  chart_->setMargins(QMargins(4, 4, 4, 4));
  seriesU_ = new QLineSeries;
  seriesV_ = new QLineSeries;
  chart_->addSeries(seriesU_);
  chart_->addSeries(seriesV_);
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("time (s)"));
  axisY_ = new QValueAxis;
  axisY_->setTitleText(tr("z-score (SD)"));
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  for (QLineSeries* s : {seriesU_, seriesV_}) {
    s->attachAxis(axisX_);
    s->attachAxis(axisY_);
    QPen pen = s->pen();
    pen.setWidthF(1.2);
    s->setPen(pen);
  }
  chartView_ = new QChartView(chart_, this);
  chartView_->setObjectName(QStringLiteral("entropySignals"));
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumHeight(190);
  chart_->legend()->setAlignment(Qt::AlignTop);
  cellLabel_ = new QLabel(this);
  cellLabel_->setObjectName(QStringLiteral("entropyCellLabel"));
  cellLabel_->setWordWrap(true);
  cellLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  diagnostics_ = new QListWidget(this);
  diagnostics_->setObjectName(QStringLiteral("entropyDiagnostics"));
  for (const Diagnostic& d : r.diagnostics)
    diagnostics_->addItem(QStringLiteral("%1: %2").arg(QLatin1String(severityName(d.severity)),
                                                       QString::fromStdString(d.message)));
  diagnostics_->setVisible(diagnostics_->count() > 0);
  diagnostics_->setMaximumHeight(70);

  auto* signalBox = new QWidget(this);
  auto* signalLayout = new QVBoxLayout(signalBox);
  signalLayout->setContentsMargins(0, 0, 0, 0);
  signalLayout->addWidget(cellLabel_);
  signalLayout->addWidget(chartView_, 1);

  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(scalpBox);
  right->addWidget(signalBox);
  right->setStretchFactor(0, 1);
  right->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(map_);
  split->addWidget(right);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 4);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary_);
  layout->addLayout(controls);
  layout->addWidget(split, 1);
  layout->addWidget(diagnostics_);

  connect(average_, &QCheckBox::toggled, this, [this] { showMatrix(); });
  connect(epochSpin_, &QSpinBox::valueChanged, this, [this](int v) {
    if (filling_) return;
    setEpoch(v - 1);
  });
  connect(epochSlider_, &QSlider::valueChanged, this, [this](int v) {
    if (filling_) return;
    setEpoch(v - 1);
  });
  connect(mask_, &QCheckBox::toggled, this, [this] { showMatrix(); });
  connect(difference_, &QCheckBox::toggled, this, [this] { showMatrix(); });
  connect(compare_, &QPushButton::clicked, this, &EntropyResultsPane::askComparison);
  connect(map_, &MatrixHeatMap::cellSelected, this, [this](int u, int v) {
    if (filling_ || u < 0) return;
    row_ = u;
    col_ = v;
    showCell();
    emit currentCellChanged(u, v);
  });
  connect(lineCount_, &QSpinBox::valueChanged, scalp_, &ConnectivityScalpView::setLineCount);
  connect(pick_, &QComboBox::currentIndexChanged, this, [this] {
    scalp_->setPick(static_cast<ConnectivityScalpView::Pick>(pick_->currentData().toInt()));
  });

  showMatrix();
  // The first cell: the lowest off-diagonal average (the most synchronous pair), else (0, 0).
  int bu = c > 1 ? 0 : 0, bv = c > 1 ? 1 : 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t u = 0; u < c; ++u)
    for (std::size_t v = 0; v < c; ++v)
      if (u != v && std::isfinite(r.averageAt(u, v)) && r.averageAt(u, v) < best) {
        best = r.averageAt(u, v);
        bu = static_cast<int>(u);
        bv = static_cast<int>(v);
      }
  setCurrentCell(bu, bv);
}

EntropyResultsPane::~EntropyResultsPane() = default;

int EntropyResultsPane::epoch() const { return average_->isChecked() ? -1 : signalEpoch_; }

void EntropyResultsPane::setEpoch(int epoch) {
  const int count = static_cast<int>(result().epochCount());
  if (epoch >= count) epoch = count - 1;
  filling_ = true;
  if (epoch < 0) {
    average_->setChecked(true);
  } else {
    signalEpoch_ = epoch;
    epochSpin_->setValue(epoch + 1);
    epochSlider_->setValue(epoch + 1);
    average_->setChecked(false);
  }
  filling_ = false;
  showMatrix();
  emit epochChanged(this->epoch());
}

bool EntropyResultsPane::maskDiagonal() const { return mask_->isChecked(); }
void EntropyResultsPane::setMaskDiagonal(bool on) { mask_->setChecked(on); }
bool EntropyResultsPane::showsDifference() const {
  return difference_->isChecked() && comparison_.second;
}
void EntropyResultsPane::setShowDifference(bool on) { difference_->setChecked(on); }

void EntropyResultsPane::setCurrentCell(int u, int v) {
  const int c = static_cast<int>(result().channelCount());
  if (u < 0 || v < 0 || u >= c || v >= c) return;
  row_ = u;
  col_ = v;
  filling_ = true;
  map_->setSelectedCell(u, v);
  filling_ = false;
  showCell();
  emit currentCellChanged(u, v);
}

void EntropyResultsPane::setComparisonSources(
    std::function<std::vector<EntropyComparison>()> sources) {
  sources_ = std::move(sources);
}

std::vector<EntropyComparison> EntropyResultsPane::comparisonSources() const {
  std::vector<EntropyComparison> out;
  if (!sources_) return out;
  for (EntropyComparison& s : sources_())
    if (s.second && s.second != job_.run) out.push_back(std::move(s));
  return out;
}

bool EntropyResultsPane::setComparison(const EntropyComparison& other, QString* error) {
  if (!other.second) {
    if (error) *error = tr("No result to compare with");
    return false;
  }
  const QString problem = entropyComparisonProblem(*job_.run, *other.second);
  if (!problem.isEmpty()) {
    if (error) *error = problem;
    return false;
  }
  comparison_ = other;
  difference_->setEnabled(true);
  difference_->setToolTip(tr("A = this result, B = %1").arg(other.first));
  difference_->setChecked(true);
  showMatrix();
  return true;
}

bool EntropyResultsPane::loadComparisonFile(const QString& path, QString* error) {
  try {
    EntropyFile f = readEntropyFile(path.toStdString());
    if (f.recordings.empty())
      throw InvalidInputError(path.toStdString(), "/recordings", "no recording",
                              "at least one recording");
    auto run = std::make_shared<EntropyFileRecording>(std::move(f.recordings.front()));
    return setComparison({QFileInfo(path).fileName(), std::move(run)}, error);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

void EntropyResultsPane::askComparison() {
  QMenu menu(this);
  {
    for (const EntropyComparison& s : comparisonSources()) {
      menu.addAction(s.first, this, [this, s] {
        QString error;
        if (!setComparison(s, &error))
          showError(this, tr("Cannot compare"), tr("B cannot be subtracted from A."), error);
      });
    }
  }
  menu.addAction(tr("HDF5 file..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Entropy result B"), QString(),
                                                      tr("Entropy results (*.h5 *.hdf5);;All (*)"));
    QString error;
    if (!path.isEmpty() && !loadComparisonFile(path, &error))
      showError(this, tr("Cannot compare"), tr("%1 cannot be subtracted from A.").arg(path), error);
  });
  menu.exec(compare_->mapToGlobal(QPoint(0, compare_->height())));
}

void EntropyResultsPane::showMatrix() {
  const EntropyMatrixResult& r = result();
  const std::size_t c = r.channelCount();
  const int e = epoch();
  const bool diff = showsDifference();
  epochSpin_->setEnabled(r.epochCount() > 1);
  epochSlider_->setEnabled(r.epochCount() > 1);
  if (diff) {
    // The averages: the epochs of two recordings do not correspond.
    const EntropyMatrixResult& b = comparison_.second->result;
    shown_.assign(c * c, std::nan(""));
    for (std::size_t i = 0; i < c * c; ++i) shown_[i] = r.average[i] - b.average[i];
  } else if (e < 0) {
    shown_ = r.average;
  } else {
    const double* m = r.epochMatrix(static_cast<std::size_t>(e));
    shown_.assign(m, m + c * c);
  }
  std::vector<double> drawn = shown_;
  if (maskDiagonal())
    for (std::size_t u = 0; u < c; ++u) drawn[u * c + u] = std::nan("");
  const QString what = diff    ? tr("A - B, epoch averages")
                       : e < 0 ? tr("average of %1 epochs").arg(r.epochCount())
                               : tr("epoch %1 of %2").arg(e + 1).arg(r.epochCount());
  map_->setTitle(tr("%1 %2").arg(measureName(r.params), what));
  map_->setValueName(diff ? tr("\u0394 %1").arg(measureName(r.params)) : measureName(r.params));
  map_->setColourMode(diff ? MatrixHeatMap::ColourMode::Diverging
                           : MatrixHeatMap::ColourMode::Sequential);
  map_->setMatrix(static_cast<int>(c), static_cast<int>(c), drawn, names_, names_);
  if (row_ >= 0) {
    filling_ = true;
    map_->setSelectedCell(row_, col_);
    filling_ = false;
  }

  const EntropyParams& p = r.params;
  QString s = tr("<b>%1</b> m = %2, r = %3 SD (%4 SD), N = %5 samples (%6 s), %7 epochs, %8 "
                 "channels")
                  .arg(measureName(p))
                  .arg(p.m)
                  .arg(number(p.r), QLatin1String(sdConventionName(p.sd)))
                  .arg(r.epochSamples)
                  .arg(number(static_cast<double>(r.epochSamples) / r.sampleRate))
                  .arg(r.epochCount())
                  .arg(c);
  if (p.measure == EntropyMeasure::ApproximateEntropy)
    s += tr(", bias %1").arg(QLatin1String(apEnBiasName(p.bias)));
  s += tr("; mean diagonal %1, off-diagonal %2")
           .arg(number(meanWhere(shown_, c, true)), number(meanWhere(shown_, c, false)));
  if (diff) s += tr("; <b>B</b> = %1").arg(comparison_.first.toHtmlEscaped());
  if (!job_.backend.empty())
    s +=
        tr("; %1, %2 s").arg(QString::fromStdString(job_.backend)).arg(job_.wallSeconds, 0, 'g', 3);
  summary_->setText(s);
  showScalp();
  showCell();
}

void EntropyResultsPane::showScalp() {
  const EntropyMatrixResult& r = result();
  const bool diff = showsDifference();
  const int e = epoch();
  const QString what = diff ? tr("A - B") : e < 0 ? tr("average") : tr("epoch %1").arg(e + 1);
  scalp_->setMatrix(mapChannels_, shown_, tr("%1 pairs, %2").arg(measureName(r.params), what),
                    diff ? tr("\u0394") : measureName(r.params), diff);
}

void EntropyResultsPane::showCell() {
  const EntropyMatrixResult& r = result();
  const std::size_t c = r.channelCount();
  if (row_ < 0 || col_ < 0 || static_cast<std::size_t>(row_) >= c) return;
  const std::size_t u = static_cast<std::size_t>(row_), v = static_cast<std::size_t>(col_);
  const std::size_t e = static_cast<std::size_t>(
      std::clamp(signalEpoch_, 0, std::max(0, static_cast<int>(r.epochCount()) - 1)));
  const double shownValue = shown_.empty() ? std::nan("") : shown_[u * c + v];
  const double epochValue = r.epochCount() ? r.at(e, u, v) : std::nan("");
  const QString valueText = std::isfinite(shownValue) ? number(shownValue) : tr("no value");
  cellLabel_->setText(tr("<b>%1 \u2192 %2</b>: %3(%2||%1) = %4 (%5); in epoch %6: %7")
                          .arg(names_.value(row_), names_.value(col_), measureName(r.params),
                               valueText,
                               showsDifference() ? tr("A - B")
                               : epoch() < 0     ? tr("average")
                                                 : tr("this epoch"))
                          .arg(e + 1)
                          .arg(std::isfinite(epochValue) ? number(epochValue) : tr("no value")));
  seriesU_->setName(tr("%1 (template u)").arg(names_.value(row_)));
  seriesV_->setName(tr("%1 (target v)").arg(names_.value(col_)));
  if (!recording_ || r.epochCount() == 0) {
    seriesU_->clear();
    seriesV_->clear();
    chart_->setTitle(tr("signals not available (result read from a file)"));
    return;
  }
  const int64_t first = r.firstSample + r.epochStarts[e];
  const int64_t n = r.epochSamples;
  const double fs = r.sampleRate;
  double lo = 0, hi = 0;
  for (auto [series, ch] :
       {std::pair{seriesU_, r.channels[u]}, std::pair{seriesV_, r.channels[v]}}) {
    const std::vector<double> z = zScored(recording_->readChannel(ch, first, n), r.params.sd);
    QList<QPointF> points;
    points.reserve(static_cast<int>(z.size()));
    for (std::size_t k = 0; k < z.size(); ++k) {
      points.append(QPointF(static_cast<double>(first + static_cast<int64_t>(k)) / fs, z[k]));
      lo = std::min(lo, z[k]);
      hi = std::max(hi, z[k]);
    }
    series->replace(points);
  }
  axisX_->setRange(static_cast<double>(first) / fs, static_cast<double>(first + n - 1) / fs);
  axisY_->setRange(std::floor(lo), std::ceil(hi));
  chart_->setTitle(tr("Epoch %1 (%2-%3 s), z-scored; r = %4 SD")
                       .arg(e + 1)
                       .arg(number(static_cast<double>(first) / fs),
                            number(static_cast<double>(first + n) / fs), number(r.params.r)));
}

void EntropyResultsPane::keyPressEvent(QKeyEvent* event) {
  const int count = static_cast<int>(result().epochCount());
  if (event->key() == Qt::Key_PageDown || event->key() == Qt::Key_PageUp) {
    const int step = event->key() == Qt::Key_PageDown ? 1 : -1;
    setEpoch(std::clamp(signalEpoch_ + step, 0, std::max(0, count - 1)));
    return;
  }
  QWidget::keyPressEvent(event);
}

bool EntropyResultsPane::exportFigure(const QString& which, const QString& path,
                                      QString* error) const {
  MatrixScalpChartViews views;
  views.matrix = map_;
  views.matrixName = QStringLiteral("matrix");
  views.scalpSize = scalp_->size();
  views.scalp = [this](QPainter& p, const QRect& a) { scalp_->render(p, a); };
  views.scalpName = QStringLiteral("scalp");
  views.chart = chartView_;
  views.chartName = QStringLiteral("signals");
  return exportMatrixScalpChart(views, which, title_, path, error);
}

bool EntropyResultsPane::exportHdf5(const QString& path, QString* error) const {
  try {
    EntropyFile f;
    f.recordings.push_back(*job_.run);
    JobContext ctx;
    writeEntropyFile(path.toStdString(), f, ctx);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

bool EntropyResultsPane::exportCsv(const QString& path, QString* error) const {
  try {
    const std::string text = entropyMatrixCsv(result().channelNames, shown_);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()) ||
        !file.commit()) {
      if (error) *error = tr("%1: %2").arg(path, file.errorString());
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

void EntropyResultsPane::chooseAndExport(const QString& which, const QString& what) {
  chooseAndExportFigure(this, what, [this, which](const QString& path, QString* error) {
    return exportFigure(which, path, error);
  });
}

}  // namespace modescope
