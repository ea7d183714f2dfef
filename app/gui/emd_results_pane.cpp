#include "app/gui/emd_results_pane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "app/gui/cuda_spectrum_pixel_writer.h"
#include "app/gui/error_presenter.h"
#include "app/gui/read_only_item.h"
#include "app/gui/result_dock.h"
#include "widgets/hilbert_spectrum_view.h"
#include "widgets/imf_stack_view.h"
#include "widgets/marginal_spectrum_view.h"

namespace modescope {
EmdResultsPane::EmdResultsPane(std::shared_ptr<const Recording> recording,
                               std::shared_ptr<const EmdResult> result,
                               std::shared_ptr<const HhtResult> hht, const QString& title,
                               QWidget* parent)
    : QWidget(parent),
      recording_(std::move(recording)),
      result_(std::move(result)),
      hht_(std::move(hht)),
      title_(title) {
  channelCombo_ = new QComboBox(this);
  channelCombo_->setObjectName(QStringLiteral("emdChannel"));
  channelCombo_->setToolTip(tr("Decomposed channel to show"));
  for (std::size_t i = 0; i < result_->channels.size(); ++i)
    channelCombo_->addItem(channelName(static_cast<int>(i)));
  frequency_ = new QCheckBox(tr("Instantaneous frequency"), this);
  frequency_->setToolTip(
      tr("Draw each IMF's instantaneous frequency (Hilbert transform) under "
         "it, on its own Hz scale"));
  preview_ = new QCheckBox(tr("Preview"), this);
  preview_->setToolTip(
      tr("Overlay the reconstruction from the kept rows (green) on the original "
         "signal (grey) above the IMFs"));
  link_ = new QCheckBox(tr("Link time with browser"), this);
  link_->setChecked(true);
  link_->setToolTip(
      tr("Follow the signal browser's page, and move it when panning or zooming "
         "here"));
  colourScale_ = new QComboBox(this);
  colourScale_->addItem(tr("Linear colours"), static_cast<int>(ColourScaleKind::Linear));
  colourScale_->addItem(tr("Log colours"), static_cast<int>(ColourScaleKind::Log));
  colourScale_->setToolTip(tr("Colour scale of the Hilbert spectrum (log: three decades)"));
  logMarginal_ = new QCheckBox(tr("Log marginal"), this);
  logMarginal_->setToolTip(tr("Logarithmic value axis for the marginal spectrum"));
  auto* resetZoom = new QPushButton(tr("Reset zoom"), this);
  resetZoom->setToolTip(tr("Show the whole spectrum and block (also: double-click, R)"));
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export figure"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportButton->setMenu(exportMenu);
  apply_ = new QPushButton(tr("Apply as cleaned recording"), this);
  apply_->setObjectName(QStringLiteral("applyCleaned"));
  apply_->setToolTip(
      tr("A new recording in which the decomposed channels over the decomposed "
         "range are the sum of the kept rows; it can be exported like any "
         "recording"));

  stack_ = new ImfStackView(this);
  stack_->setObjectName(QStringLiteral("imfStack"));
  spectrum_ = new HilbertSpectrumView(this);
  spectrum_->setObjectName(QStringLiteral("hilbertSpectrum"));
  // Coloured by CUDA straight into the view's GL buffer where the display runs on the CUDA
  // device; the view falls back to host memory and says why otherwise.
  spectrum_->setPixelWriter(std::make_unique<CudaSpectrumPixelWriter>());
  marginal_ = new MarginalSpectrumView(this);
  marginal_->setObjectName(QStringLiteral("marginalSpectrum"));
  readout_ = new QLabel(this);
  readout_->setObjectName(QStringLiteral("spectrumReadout"));
  readout_->setText(tr("Move the cursor over the spectrum for time, frequency and value"));
  drawingPath_ = new QLabel(this);
  drawingPath_->setObjectName(QStringLiteral("spectrumDrawingPath"));
  drawingPath_->setForegroundRole(QPalette::PlaceholderText);  // greyed: a note, not a value
  drawingPath_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  const auto showPath = [this](const QString& text) {
    // "drawn from host memory through OpenGL: <why>": the path on the line, the why (often a
    // long driver message) in the tool tip.
    const QString head = text.section(QLatin1Char(':'), 0, 0);
    const QString line = head.left(1).toUpper() + head.mid(1);
    drawingPath_->setText(head.size() < text.size() ? line + QStringLiteral(" \u2026") : line);
    drawingPath_->setToolTip(text.left(1).toUpper() + text.mid(1));
  };
  showPath(spectrum_->drawingPath());
  connect(spectrum_, &HilbertSpectrumView::drawingPathChanged, this, showPath);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("imfTable"));
  table_->setColumnCount(5);
  table_->setHorizontalHeaderLabels(
      {tr("Drop"), tr("Row"), tr("Mean freq. (Hz)"), tr("Energy"), tr("Sifts")});
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  exportMenu->addAction(tr("IMF stack..."), this,
                        [this] { exportFigure(stack_, tr("IMF stack")); });
  exportMenu->addAction(tr("Hilbert spectrum..."), this,
                        [this] { exportFigure(spectrum_, tr("Hilbert spectrum")); });
  exportMenu->addAction(tr("Marginal spectrum..."), this,
                        [this] { exportFigure(marginal_, tr("Marginal spectrum")); });

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Channel:"), this));
  bar->addWidget(channelCombo_);
  bar->addWidget(frequency_);
  bar->addWidget(preview_);
  bar->addWidget(link_);
  bar->addStretch(1);
  bar->addWidget(colourScale_);
  bar->addWidget(logMarginal_);
  bar->addWidget(resetZoom);
  bar->addWidget(exportButton);
  bar->addWidget(apply_);

  auto* spectrumBox = new QWidget(this);
  auto* spectrumLayout = new QVBoxLayout(spectrumBox);
  spectrumLayout->setContentsMargins(0, 0, 0, 0);
  spectrumLayout->addWidget(spectrum_, 1);
  spectrumLayout->addWidget(readout_);
  spectrumLayout->addWidget(drawingPath_);
  auto* tableBox = new QWidget(this);
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->addWidget(table_, 1);
  tableLayout->addWidget(summary_);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(spectrumBox);
  right->addWidget(marginal_);
  right->addWidget(tableBox);
  right->setStretchFactor(0, 4);
  right->setStretchFactor(1, 2);
  right->setStretchFactor(2, 2);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(stack_);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(channelCombo_, &QComboBox::currentIndexChanged, this, &EmdResultsPane::setCurrentChannel);
  connect(frequency_, &QCheckBox::toggled, stack_, &ImfStackView::setShowInstantaneousFrequency);
  connect(preview_, &QCheckBox::toggled, this, &EmdResultsPane::updatePreview);
  connect(colourScale_, &QComboBox::currentIndexChanged, this, [this] {
    spectrum_->setColourScaleKind(
        static_cast<ColourScaleKind>(colourScale_->currentData().toInt()));
  });
  // Log colours by default: a Hilbert spectrum's amplitudes span decades (slow IMFs are tens of
  // uV, fast ones a few), and on a linear scale everything but the largest cells is black.
  colourScale_->setCurrentIndex(colourScale_->findData(static_cast<int>(ColourScaleKind::Log)));
  connect(logMarginal_, &QCheckBox::toggled, marginal_, &MarginalSpectrumView::setLogValues);
  connect(resetZoom, &QPushButton::clicked, this, [this] {
    spectrum_->resetZoom();
    stack_->showWholeBlock();
    if (link_->isChecked()) emit timeWindowChanged(stack_->windowStart(), stack_->windowSeconds());
  });
  connect(spectrum_, &HilbertSpectrumView::cursorMoved, this, [this](const QString& text) {
    if (!text.isEmpty()) readout_->setText(text);
  });
  connect(stack_, &ImfStackView::marksChanged, this, &EmdResultsPane::syncMarksFromStack);
  // The stack and the spectrum share one time axis; the browser follows when linked.
  connect(stack_, &ImfStackView::timeWindowChanged, this, [this](double start, double seconds) {
    spectrum_->setTimeWindow(start, seconds);
    if (link_->isChecked()) emit timeWindowChanged(start, seconds);
  });
  connect(spectrum_, &HilbertSpectrumView::timeWindowChanged, this,
          [this](double start, double seconds) {
            stack_->setTimeWindow(start, seconds);
            if (link_->isChecked()) emit timeWindowChanged(start, seconds);
          });
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (syncing_ || item->column() != kDropColumn) return;
    stack_->setMarked(item->row(), item->checkState() == Qt::Checked);
  });
  connect(apply_, &QPushButton::clicked, this, &EmdResultsPane::applyRequested);

  frequency_->setEnabled(false);
  showChannel();
}

QString EmdResultsPane::channelName(int resultChannel) const {
  const std::size_t ch = result_->channels[static_cast<std::size_t>(resultChannel)].channel;
  return ch < recording_->channelCount() ? QString::fromStdString(recording_->channels[ch].name)
                                         : tr("channel %1").arg(ch + 1);
}

QString EmdResultsPane::unit(int resultChannel) const {
  const std::size_t ch = result_->channels[static_cast<std::size_t>(resultChannel)].channel;
  return ch < recording_->channelCount() ? QString::fromStdString(recording_->channels[ch].unit)
                                         : QString();
}

void EmdResultsPane::setCurrentChannel(int resultChannel) {
  if (resultChannel < 0 || resultChannel >= static_cast<int>(result_->channels.size())) return;
  channel_ = resultChannel;
  if (channelCombo_->currentIndex() != resultChannel) {
    const QSignalBlocker block(channelCombo_);
    channelCombo_->setCurrentIndex(resultChannel);
  }
  showChannel();
}

void EmdResultsPane::showChannel() {
  if (result_->channels.empty()) return;
  const double start = stack_->windowStart(), seconds = stack_->windowSeconds();
  const bool keepWindow = stack_->rowCount() > 0;
  const QString u = unit(channel_);
  stack_->setModes(result_, channel_, hht_, u, channelName(channel_));
  const auto& modes = result_->channels[static_cast<std::size_t>(channel_)];
  const auto it = dropped_.find(modes.channel);
  {
    const QSignalBlocker block(stack_);
    stack_->setMarkedRows(it == dropped_.end() ? std::vector<int>{} : it->second);
  }
  if (keepWindow) stack_->setTimeWindow(start, seconds);
  frequency_->setEnabled(stack_->hasInstantaneousFrequency());

  if (hht_ && static_cast<std::size_t>(channel_) < hht_->channels.size()) {
    spectrum_->setGrid(spectrumGridFromHht(*hht_, static_cast<std::size_t>(channel_), u));
    if (keepWindow) spectrum_->setTimeWindow(start, seconds);
    const HhtChannel& h = hht_->channels[static_cast<std::size_t>(channel_)];
    MarginalSpectrum m;
    m.frequencyEdges = hht_->frequencyEdges;
    m.values = h.marginal;
    const bool energy = hht_->params.quantity == HhtQuantity::Energy;
    m.valueUnit = (energy ? u + QStringLiteral("\u00b2") : u) + QStringLiteral("\u00b7s");
    m.quantity = energy ? tr("Energy") : tr("Amplitude");
    for (const HhtImf& imf : h.imfs) {
      if (imf.meanFrequencyHz > 0)
        m.markers.emplace_back(imf.meanFrequencyHz, QString::number(imf.row + 1));
    }
    marginal_->setSpectrum(std::move(m));
    marginal_->setLogFrequency(hht_->params.logFrequency);
  } else {
    spectrum_->setGrid({});
    marginal_->setSpectrum({});
  }
  fillTable();
  updatePreview();
}

void EmdResultsPane::fillTable() {
  const auto& modes = result_->channels[static_cast<std::size_t>(channel_)];
  const HhtChannel* h = hht_ && static_cast<std::size_t>(channel_) < hht_->channels.size()
                            ? &hht_->channels[static_cast<std::size_t>(channel_)]
                            : nullptr;
  const QString u = unit(channel_);
  syncing_ = true;
  table_->setRowCount(modes.rows);
  for (int r = 0; r < modes.rows; ++r) {
    auto* drop = new QTableWidgetItem;
    drop->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    drop->setCheckState(stack_->isMarked(r) ? Qt::Checked : Qt::Unchecked);
    table_->setItem(r, kDropColumn, drop);
    auto* name = readOnlyItem(r == modes.rows - 1 ? tr("Residue") : tr("IMF %1").arg(r + 1));
    name->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    table_->setItem(r, kRowColumn, name);
    const HhtImf* imf = nullptr;
    if (h) {
      for (const HhtImf& i : h->imfs)
        if (i.row == r) imf = &i;
    }
    table_->setItem(
        r, kFrequencyColumn,
        readOnlyItem(imf ? QString::number(imf->meanFrequencyHz, 'f', 2) : QStringLiteral("-")));
    table_->setItem(
        r, kEnergyColumn,
        readOnlyItem(
            imf ? QStringLiteral("%1 %2\u00b2\u00b7s").arg(QString::number(imf->energy, 'g', 4), u)
                : QStringLiteral("-")));
    const bool hasSifts = r < static_cast<int>(modes.sifts.size()) && r < modes.rows - 1;
    table_->setItem(
        r, kSiftsColumn,
        readOnlyItem(hasSifts ? QString::number(modes.sifts[static_cast<std::size_t>(r)])
                              : QStringLiteral("-")));
  }
  table_->resizeColumnsToContents();
  syncing_ = false;
  QString summary = tr("%1 IMFs + residue, %2 samples at %3 Hz")
                        .arg(modes.imfCount())
                        .arg(result_->samples)
                        .arg(result_->sampleRate);
  if (modes.degenerateMembers > 0)
    summary +=
        tr("; %1 ensemble members had too few extrema at some stage").arg(modes.degenerateMembers);
  if (!result_->provenance.backend.empty())
    summary += tr("; %1").arg(QString::fromStdString(result_->provenance.backend));
  summary_->setText(summary);
}

void EmdResultsPane::syncMarksFromStack() {
  const auto& modes = result_->channels[static_cast<std::size_t>(channel_)];
  const std::vector<int> rows = stack_->markedRows();
  if (rows.empty()) {
    dropped_.erase(modes.channel);
  } else {
    dropped_[modes.channel] = rows;
  }
  syncing_ = true;
  for (int r = 0; r < table_->rowCount(); ++r) {
    if (QTableWidgetItem* item = table_->item(r, kDropColumn))
      item->setCheckState(stack_->isMarked(r) ? Qt::Checked : Qt::Unchecked);
  }
  syncing_ = false;
  updatePreview();
  emit marksChanged();
}

void EmdResultsPane::setDropped(int resultChannel, int row, bool drop) {
  if (resultChannel != channel_) setCurrentChannel(resultChannel);
  stack_->setMarked(row, drop);
}

void EmdResultsPane::setPreviewEnabled(bool on) { preview_->setChecked(on); }
bool EmdResultsPane::previewEnabled() const { return preview_->isChecked(); }
bool EmdResultsPane::timeLinked() const { return link_->isChecked(); }

void EmdResultsPane::updatePreview() {
  if (!preview_->isChecked() || result_->channels.empty()) {
    stack_->clearPreview();
    return;
  }
  const auto& modes = result_->channels[static_cast<std::size_t>(channel_)];
  std::vector<float> original =
      recording_->readChannel(modes.channel, result_->firstSample, result_->samples);
  std::vector<float> kept = reconstructKeptRows(modes, result_->samples, stack_->markedRows());
  stack_->setPreview(std::move(original), std::move(kept));
}

void EmdResultsPane::setTimeWindow(double startSeconds, double seconds) {
  if (!link_->isChecked()) return;
  stack_->setTimeWindow(startSeconds, seconds);
  spectrum_->setTimeWindow(startSeconds, seconds);
}

void EmdResultsPane::exportFigure(QWidget* view, const QString& what) {
  const QString path = askFigurePath(this, what);
  if (path.isEmpty()) return;
  QString error;
  bool ok = false;
  if (view == stack_) ok = stack_->exportImage(path, &error);
  if (view == spectrum_) ok = spectrum_->exportImage(path, &error);
  if (view == marginal_) ok = marginal_->exportImage(path, &error);
  if (!ok) showError(this, tr("Export failed"), tr("Could not write %1.").arg(path), error);
}

}  // namespace modescope
