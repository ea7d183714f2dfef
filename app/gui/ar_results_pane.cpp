#include "app/gui/ar_results_pane.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "app/gui/pane_figures.h"
#include "app/gui/result_dock.h"
#include "engine/core/text.h"
#include "widgets/matrix_heat_map.h"
#include "widgets/page_export.h"
#include "widgets/plot_axis.h"
#include "widgets/scalp_map_view.h"

namespace modescope {
namespace {

const QColor kClassA(31, 119, 180);  // blue
const QColor kClassB(214, 39, 40);   // red

QString hz(double f) { return QString::number(f, 'g', 4); }

QString lengthText(const ArLength& l) {
  return l.unit == ArLengthUnit::Seconds ? QStringLiteral("%1 s").arg(l.value)
                                         : QStringLiteral("%1 samples").arg(l.value);
}

// "r^2" and friends in the view's text: the superscript reads better than a caret.
QString pretty(const std::string& unit) {
  QString u = QString::fromStdString(unit);
  u.replace(QLatin1String("^2"), QStringLiteral("\u00b2"));
  return u;
}

QAreaSeries* makeBand(QChart* chart, const QColor& colour, const QString& name) {
  auto* area = new QAreaSeries;
  // Children of the area series, so they go with it (QAreaSeries does not delete them itself).
  area->setUpperSeries(new QLineSeries(area));
  area->setLowerSeries(new QLineSeries(area));
  QColor fill = colour;
  fill.setAlpha(55);
  area->setBrush(fill);
  area->setPen(Qt::NoPen);
  area->setName(name);
  chart->addSeries(area);
  return area;
}

QLineSeries* makeLine(QChart* chart, const QColor& colour, const QString& name, qreal width,
                      Qt::PenStyle style = Qt::SolidLine) {
  auto* line = new QLineSeries;
  line->setName(name);
  QPen pen(colour, width);
  pen.setStyle(style);
  line->setPen(pen);
  chart->addSeries(line);
  return line;
}

}  // namespace

ArResultsPane::ArResultsPane(std::shared_ptr<const Recording> recording, ArJobResult job,
                             ArJobSpec spec, const QString& title, QWidget* parent)
    : QWidget(parent),
      recording_(std::move(recording)),
      job_(std::move(job)),
      spec_(std::move(spec)),
      title_(title) {
  const EventR2Result& r = *job_.result;
  // Rows by name: the recording's channel (position, unit) where one matches, else a bare entry
  // that the scalp map lists as "not shown".
  std::string signalUnit;
  for (const std::string& name : r.rowNames) {
    const int idx = recording_->findChannel(name);
    ChannelInfo info;
    if (idx >= 0) {
      info = recording_->channels[static_cast<std::size_t>(idx)];
      if (signalUnit.empty()) signalUnit = info.unit;
    } else {
      info.name = info.label = name;
      info.type = ChannelType::EEG;
    }
    mapChannels_.push_back(std::move(info));
  }
  if (signalUnit.empty() && !r.channels.empty())
    signalUnit = recording_->channels[r.channels[0]].unit;
  unit_ = pretty(arValueUnit(r.output, signalUnit));

  map_ = new MatrixHeatMap(this);
  map_->setObjectName(QStringLiteral("arR2Map"));
  map_->setAxisTitles(
      spec_.filter == ArSpatialFilterKind::None ? tr("Channel") : tr("Channel (filtered)"),
      tr("Frequency (Hz)"));
  map_->setColumnUnit(tr("Hz"));
  scalp_ = new ScalpMapView(this);
  scalp_->setObjectName(QStringLiteral("arScalpMap"));
  scalp_->setShowContours(true);

  chart_ = new QChart;
  chart_->setAnimationOptions(QChart::NoAnimation);
  chart_->legend()->setAlignment(Qt::AlignBottom);
  QFont small = chart_->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart_->legend()->setFont(small);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  const QString a = QString::fromStdString(r.classA), b = QString::fromStdString(r.classB);
  bandA_ = makeBand(chart_, kClassA, tr("%1 \u00b11 SE").arg(a));
  bandB_ = makeBand(chart_, kClassB, tr("%1 \u00b11 SE").arg(b));
  meanA_ = makeLine(chart_, kClassA, tr("%1 mean (%2 trials)").arg(a).arg(r.trialsA), 2.0);
  meanB_ = makeLine(chart_, kClassB, tr("%1 mean (%2 trials)").arg(b).arg(r.trialsB), 2.0);
  marker_ = makeLine(chart_, QColor(90, 90, 90), tr("chosen bin"), 1.2, Qt::DashLine);
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("Frequency (Hz)"));
  axisX_->setLabelFormat(QStringLiteral("%g"));
  // The unit alone: the chart title says what it is, and a small chart has no room for more.
  const QString yTitle = unit_;
  axisY_ = new QValueAxis(this);
  axisY_->setTitleText(yTitle);
  axisY_->setLabelFormat(QStringLiteral("%.3g"));
  logY_ = new QLogValueAxis(this);
  logY_->setTitleText(yTitle);
  logY_->setLabelFormat(QStringLiteral("%.3g"));
  logY_->setBase(10.0);
  logY_->setMinorTickCount(-1);
  chart_->addAxis(axisX_, Qt::AlignBottom);
  for (QAbstractSeries* s : chart_->series()) s->attachAxis(axisX_);
  chartView_ = new QChartView(chart_, this);
  chartView_->setObjectName(QStringLiteral("arSpectra"));
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumSize(280, 200);

  quantity_ = new QComboBox(this);
  quantity_->setObjectName(QStringLiteral("arQuantity"));
  quantity_->addItem(tr("r\u00b2"));
  quantity_->addItem(tr("signed r\u00b2 (%1 > %2 positive)").arg(a, b));
  quantity_->setToolTip(
      tr("r\u00b2: the share of the feature's variance explained by the class (0..1). Signed "
         "r\u00b2 keeps the sign of mean(%1) - mean(%2), shown on a symmetric diverging scale.")
          .arg(a, b));
  logScale_ = new QCheckBox(tr("Log scale"), this);
  logScale_->setObjectName(QStringLiteral("arLogScale"));
  logScale_->setToolTip(
      tr("Spectra on a logarithmic value axis: EEG power falls by orders of magnitude from the "
         "lowest bins (where an undetrended offset also lands) to beta, so a linear axis hides "
         "the mu and beta bands"));
  bands_ = new QCheckBox(tr("\u00b11 SE bands"), this);
  bands_->setObjectName(QStringLiteral("arBands"));
  bands_->setChecked(true);
  bands_->setToolTip(tr("Shade mean \u00b1 one standard error of the mean over trials"));
  cellLabel_ = new QLabel(this);
  cellLabel_->setObjectName(QStringLiteral("arCellLabel"));
  auto* exportButton = new QToolButton(this);
  exportButton->setObjectName(QStringLiteral("arExport"));
  exportButton->setText(tr("Export figure"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportButton->setMenu(exportMenu);
  exportMenu->addAction(tr("r\u00b2 map..."), this,
                        [this] { chooseAndExport("map", tr("r\u00b2 map")); });
  exportMenu->addAction(tr("Scalp map..."), this,
                        [this] { chooseAndExport("scalp", tr("scalp map")); });
  exportMenu->addAction(tr("Spectra..."), this,
                        [this] { chooseAndExport("spectra", tr("spectra")); });
  exportMenu->addAction(tr("All three..."), this,
                        [this] { chooseAndExport("all", tr("r\u00b2 figure")); });
  addExportMenu(map_, QStringLiteral("map"), tr("r\u00b2 map"));
  addExportMenu(scalp_, QStringLiteral("scalp"), tr("scalp map"));
  addExportMenu(chartView_, QStringLiteral("spectra"), tr("spectra"));

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("arSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  const ArResolvedLengths n = resolveArLengths(spec_.params, r.sampleRate);
  const QString preset =
      spec_.presetName.empty() ? tr("custom") : QString::fromStdString(spec_.presetName);
  QString text =
      tr("<b>%1 vs %2</b>: %3 / %4 trials; %5, order %6, %7 windows (%8 samples) every %9, "
         "%10 Hz bins %11-%12 Hz, %13; spatial filter: %14; %15; %16 s")
          .arg(a, b)
          .arg(r.trialsA)
          .arg(r.trialsB)
          .arg(preset)
          .arg(spec_.params.order)
          .arg(lengthText(spec_.params.window))
          .arg(n.windowSamples)
          .arg(lengthText(spec_.params.step))
          .arg(hz(spec_.params.binWidth), hz(spec_.params.firstBinCenter),
               hz(spec_.params.lastBinCenter), QString::fromLatin1(arOutputName(r.output)),
               QString::fromStdString(job_.filterDescription), QString::fromStdString(job_.backend))
          .arg(job_.wallSeconds, 0, 'f', 2);
  summary_->setText(text);

  diagnostics_ = new QListWidget(this);
  diagnostics_->setObjectName(QStringLiteral("arDiagnostics"));
  diagnostics_->setToolTip(
      tr("What the run noticed: skipped trials, flat windows, reduced model "
         "orders"));
  for (const Diagnostic& d : r.diagnostics) {
    auto* item = new QListWidgetItem(QStringLiteral("%1: %2").arg(
        QString::fromLatin1(severityName(d.severity)), QString::fromStdString(d.message)));
    item->setToolTip(QString::fromStdString(d.code));
    if (d.severity == Severity::Warning) item->setForeground(QColor(170, 90, 0));
    diagnostics_->addItem(item);
  }
  if (r.diagnostics.empty()) diagnostics_->addItem(tr("No diagnostics: every trial was used."));
  // As many lines as there are findings, up to four (the list scrolls beyond).
  const int lines = std::clamp(diagnostics_->count(), 1, 4);
  diagnostics_->setMaximumHeight(diagnostics_->fontMetrics().height() * lines + 10);

  auto* bar = new QHBoxLayout;
  bar->addWidget(quantity_);
  bar->addWidget(logScale_);
  bar->addWidget(bands_);
  bar->addWidget(cellLabel_, 1);
  bar->addWidget(exportButton);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(scalp_);
  right->addWidget(chartView_);
  right->setStretchFactor(0, 4);
  right->setStretchFactor(1, 5);
  right->setSizes({400, 500});
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(map_);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({560, 440});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  layout->addWidget(summary_);
  layout->addWidget(diagnostics_);

  connect(map_, &MatrixHeatMap::cellSelected, this, [this](int row, int bin) {
    if (row == row_ && bin == bin_) return;
    row_ = row;
    bin_ = bin;
    showCell();
    emit currentCellChanged(row, bin);
  });
  connect(quantity_, &QComboBox::currentIndexChanged, this, [this] {
    showMap();
    showCell();
  });
  connect(logScale_, &QCheckBox::toggled, this, &ArResultsPane::setLogScale);
  connect(bands_, &QCheckBox::toggled, this, [this](bool on) {
    bandA_->setVisible(on);
    bandB_->setVisible(on);
  });

  setLogScale(r.output == ArOutput::Power);
  showMap();
  // Start where the classes differ most.
  std::size_t best = 0;
  for (std::size_t i = 1; i < r.r2.size(); ++i)
    if (r.r2[i] > r.r2[best]) best = i;
  if (!r.r2.empty() && r.binCount() > 0)
    setCurrentCell(static_cast<int>(best / r.binCount()), static_cast<int>(best % r.binCount()));
}

ArResultsPane::~ArResultsPane() = default;

bool ArResultsPane::isSigned() const { return quantity_->currentIndex() == 1; }

void ArResultsPane::setSigned(bool on) { quantity_->setCurrentIndex(on ? 1 : 0); }

bool ArResultsPane::isLogScale() const { return chart_->axes(Qt::Vertical).contains(logY_); }

void ArResultsPane::setLogScale(bool on) {
  if (logScale_->isChecked() != on) {
    logScale_->setChecked(on);  // comes back here through toggled
    return;
  }
  QAbstractAxis* want = on ? static_cast<QAbstractAxis*>(logY_) : axisY_;
  QAbstractAxis* other = on ? static_cast<QAbstractAxis*>(axisY_) : logY_;
  // Emptied first: the log axis warns about the linear view's zero and negative band edges
  // while it is attached; showCell() fills the series again for the new axis.
  for (QLineSeries* l : {meanA_, meanB_, marker_, bandA_->upperSeries(), bandA_->lowerSeries(),
                         bandB_->upperSeries(), bandB_->lowerSeries()})
    l->clear();
  if (chart_->axes(Qt::Vertical).contains(other)) {
    chart_->removeAxis(other);
    other->setParent(this);  // removeAxis hands ownership back
  }
  if (!chart_->axes(Qt::Vertical).contains(want)) {
    chart_->addAxis(want, Qt::AlignLeft);
    for (QAbstractSeries* s : chart_->series()) s->attachAxis(want);
  }
  showCell();
}

void ArResultsPane::setCurrentCell(int row, int bin) { map_->setSelectedCell(row, bin); }

void ArResultsPane::showMap() {
  const EventR2Result& r = *job_.result;
  QStringList rows, cols;
  for (const std::string& n : r.rowNames) rows << QString::fromStdString(n);
  for (double f : r.binCenters) cols << hz(f);
  const bool sign = isSigned();
  std::vector<double> values = sign ? r.signedR2 : r.r2;
  map_->setMatrix(static_cast<int>(r.channelCount()), static_cast<int>(r.binCount()),
                  std::move(values), rows, cols);
  map_->setValueName(sign ? tr("signed r\u00b2") : tr("r\u00b2"));
  map_->setUnit(QString());
  map_->setTitle(tr("%1 %2 vs %3")
                     .arg(sign ? tr("signed r\u00b2") : tr("r\u00b2"),
                          QString::fromStdString(r.classA), QString::fromStdString(r.classB)));
  if (sign) {
    map_->clearFixedRange();
    map_->setColourMode(MatrixHeatMap::ColourMode::Diverging);
  } else {
    // r^2 starts at 0 (no effect); the top is the largest value, so weak effects still show.
    double top = 0.0;
    for (double v : r.r2)
      if (std::isfinite(v)) top = std::max(top, v);
    map_->setColourMode(MatrixHeatMap::ColourMode::Sequential);
    map_->setFixedRange(0.0, top > 0 ? top : 1.0);
  }
}

double ArResultsPane::standardError(bool classA, int row, int bin) const {
  const ClassFeatures& f = classA ? job_.result->featuresA : job_.result->featuresB;
  const std::size_t n = f.trials.size();
  if (n < 2 || row < 0 || bin < 0) return std::numeric_limits<double>::quiet_NaN();
  double mean = 0.0;
  for (std::size_t t = 0; t < n; ++t)
    mean += f.at(t, static_cast<std::size_t>(row), static_cast<std::size_t>(bin));
  mean /= static_cast<double>(n);
  double ss = 0.0;
  for (std::size_t t = 0; t < n; ++t) {
    const double d = f.at(t, static_cast<std::size_t>(row), static_cast<std::size_t>(bin)) - mean;
    ss += d * d;
  }
  return std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
}

void ArResultsPane::showCell() {
  const EventR2Result& r = *job_.result;
  if (row_ < 0 || bin_ < 0 || static_cast<std::size_t>(row_) >= r.channelCount() ||
      static_cast<std::size_t>(bin_) >= r.binCount())
    return;
  const bool sign = isSigned();
  const QString rowName = QString::fromStdString(r.rowNames[static_cast<std::size_t>(row_)]);
  const double f = r.binCenters[static_cast<std::size_t>(bin_)];
  const double v = r.r2[r.index(static_cast<std::size_t>(row_), static_cast<std::size_t>(bin_))];
  const double sv =
      r.signedR2[r.index(static_cast<std::size_t>(row_), static_cast<std::size_t>(bin_))];
  cellLabel_->setText(tr("<b>%1</b> at <b>%2 Hz</b>: r\u00b2 = %3, signed r\u00b2 = %4")
                          .arg(rowName, hz(f))
                          .arg(v, 0, 'f', 3)
                          .arg(sv, 0, 'f', 3));

  // Scalp map of the chosen bin.
  std::vector<double> values(r.channelCount());
  for (std::size_t c = 0; c < r.channelCount(); ++c)
    values[c] = (sign ? r.signedR2 : r.r2)[r.index(c, static_cast<std::size_t>(bin_))];
  scalp_->setSymmetricScale(sign);
  scalp_->setMap(mapChannels_, values,
                 tr("%1 at %2 Hz").arg(sign ? tr("signed r\u00b2") : tr("r\u00b2"), hz(f)),
                 sign ? tr("signed r\u00b2") : tr("r\u00b2"));

  // Spectra of the chosen row.
  QList<QPointF> a, b, aHi, aLo, bHi, bLo;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t k = 0; k < r.binCount(); ++k) {
    const double x = r.binCenters[k];
    const double ma = r.meanA[r.index(static_cast<std::size_t>(row_), k)];
    const double mb = r.meanB[r.index(static_cast<std::size_t>(row_), k)];
    double sa = standardError(true, row_, static_cast<int>(k));
    double sb = standardError(false, row_, static_cast<int>(k));
    if (!std::isfinite(sa)) sa = 0.0;
    if (!std::isfinite(sb)) sb = 0.0;
    a << QPointF(x, ma);
    b << QPointF(x, mb);
    aHi << QPointF(x, ma + sa);
    aLo << QPointF(x, ma - sa);
    bHi << QPointF(x, mb + sb);
    bLo << QPointF(x, mb - sb);
    for (double y : {ma + sa, ma - sa, mb + sb, mb - sb}) {
      if (!std::isfinite(y)) continue;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
  }
  double yLo = 0.0, yHi = 1.0;
  if (isLogScale()) {
    // A log axis needs positive values: band edges at or below zero (a mean within one SE of 0)
    // and zero means (flat channels) are drawn at a tenth of the smallest positive mean; the
    // axis spans whole decades.
    double floor = std::numeric_limits<double>::infinity(), top = 0.0;
    for (const QList<QPointF>* l : {&a, &b}) {
      for (const QPointF& q : *l) {
        if (q.y() > 0 && std::isfinite(q.y())) floor = std::min(floor, q.y());
      }
    }
    floor = std::isfinite(floor) ? floor / 10.0 : 1e-3;
    for (QList<QPointF>* l : {&aLo, &bLo, &a, &b})
      for (QPointF& q : *l)
        if (!(q.y() > floor)) q.setY(floor);
    for (const QList<QPointF>* l : {&aHi, &bHi, &a, &b})
      for (const QPointF& q : *l)
        if (std::isfinite(q.y())) top = std::max(top, q.y());
    double least = std::numeric_limits<double>::infinity();
    for (const QList<QPointF>* l : {&aLo, &bLo})
      for (const QPointF& q : *l) least = std::min(least, q.y());
    yLo = std::pow(10.0, std::floor(std::log10(least)));
    yHi = std::pow(10.0, std::ceil(std::log10(std::max(top, least * 10.0))));
  } else if (lo <= hi) {
    // Power is never negative: the axis starts at 0 unless a band reaches below (it then shows).
    const double pad = (hi - lo) * 0.05 + (hi == lo ? 1.0 : 0.0);
    yLo = lo >= 0 ? std::max(0.0, lo - pad) : lo - pad;
    yHi = hi + pad;
  }
  meanA_->replace(a);
  meanB_->replace(b);
  bandA_->upperSeries()->replace(aHi);
  bandA_->lowerSeries()->replace(aLo);
  bandB_->upperSeries()->replace(bHi);
  bandB_->lowerSeries()->replace(bLo);
  if (isLogScale()) {
    logY_->setRange(yLo, yHi);
  } else {
    axisY_->setRange(yLo, yHi);
  }
  const double xLo = r.binCenters.front(), xHi = r.binCenters.back();
  axisX_->setRange(xLo, xHi > xLo ? xHi : xLo + 1.0);
  // Round ticks (0, 5, 10 ... Hz) rather than the axis' equal fifths (7.5, 22.5).
  axisX_->setTickType(QValueAxis::TicksDynamic);
  axisX_->setTickAnchor(0.0);
  axisX_->setTickInterval(niceCeil(std::max(xHi - xLo, 1.0) / 6.0));
  marker_->replace(QList<QPointF>{QPointF(f, yLo), QPointF(f, yHi)});
  marker_->setName(tr("chosen bin %1 Hz").arg(hz(f)));
  chart_->setTitle(tr("%1 at %2: %3 vs %4")
                       .arg(r.output == ArOutput::Amplitude ? tr("Amplitude") : tr("Power"),
                            rowName, QString::fromStdString(r.classA),
                            QString::fromStdString(r.classB)));
}

void ArResultsPane::addExportMenu(QWidget* view, const QString& which, const QString& what) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view, &QWidget::customContextMenuRequested, this,
          [this, view, which, what](const QPoint& pos) {
            QMenu menu(this);
            menu.addAction(tr("Export %1 (PNG, SVG, PDF)...").arg(what), this,
                           [this, which, what] { chooseAndExport(which, what); });
            menu.exec(view->mapToGlobal(pos));
          });
}

bool ArResultsPane::exportFigure(const QString& which, const QString& path, QString* error) const {
  MatrixScalpChartViews views;
  views.matrix = map_;
  views.matrixName = QStringLiteral("map");
  views.scalpSize = scalp_->size();
  views.scalp = [this](QPainter& p, const QRect& a) { scalp_->render(p, a); };
  views.scalpName = QStringLiteral("scalp");
  views.chart = chartView_;
  views.chartName = QStringLiteral("spectra");
  return exportMatrixScalpChart(views, which, title_, path, error);
}

void ArResultsPane::chooseAndExport(const QString& which, const QString& what) {
  chooseAndExportFigure(this, what, [this, which](const QString& path, QString* error) {
    return exportFigure(which, path, error);
  });
}

}  // namespace modescope
