#include "app/gui/memd_results_pane.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/cuda_spectrum_pixel_writer.h"
#include "app/gui/emd_results_pane.h"
#include "app/gui/pane_figures.h"
#include "app/gui/read_only_item.h"
#include "widgets/browser_pane.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/marginal_spectrum_view.h"
#include "widgets/mode_grid_view.h"
#include "widgets/scalp_map_grid.h"
#include "widgets/scalp_map_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

QString hz(double v) { return std::isfinite(v) ? QString::number(v, 'f', 2) : QStringLiteral("-"); }

// A widget painted as it is on screen (tables, labels), for exportView.
ViewRenderer widgetRenderer(QWidget* w) {
  return [w](QPainter& painter, const QRect& area) {
    painter.save();
    painter.translate(area.topLeft());
    w->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.restore();
  };
}

}  // namespace

MemdResultsPane::MemdResultsPane(std::shared_ptr<const Recording> recording,
                                 std::shared_ptr<const MemdResult> result,
                                 std::shared_ptr<const EmdResult> modes,
                                 std::shared_ptr<const HhtResult> hht, const QString& title,
                                 QWidget* parent)
    : QWidget(parent),
      recording_(std::move(recording)),
      result_(std::move(result)),
      modes_(std::move(modes)),
      hht_(std::move(hht)),
      title_(title) {
  const int imfs = modes_->channels.empty() ? 0 : modes_->channels.front().imfCount();
  if (hht_) {
    alignment_ = memdAlignment(*hht_, imfs);
    summed_ = summedHhtChannels(*hht_);
  }

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("memdSummary"));
  summary_->setText(
      tr("%1 channels x %2 samples at %3 Hz, %4 directions: %5 IMFs + residue on every channel; "
         "%6")
          .arg(modes_->channels.size())
          .arg(modes_->samples)
          .arg(modes_->sampleRate)
          .arg(result_ ? result_->directions : 0)
          .arg(imfs)
          .arg(QString::fromStdString(modes_->provenance.backend)));
  summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export figure"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportButton->setMenu(exportMenu);
  const std::pair<const char*, QString> figures[] = {
      {"grid", tr("Channels x IMFs grid...")},
      {"imf", tr("IMF across channels...")},
      {"energy", tr("Scalp maps of energy...")},
      {"frequency", tr("Scalp maps of mean frequency...")},
      {"spectrum", tr("Hilbert spectrum...")},
      {"marginal", tr("Marginal spectrum...")},
      {"alignment", tr("Alignment table...")}};
  for (const auto& [which, text] : figures) {
    const QString name = QLatin1String(which);
    exportMenu->addAction(text, this, [this, name, text] { chooseFigure(name, text); });
  }
  apply_ = new QPushButton(tr("Apply as cleaned recording"), this);
  apply_->setObjectName(QStringLiteral("memdApplyCleaned"));
  apply_->setToolTip(
      tr("A new recording in which the decomposed channels over the decomposed range are the sum "
         "of their kept IMFs (and residue); File > Export recording writes it to EDF+, BDF+ or "
         "HDF5 with its provenance"));
  auto* clearMarks = new QPushButton(tr("Keep all"), this);
  clearMarks->setToolTip(tr("Unmark every IMF on every channel"));

  // The per-channel views are the EMD family's pane on the same modes.
  channels_ = new EmdResultsPane(recording_, modes_, hht_, title_, this);
  channels_->setObjectName(QStringLiteral("memdChannelsPane"));

  views_ = new QTabWidget(this);
  views_->setObjectName(QStringLiteral("memdViews"));
  views_->setDocumentMode(true);
  views_->addTab(buildGridTab(), tr("Grid"));
  views_->addTab(buildImfTab(), tr("IMF across channels"));
  views_->addTab(buildScalpTab(), tr("Scalp maps"));
  views_->addTab(buildSpectrumTab(), tr("Hilbert spectra"));
  views_->addTab(buildAlignmentTab(), tr("Alignment"));
  views_->addTab(channels_, tr("Channels (marks, preview)"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(summary_, 1);
  bar->addWidget(clearMarks);
  bar->addWidget(exportButton);
  bar->addWidget(apply_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(views_, 1);

  connect(apply_, &QPushButton::clicked, this, &MemdResultsPane::applyRequested);
  connect(channels_, &EmdResultsPane::applyRequested, this, &MemdResultsPane::applyRequested);
  connect(channels_, &EmdResultsPane::marksChanged, this, [this] {
    syncGridMarks();
    emit marksChanged();
  });
  connect(clearMarks, &QPushButton::clicked, this, [this] {
    for (int r = 0; r < grid_->columnCount(); ++r) setDroppedOnAllChannels(r, false);
  });
}

QString MemdResultsPane::channelName(int resultChannel) const {
  const std::size_t ch = modes_->channels[static_cast<std::size_t>(resultChannel)].channel;
  return ch < recording_->channelCount() ? QString::fromStdString(recording_->channels[ch].name)
                                         : tr("channel %1").arg(ch + 1);
}

QString MemdResultsPane::unit() const {
  if (modes_->channels.empty()) return {};
  const std::size_t ch = modes_->channels.front().channel;
  return ch < recording_->channelCount() ? QString::fromStdString(recording_->channels[ch].unit)
                                         : QString();
}

QWidget* MemdResultsPane::buildGridTab() {
  grid_ = new ModeGridView;
  grid_->setObjectName(QStringLiteral("memdGrid"));
  QStringList names, notes;
  for (int c = 0; c < static_cast<int>(modes_->channels.size()); ++c) names << channelName(c);
  for (int k = 0; k < alignment_.imfs; ++k)
    notes << tr("%1 Hz").arg(QString::number(alignment_.imfMeanHz[k], 'f', 1));
  grid_->setModes(*modes_, names, notes);
  connect(grid_, &ModeGridView::columnClicked, this,
          [this](int column, int) { openModeAcrossChannels(column); });
  connect(grid_, &ModeGridView::cellToggled, this, &MemdResultsPane::toggleCell);
  connect(grid_, &ModeGridView::columnToggled, this, [this](int column) {
    bool allDropped = true;
    for (int c = 0; c < grid_->rowCount(); ++c) allDropped &= grid_->isDropped(c, column);
    setDroppedOnAllChannels(column, !allDropped);
  });
  auto* scroll = new QScrollArea;
  scroll->setWidget(grid_);
  scroll->setWidgetResizable(true);  // the cells grow with the view (ModeGridView)
  auto* hint = new QLabel(
      tr("Click an IMF to see it on every channel; Ctrl+click or double-click a cell to drop "
         "that IMF on that channel, a header to drop it on every channel. Column headers give "
         "the mean frequency over the channels; each column shares one amplitude scale."));
  hint->setWordWrap(true);
  hint->setForegroundRole(QPalette::PlaceholderText);
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll, 1);
  layout->addWidget(hint);
  return page;
}

QWidget* MemdResultsPane::buildImfTab() {
  imfTitle_ = new QLabel(tr("Click an IMF in the grid to show it on every channel."));
  imfTitle_->setObjectName(QStringLiteral("memdImfTitle"));
  modeBrowser_ = new BrowserPane;
  modeBrowser_->setObjectName(QStringLiteral("memdImfBrowser"));
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(imfTitle_);
  layout->addWidget(modeBrowser_, 1);
  return page;
}

QWidget* MemdResultsPane::buildScalpTab() {
  energyMaps_ = new ScalpMapGrid;
  energyMaps_->setObjectName(QStringLiteral("memdEnergyMaps"));
  frequencyMaps_ = new ScalpMapGrid;
  frequencyMaps_->setObjectName(QStringLiteral("memdFrequencyMaps"));
  const int imfs = alignment_.imfs;
  if (imfs > 0) {
    std::vector<ChannelInfo> infos;
    for (const EmdChannelModes& m : modes_->channels)
      infos.push_back(m.channel < recording_->channelCount() ? recording_->channels[m.channel]
                                                             : ChannelInfo{});
    QStringList titles;
    for (int k = 0; k < imfs; ++k)
      titles << tr("IMF %1 %2 Hz").arg(k + 1).arg(QString::number(alignment_.imfMeanHz[k], 'f', 1));
    const QString u = unit();
    energyMaps_->setMaps(infos, alignment_.energy, imfs, titles,
                         u + QStringLiteral("\u00b2\u00b7s"));
    frequencyMaps_->setMaps(infos, alignment_.meanFrequencyHz, imfs, titles, tr("Hz"));
    // Energies and frequencies are positive: min..max on a sequential map, not symmetric.
    for (ScalpMapGrid* g : {energyMaps_, frequencyMaps_})
      for (int k = 0; k < g->count(); ++k) g->view(k)->setSymmetricScale(false);
  }
  auto* energyBox = new QWidget;
  auto* energyLayout = new QVBoxLayout(energyBox);
  energyLayout->setContentsMargins(0, 0, 0, 0);
  energyLayout->addWidget(new QLabel(tr("Energy of each IMF (sum of squares / rate)")));
  energyLayout->addWidget(energyMaps_, 1);
  auto* frequencyBox = new QWidget;
  auto* frequencyLayout = new QVBoxLayout(frequencyBox);
  frequencyLayout->setContentsMargins(0, 0, 0, 0);
  frequencyLayout->addWidget(
      new QLabel(tr("Mean instantaneous frequency of each IMF (energy-weighted, Hz)")));
  frequencyLayout->addWidget(frequencyMaps_, 1);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(energyBox);
  split->addWidget(frequencyBox);
  return split;
}

QWidget* MemdResultsPane::buildSpectrumTab() {
  spectrumChannel_ = new QComboBox;
  spectrumChannel_->setObjectName(QStringLiteral("memdSpectrumChannel"));
  spectrumChannel_->addItem(tr("Sum across channels"));
  for (int c = 0; c < static_cast<int>(modes_->channels.size()); ++c)
    spectrumChannel_->addItem(channelName(c));
  spectrum_ = new HilbertSpectrumView;
  spectrum_->setObjectName(QStringLiteral("memdHilbertSpectrum"));
  spectrum_->setPixelWriter(std::make_unique<CudaSpectrumPixelWriter>());
  spectrum_->setColourScaleKind(ColourScaleKind::Log);  // amplitudes span decades (EMD pane)
  marginal_ = new MarginalSpectrumView;
  marginal_->setObjectName(QStringLiteral("memdMarginalSpectrum"));
  auto* readout = new QLabel(tr("Move the cursor over the spectrum for time, frequency and value"));
  connect(spectrum_, &HilbertSpectrumView::cursorMoved, readout, [readout](const QString& text) {
    if (!text.isEmpty()) readout->setText(text);
  });
  connect(spectrumChannel_, &QComboBox::currentIndexChanged, this, &MemdResultsPane::showSpectrum);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Spectrum of:")));
  top->addWidget(spectrumChannel_);
  top->addStretch(1);
  auto* split = new QSplitter(Qt::Horizontal);
  auto* left = new QWidget;
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(spectrum_, 1);
  leftLayout->addWidget(readout);
  split->addWidget(left);
  split->addWidget(marginal_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  showSpectrum(0);
  return page;
}

void MemdResultsPane::showSpectrum(int comboIndex) {
  if (!hht_ || hht_->channels.empty()) {
    spectrum_->setGrid({});
    marginal_->setSpectrum({});
    return;
  }
  const bool sum = comboIndex <= 0;
  const HhtResult& source = sum ? summed_ : *hht_;
  const std::size_t channel = sum ? 0 : static_cast<std::size_t>(comboIndex - 1);
  if (channel >= source.channels.size()) return;
  const QString u = unit();
  SpectrumGrid grid = spectrumGridFromHht(source, channel, u);
  if (sum)
    grid.quantity = tr("%1, sum of %2 channels").arg(grid.quantity).arg(hht_->channels.size());
  spectrum_->setGrid(std::move(grid));
  MarginalSpectrum m;
  m.frequencyEdges = source.frequencyEdges;
  m.values = source.channels[channel].marginal;
  const bool energy = source.params.quantity == HhtQuantity::Energy;
  m.valueUnit = (energy ? u + QStringLiteral("\u00b2") : u) + QStringLiteral("\u00b7s");
  m.quantity = energy ? tr("Energy") : tr("Amplitude");
  // Markers at each IMF's mean frequency: over the channels for the sum, else the channel's.
  for (int k = 0; k < alignment_.imfs; ++k) {
    const double f = sum ? alignment_.imfMeanHz[k] : alignment_.frequency(int(channel), k);
    if (std::isfinite(f) && f > 0) m.markers.emplace_back(f, QString::number(k + 1));
  }
  marginal_->setSpectrum(std::move(m));
}

QWidget* MemdResultsPane::buildAlignmentTab() {
  alignmentTable_ = new QTableWidget;
  alignmentTable_->setObjectName(QStringLiteral("memdAlignment"));
  const int channels = alignment_.channels, imfs = alignment_.imfs;
  alignmentTable_->setColumnCount(imfs);
  alignmentTable_->setRowCount(channels + 2);
  QStringList columns, rows;
  for (int k = 0; k < imfs; ++k) columns << tr("IMF %1 (Hz)").arg(k + 1);
  for (int c = 0; c < channels; ++c) rows << channelName(c);
  rows << tr("Mean") << tr("Spread (std)");
  alignmentTable_->setHorizontalHeaderLabels(columns);
  alignmentTable_->setVerticalHeaderLabels(rows);
  for (int k = 0; k < imfs; ++k) {
    for (int c = 0; c < channels; ++c)
      alignmentTable_->setItem(c, k, readOnlyItem(hz(alignment_.frequency(c, k))));
    QTableWidgetItem* mean = readOnlyItem(hz(alignment_.imfMeanHz[k]));
    QFont bold = mean->font();
    bold.setBold(true);
    mean->setFont(bold);
    alignmentTable_->setItem(channels, k, mean);
    alignmentTable_->setItem(channels + 1, k, readOnlyItem(hz(alignment_.imfSpreadHz[k])));
  }
  alignmentTable_->resizeColumnsToContents();
  auto* note = new QLabel(
      tr("Mean instantaneous frequency of each IMF on each channel (energy-weighted, from the "
         "Hilbert transform). MEMD aligns modes: IMF k should be one scale on every channel, so "
         "a column's spread is small next to its mean."));
  note->setWordWrap(true);
  note->setForegroundRole(QPalette::PlaceholderText);
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(alignmentTable_, 1);
  layout->addWidget(note);
  return page;
}

void MemdResultsPane::openModeAcrossChannels(int row) {
  if (modes_->channels.empty() || row < 0 || row >= modes_->channels.front().rows) return;
  const double start = modes_->firstSample / modes_->sampleRate;
  const double seconds = modes_->samples / modes_->sampleRate;
  openedRow_ = row;
  modeBrowser_->setRecording(modeAcrossChannels(*recording_, modes_, row));
  SignalBrowser* browser = modeBrowser_->browser();
  browser->setPageLength(std::min(seconds, std::max(browser->pageLength(), 1.0)));
  browser->setPageStart(start);
  grid_->setCurrentColumn(row);
  const bool residue = row == modes_->channels.front().rows - 1;
  imfTitle_->setText(
      residue ? tr("Residue on every channel")
              : tr("IMF %1 on every channel (mean %2 Hz over the channels); the "
                   "decomposed range is %3 s from %4 s")
                    .arg(row + 1)
                    .arg(hz(alignment_.imfs > row ? alignment_.imfMeanHz[row] : std::nan("")))
                    .arg(seconds)
                    .arg(start));
  views_->setCurrentIndex(kImfView);
}

const DroppedRows& MemdResultsPane::droppedRows() const { return channels_->droppedRows(); }

void MemdResultsPane::setDropped(int resultChannel, int row, bool drop) {
  const int shown = channels_->currentChannel();
  channels_->setDropped(resultChannel, row, drop);
  channels_->setCurrentChannel(shown);
}

void MemdResultsPane::setDroppedOnAllChannels(int row, bool drop) {
  const int shown = channels_->currentChannel();
  for (int c = 0; c < static_cast<int>(modes_->channels.size()); ++c)
    channels_->setDropped(c, row, drop);
  channels_->setCurrentChannel(shown);
}

void MemdResultsPane::toggleCell(int resultChannel, int row) {
  setDropped(resultChannel, row, !grid_->isDropped(resultChannel, row));
}

void MemdResultsPane::syncGridMarks() {
  const DroppedRows& dropped = droppedRows();
  for (int c = 0; c < grid_->rowCount(); ++c) {
    const auto it = dropped.find(modes_->channels[static_cast<std::size_t>(c)].channel);
    for (int k = 0; k < grid_->columnCount(); ++k) {
      const bool on = it != dropped.end() &&
                      std::find(it->second.begin(), it->second.end(), k) != it->second.end();
      grid_->setDropped(c, k, on);
    }
  }
}

bool MemdResultsPane::exportFigure(const QString& which, const QString& path, QString* error) {
  const QString heading = title_ + QStringLiteral(": ") + which;
  if (which == QLatin1String("grid"))
    return exportView(
        path, grid_->sizeHint(), [this](QPainter& p, const QRect& area) { grid_->render(p, area); },
        heading, error);
  if (which == QLatin1String("energy") || which == QLatin1String("frequency")) {
    ScalpMapGrid* maps = which == QLatin1String("energy") ? energyMaps_ : frequencyMaps_;
    if (maps->count() == 0) {
      if (error) *error = tr("no scalp maps: %1").arg(maps->message());
      return false;
    }
    return exportView(
        path, maps->exportSize(), [maps](QPainter& p, const QRect& area) { maps->render(p, area); },
        heading, error);
  }
  if (which == QLatin1String("spectrum")) return spectrum_->exportImage(path, error);
  if (which == QLatin1String("marginal")) return marginal_->exportImage(path, error);
  if (which == QLatin1String("alignment"))
    return exportView(path, alignmentTable_->size(), widgetRenderer(alignmentTable_), heading,
                      error);
  if (which == QLatin1String("imf")) {
    if (openedRow_ < 0) {
      if (error) *error = tr("no IMF is open: click one in the grid first");
      return false;
    }
    return modeBrowser_->browser()->exportPage(path, error);
  }
  if (error)
    *error = tr("unknown figure '%1' (grid, imf, energy, frequency, spectrum, marginal, "
                "alignment)")
                 .arg(which);
  return false;
}

void MemdResultsPane::chooseFigure(const QString& which, const QString& what) {
  chooseAndExportFigure(this, what, [this, which](const QString& path, QString* error) {
    return exportFigure(which, path, error);
  });
}

}  // namespace modescope
