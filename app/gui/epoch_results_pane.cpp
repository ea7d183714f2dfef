#include "app/gui/epoch_results_pane.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/result_dock.h"
#include "engine/core/error.h"
#include "engine/epochs/epoch_spectra.h"
#include "widgets/annotation_colours.h"
#include "widgets/browser_pane.h"
#include "widgets/curve_plot.h"
#include "widgets/scalp_map_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

constexpr int kMapCount = 6;

QString unitOf(const EpochSet& set) {
  return set.units.empty() || set.units.front().empty() ? QStringLiteral("a.u.")
                                                        : QString::fromStdString(set.units.front());
}

// The kept epochs one after another as a recording: each epoch's event marked with its condition
// and each epoch's start with its number, so the browser pages through them (EEGLAB's epoched
// eegplot, MNE's Epochs.plot).
std::shared_ptr<const Recording> epochsAsRecording(const Recording& base, const EpochSet& set) {
  auto rec = std::make_shared<Recording>();
  rec->info = base.info;
  rec->info.format = "epochs";
  const int64_t S = set.samples;
  const auto E = static_cast<int64_t>(set.epochCount());
  std::vector<std::vector<float>> data(set.channelCount());
  for (std::size_t c = 0; c < set.channelCount(); ++c) {
    ChannelInfo info = base.channels[set.channels[c]];
    info.sampleCount = S * E;
    rec->channels.push_back(info);
    data[c].reserve(static_cast<std::size_t>(S * E));
    for (int64_t e = 0; e < E; ++e) {
      const float* row = set.row(static_cast<std::size_t>(e), c);
      data[c].insert(data[c].end(), row, row + S);
    }
  }
  const double length = static_cast<double>(S) / set.sampleRate;
  for (int64_t e = 0; e < E; ++e) {
    const double start = static_cast<double>(e) * length;
    rec->annotations.push_back({start, 0.0, "epoch " + std::to_string(e + 1)});
    rec->annotations.push_back(
        {start - set.time(0), 0.0,
         set.conditions[static_cast<std::size_t>(set.condition[static_cast<std::size_t>(e)])]});
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

// A tab: "label [choice]" above `plot`.
QWidget* plotPage(const QString& label, QComboBox* choice, QWidget* plot) {
  auto* page = new QWidget;
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(label));
  bar->addWidget(choice);
  bar->addStretch(1);
  auto* layout = new QVBoxLayout(page);
  layout->addLayout(bar);
  layout->addWidget(plot, 1);
  return page;
}

}  // namespace

EpochResultsPane::EpochResultsPane(std::shared_ptr<const Recording> recording,
                                   EpochJobResult result, QWidget* parent)
    : QWidget(parent), recording_(std::move(recording)), result_(std::move(result)) {
  setObjectName(QStringLiteral("epochResults"));
  const EpochSet& set = result_.file->set;
  for (int64_t i = 0; i < set.samples; ++i) timesMs_.push_back(1000.0 * set.time(i));
  QStringList lines;
  for (const std::string& l : epochSummaryLines(set)) lines << QString::fromStdString(l);
  auto* summary = new QLabel(lines.join(QStringLiteral("; ")));
  summary->setObjectName(QStringLiteral("epochSummary"));
  summary->setWordWrap(true);

  tabs_ = new QTabWidget;
  tabs_->setObjectName(QStringLiteral("epochTabs"));

  // ERP per condition at one channel.
  channel_ = new QComboBox;
  channel_->setObjectName(QStringLiteral("erpChannel"));
  for (const std::string& n : set.channelNames) channel_->addItem(QString::fromStdString(n));
  const int cz = channel_->findText(QStringLiteral("Cz"), Qt::MatchFixedString);
  channel_->setCurrentIndex(std::max(cz, 0));
  erp_ = new CurvePlot;
  erp_->setObjectName(QStringLiteral("erpPlot"));
  connect(channel_, &QComboBox::currentIndexChanged, this, [this] { showErp(); });
  tabs_->addTab(plotPage(tr("Channel"), channel_, erp_), tr("ERP"));

  // Butterfly of one condition or difference.
  condition_ = new QComboBox;
  condition_->setObjectName(QStringLiteral("butterflyCondition"));
  for (const std::string& c : set.conditions) condition_->addItem(QString::fromStdString(c));
  for (const DifferenceWave& d : result_.file->differences)
    condition_->addItem(QString::fromStdString(d.name));
  butterfly_ = new CurvePlot;
  butterfly_->setObjectName(QStringLiteral("butterflyPlot"));
  connect(condition_, &QComboBox::currentIndexChanged, this, [this] { showButterfly(); });
  tabs_->addTab(plotPage(tr("Condition"), condition_, butterfly_), tr("Butterfly"));

  // Scalp maps over time.
  auto* mapPage = new QWidget;
  mapCondition_ = new QComboBox;
  mapCondition_->setObjectName(QStringLiteral("mapCondition"));
  for (int i = 0; i < condition_->count(); ++i) mapCondition_->addItem(condition_->itemText(i));
  mapStep_ = new QSpinBox;
  mapStep_->setObjectName(QStringLiteral("mapStep"));
  mapStep_->setRange(1, 2000);
  mapStep_->setSuffix(tr(" ms"));
  const double windowMs = timesMs_.back() - std::max(0.0, timesMs_.front());
  mapStep_->setValue(std::max(1, static_cast<int>(std::lround(windowMs / kMapCount / 10.0)) * 10));
  auto* mBar = new QHBoxLayout;
  mBar->addWidget(new QLabel(tr("Condition")));
  mBar->addWidget(mapCondition_);
  mBar->addWidget(new QLabel(tr("Step")));
  mBar->addWidget(mapStep_);
  mBar->addWidget(new QLabel(tr("(click a time in the ERP or butterfly plot to start there)")));
  mBar->addStretch(1);
  auto* grid = new QGridLayout;
  for (int i = 0; i < kMapCount; ++i) {
    auto* map = new ScalpMapView;
    map->setObjectName(QStringLiteral("epochMap%1").arg(i));
    map->setShowContours(true);
    maps_.push_back(map);
    grid->addWidget(map, i / 3, i % 3);
  }
  auto* mLayout = new QVBoxLayout(mapPage);
  mLayout->addLayout(mBar);
  mLayout->addLayout(grid, 1);
  connect(mapCondition_, &QComboBox::currentIndexChanged, this, [this] { showMaps(); });
  connect(mapStep_, &QSpinBox::valueChanged, this, [this] { showMaps(); });
  tabs_->addTab(mapPage, tr("Topography"));

  tabs_->addTab(buildEpochTab(), tr("Epochs"));

  spectrum_ = new CurvePlot;
  spectrum_->setObjectName(QStringLiteral("epochSpectrum"));
  spectrum_->setLogY(true);
  tabs_->addTab(spectrum_, tr("Spectrum"));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(summary);
  layout->addWidget(tabs_, 1);

  connect(erp_, &CurvePlot::clicked, this, [this](double ms) { setMapTime(ms / 1000.0); });
  connect(butterfly_, &CurvePlot::clicked, this, [this](double ms) { setMapTime(ms / 1000.0); });
  mapStart_ = std::max(0.0, set.time(0));
  showErp();
  showButterfly();
  showMaps();
  showSpectrum();
}

QWidget* EpochResultsPane::buildEpochTab() {
  const EpochSet& set = result_.file->set;
  auto* page = new QWidget;
  epochs_ = new BrowserPane;
  epochs_->setObjectName(QStringLiteral("epochBrowser"));
  epochs_->setRecording(epochsAsRecording(*recording_, set));
  const double length = static_cast<double>(set.samples) / set.sampleRate;
  showBrowserPage(epochs_->browser(), 0.0, length * std::min<double>(5.0, set.epochCount()));
  log_ = new QTableWidget(static_cast<int>(set.log.size()), 4);
  log_->setObjectName(QStringLiteral("epochLog"));
  log_->setHorizontalHeaderLabels({tr("Onset (s)"), tr("Event"), tr("Fate"), tr("Why")});
  log_->verticalHeader()->hide();
  log_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int r = 0; r < static_cast<int>(set.log.size()); ++r) {
    const EpochLogEntry& e = set.log[static_cast<std::size_t>(r)];
    QString why;
    if (e.fate == EpochFate::PeakToPeak)
      why = tr("%1: %2 %3 peak-to-peak")
                .arg(QString::fromStdString(e.channel))
                .arg(e.peakToPeak, 0, 'f', 1)
                .arg(unitOf(set));
    log_->setItem(r, 0, new QTableWidgetItem(QString::number(e.onset, 'f', 3)));
    log_->setItem(r, 1,
                  new QTableWidgetItem(QString::fromStdString(
                      set.conditions[static_cast<std::size_t>(e.condition)])));
    auto* fate = new QTableWidgetItem(QString::fromUtf8(epochFateName(e.fate)));
    if (e.fate != EpochFate::Kept) fate->setForeground(QColor(0xb0, 0x00, 0x20));
    log_->setItem(r, 2, fate);
    log_->setItem(r, 3, new QTableWidgetItem(why));
  }
  log_->horizontalHeader()->setStretchLastSection(true);
  auto* layout = new QHBoxLayout(page);
  layout->addWidget(epochs_, 3);
  layout->addWidget(log_, 1);
  return page;
}

const double* EpochResultsPane::meanRow(int choice, std::size_t channel) const {
  const EpochAverages& avg = result_.file->averages;
  if (choice < static_cast<int>(avg.conditions.size()))
    return avg.mean.data() + avg.offset(static_cast<std::size_t>(choice), channel);
  const auto& d =
      result_.file->differences[static_cast<std::size_t>(choice) - avg.conditions.size()];
  return d.mean.data() + channel * static_cast<std::size_t>(avg.samples);
}

void EpochResultsPane::showErp() {
  const EpochSet& set = result_.file->set;
  const EpochAverages& avg = result_.file->averages;
  const std::size_t c = static_cast<std::size_t>(std::max(0, channel_->currentIndex()));
  const double z = confidenceZ(set.params.confidence);
  const auto S = static_cast<std::size_t>(avg.samples);
  std::vector<PlotCurve> curves;
  for (std::size_t k = 0; k < avg.conditions.size(); ++k) {
    PlotCurve p;
    p.name = tr("%1 (n = %2)").arg(QString::fromStdString(avg.conditions[k])).arg(avg.counts[k]);
    p.colour = annotationColour(avg.conditions[k]);
    p.x = timesMs_;
    const double* m = avg.mean.data() + avg.offset(k, c);
    const double* se = avg.standardError.data() + avg.offset(k, c);
    for (std::size_t i = 0; i < S; ++i) {
      p.y.push_back(m[i]);
      p.bandLow.push_back(m[i] - z * se[i]);
      p.bandHigh.push_back(m[i] + z * se[i]);
    }
    curves.push_back(std::move(p));
  }
  for (const DifferenceWave& d : result_.file->differences) {
    PlotCurve p;
    p.name = QString::fromStdString(d.name);
    p.colour = Qt::black;
    p.width = 1.2;
    p.x = timesMs_;
    p.y.assign(d.mean.begin() + static_cast<std::ptrdiff_t>(c * S),
               d.mean.begin() + static_cast<std::ptrdiff_t>((c + 1) * S));
    curves.push_back(std::move(p));
  }
  erp_->setCurves(std::move(curves));
  erp_->setMarkers({0.0});
  erp_->setLabels(tr("%1: average per condition, band mean +- %2 SE (%3 %)")
                      .arg(channel_->currentText())
                      .arg(z, 0, 'f', 2)
                      .arg(set.params.confidence * 100, 0, 'g', 3),
                  tr("Time (ms)"), unitOf(set));
}

void EpochResultsPane::showButterfly() {
  const EpochSet& set = result_.file->set;
  const int choice = std::max(0, condition_->currentIndex());
  const auto S = static_cast<std::size_t>(set.samples);
  std::vector<PlotCurve> curves;
  std::vector<double> gfp(S, 0.0), mean(S, 0.0);
  const std::size_t C = set.channelCount();
  for (std::size_t c = 0; c < C; ++c) {
    PlotCurve p;
    p.colour = QColor::fromHsvF(
        static_cast<float>(c) / static_cast<float>(std::max<std::size_t>(C, 1)), 0.55f, 0.75f);
    p.width = 0.8;
    p.x = timesMs_;
    const double* m = meanRow(choice, c);
    p.y.assign(m, m + S);
    for (std::size_t i = 0; i < S; ++i) mean[i] += m[i] / static_cast<double>(C);
    curves.push_back(std::move(p));
  }
  // Global field power: the standard deviation over channels at each time.
  for (std::size_t c = 0; c < C; ++c) {
    const double* m = meanRow(choice, c);
    for (std::size_t i = 0; i < S; ++i) gfp[i] += (m[i] - mean[i]) * (m[i] - mean[i]) / C;
  }
  PlotCurve g;
  g.name = tr("GFP");
  g.colour = Qt::black;
  g.width = 2.0;
  g.x = timesMs_;
  for (double v : gfp) g.y.push_back(std::sqrt(v));
  curves.push_back(std::move(g));
  butterfly_->setCurves(std::move(curves));
  butterfly_->setMarkers({0.0});
  butterfly_->setLabels(
      tr("%1: every channel's average (%2 channels)").arg(condition_->currentText()).arg(C),
      tr("Time (ms)"), unitOf(set));
}

void EpochResultsPane::setMapTime(double seconds) {
  mapStart_ = seconds;
  showMaps();
}

void EpochResultsPane::showMaps() {
  const EpochSet& set = result_.file->set;
  const int choice = std::max(0, mapCondition_->currentIndex());
  std::vector<ChannelInfo> channels;
  for (std::size_t c : set.channels) channels.push_back(recording_->channels[c]);
  const double step = mapStep_->value() / 1000.0;
  // One colour scale for the series (EEGLAB's timtopo, MNE's plot_topomap(times=...)): the
  // largest |value| of any channel at any of the maps' times.
  double largest = 0.0;
  for (int m = 0; m < kMapCount; ++m) {
    const auto i = static_cast<int64_t>(std::llround((mapStart_ + m * step) * set.sampleRate)) -
                   set.window.first;
    if (i < 0 || i >= set.samples) continue;
    for (std::size_t c = 0; c < set.channelCount(); ++c)
      largest = std::max(largest, std::abs(meanRow(choice, c)[static_cast<std::size_t>(i)]));
  }
  for (ScalpMapView* view : maps_) view->setSymmetricRange(largest);
  for (int m = 0; m < kMapCount; ++m) {
    const double t = mapStart_ + m * step;
    const auto i = static_cast<int64_t>(std::llround(t * set.sampleRate)) - set.window.first;
    ScalpMapView* view = maps_[static_cast<std::size_t>(m)];
    if (i < 0 || i >= set.samples) {
      view->clear();
      continue;
    }
    std::vector<double> values;
    for (std::size_t c = 0; c < set.channelCount(); ++c)
      values.push_back(meanRow(choice, c)[static_cast<std::size_t>(i)]);
    view->setMap(channels, values, tr("%1 ms").arg(std::lround(1000.0 * set.time(i))), unitOf(set));
  }
}

void EpochResultsPane::showSpectrum() {
  const EpochSet& set = result_.file->set;
  try {
    SpectrumParams p;
    p.segmentLength = static_cast<int>(std::min<int64_t>(set.samples, 256));
    const ChannelSpectra s = epochSpectra(set, p);
    std::vector<PlotCurve> curves;
    std::vector<double> hz;
    for (std::size_t k = 0; k < s.bins(); ++k) hz.push_back(s.frequency(k));
    for (std::size_t c = 0; c < s.power.size(); ++c) {
      PlotCurve pc;
      pc.colour = QColor(150, 150, 150, 120);
      pc.width = 0.7;
      pc.x = hz;
      pc.y = s.power[c];
      curves.push_back(std::move(pc));
    }
    PlotCurve mean;
    mean.name = tr("mean over %1 channels").arg(s.power.size());
    mean.colour = QColor(0x4e, 0x79, 0xa7);
    mean.width = 2.2;
    mean.x = hz;
    mean.y = s.meanPower;
    curves.push_back(std::move(mean));
    spectrum_->setCurves(std::move(curves));
    spectrum_->setLabels(tr("Welch power spectrum of %1 epochs (%2-sample Hann segments)")
                             .arg(s.series)
                             .arg(s.segmentLength),
                         tr("Frequency (Hz)"), tr("%1^2/Hz").arg(unitOf(set)));
  } catch (const Error& e) {
    spectrum_->setMessage(QString::fromStdString(e.what()));
  }
}

}  // namespace modescope
