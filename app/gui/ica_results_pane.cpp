#include "app/gui/ica_results_pane.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "app/core/ica_activation_recording.h"
#include "app/core/ica_cleaning.h"
#include "app/gui/error_presenter.h"
#include "app/gui/ica_component_model.h"
#include "app/gui/ica_flags_bar.h"
#include "app/gui/ica_overlay_view.h"
#include "app/gui/pane_figures.h"
#include "app/gui/result_dock.h"
#include "engine/ica/infomax.h"
#include "widgets/marginal_spectrum_view.h"
#include "widgets/page_export.h"
#include "widgets/scalp_map_grid.h"
#include "widgets/scalp_map_view.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

// Rows of the activation browser: enough to compare a few components, few enough to read them.
constexpr int kVisibleComponents = 6;
constexpr double kSpectrumLowHz = 1.0;
constexpr int kGridTile = 76;  // px: six or more maps across the dock's middle column  // below 1
                               // Hz: drift, not what artifacts are told by

class MarkCommand : public QUndoCommand {
 public:
  MarkCommand(IcaResultsPane* pane, int component, bool marked)
      : pane_(pane), component_(component), marked_(marked) {
    setText(marked ? QObject::tr("mark IC %1").arg(component + 1)
                   : QObject::tr("unmark IC %1").arg(component + 1));
  }
  void redo() override {
    if (pane_) pane_->setMarked(component_, marked_);
  }
  void undo() override {
    if (pane_) pane_->setMarked(component_, !marked_);
  }

 private:
  QPointer<IcaResultsPane> pane_;
  int component_;
  bool marked_;
};

// The flag record's change, undone with the marks "Mark flagged" made with it.
class FlagRecordCommand : public QUndoCommand {
 public:
  FlagRecordCommand(IcaResultsPane* pane, std::optional<PipelineIcaFlags> before,
                    std::optional<PipelineIcaFlags> after)
      : pane_(pane), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override {
    if (pane_) pane_->setFlagRecord(after_);
  }
  void undo() override {
    if (pane_) pane_->setFlagRecord(before_);
  }

 private:
  QPointer<IcaResultsPane> pane_;
  std::optional<PipelineIcaFlags> before_, after_;
};

QStringList channelNames(const Recording& rec, const std::vector<std::size_t>& idx) {
  QStringList out;
  for (std::size_t i : idx) out << QString::fromStdString(rec.channels[i].name);
  return out;
}

}  // namespace

IcaResultsPane::IcaResultsPane(std::shared_ptr<const Recording> recording,
                               std::shared_ptr<const IcaFile> file, IcaComponentSummary summary,
                               const QString& title, QUndoStack* undo, QWidget* parent)
    : QWidget(parent),
      recording_(std::move(recording)),
      file_(std::move(file)),
      title_(title),
      undo_(undo) {
  const QStringList eog = channelNames(*recording_, summary.references.eog);
  const QStringList ecg = channelNames(*recording_, summary.references.ecg);
  model_ = new IcaComponentModel(std::move(summary), eog, ecg, this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(IcaComponentModel::kSortRole);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("icaComponentTable"));
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(IcaComponentModel::kComponentColumn, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setHighlightSections(false);
  // No ECG channel: no ECG column (its "-" everywhere would only take room).
  table_->setColumnHidden(IcaComponentModel::kEcgColumn, model_->summary().references.ecg.empty());
  table_->setToolTip(
      tr("Click a header to sort (|r| EOG descending finds blinks); the Mark box, "
         "M or space marks the current component as an artifact"));

  map_ = new ScalpMapView(this);
  map_->setObjectName(QStringLiteral("icaCurrentMap"));
  mapStack_ = new QStackedWidget(this);
  mapStack_->setObjectName(QStringLiteral("icaMapStack"));
  mapStack_->addWidget(map_);
  threeD_ = new QToolButton(this);
  threeD_->setObjectName(QStringLiteral("icaThreeD"));
  threeD_->setText(tr("3-D"));
  threeD_->setCheckable(true);
  threeD_->setEnabled(false);
  threeD_->setToolTip(
      tr("The rotatable 3-D head view (widgets/scalp_3d_view.h) is not in this "
         "build yet"));
  // setThreeDView() puts the 3-D head view on page 1.
  connect(threeD_, &QToolButton::toggled, this, [this](bool on) {
    if (mapStack_->count() < 2) return;
    mapStack_->setCurrentIndex(on ? 1 : 0);
    if (on) showCurrent();
  });
  grid_ = new ScalpMapGrid(this);
  grid_->setObjectName(QStringLiteral("icaMapGrid"));
  grid_->setTileSize(kGridTile);
  grid_->setToolTip(
      tr("All components' maps: click one to show it; double-click or Ctrl+click "
         "marks or unmarks it"));

  browser_ = new SignalBrowser(this);
  browser_->setObjectName(QStringLiteral("icaActivations"));
  browser_->setRecording(icaActivationRecording(recording_, file_));
  browser_->setVisibleChannelCount(std::min(kVisibleComponents, componentCount()));
  browser_->setToolTip(
      tr("Component activations (unmixing x (channels - mean)); scroll and zoom "
         "as in the signal browser"));
  spectrum_ = new MarginalSpectrumView(this);
  spectrum_->setObjectName(QStringLiteral("icaSpectrum"));
  spectrum_->setLogValues(true);
  overlay_ = new IcaOverlayView(this);
  overlay_->setObjectName(QStringLiteral("icaOverlay"));
  overlay_->setToolTip(
      tr("Original (grey) and cleaned (blue) channels over the activations' "
         "page, for the current marks"));

  currentLabel_ = new QLabel(this);
  currentLabel_->setObjectName(QStringLiteral("icaCurrentLabel"));
  auto* markButton = new QPushButton(tr("Mark (M)"), this);
  markButton->setObjectName(QStringLiteral("icaMarkButton"));
  markButton->setToolTip(tr("Toggle the artifact mark of the current component (M or space)"));
  overlayCount_ = new QSpinBox(this);
  overlayCount_->setObjectName(QStringLiteral("icaOverlayCount"));
  overlayCount_->setRange(1, 64);
  overlayCount_->setValue(6);
  overlayCount_->setPrefix(tr("Overlay: "));
  overlayCount_->setSuffix(tr(" channels"));
  overlayCount_->setToolTip(
      tr("How many channels the overlay shows: those the marked components "
         "change most over the page (frontal ones first when none is "
         "marked)"));
  link_ = new QCheckBox(tr("Link time with browser"), this);
  link_->setChecked(true);
  link_->setToolTip(tr("Follow the signal browser's page, and move it when scrolling here"));
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export figure"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportButton->setMenu(exportMenu);
  exportMenu->addAction(tr("Topography..."), this,
                        [this] { chooseAndExport("map", tr("topography")); });
  exportMenu->addAction(tr("Map grid..."), this,
                        [this] { chooseAndExport("grid", tr("map grid")); });
  exportMenu->addAction(tr("Spectrum..."), this,
                        [this] { chooseAndExport("spectrum", tr("spectrum")); });
  exportMenu->addAction(tr("Overlay..."), this,
                        [this] { chooseAndExport("overlay", tr("overlay")); });
  exportMenu->addAction(tr("Activations..."), this,
                        [this] { chooseAndExport("activations", tr("activations")); });
  auto* save = new QPushButton(tr("Save ICA..."), this);
  save->setObjectName(QStringLiteral("icaSave"));
  save->setToolTip(tr("Write the decomposition to an ICA result file (HDF5, docs/hdf5-schema.md)"));
  apply_ = new QPushButton(tr("Apply: remove marked"), this);
  apply_->setObjectName(QStringLiteral("icaApply"));
  apply_->setToolTip(
      tr("A new recording without the marked components (back-projection of the "
         "others) over the decomposed channels; Edit > Undo removes it again; File "
         "> Export recording writes it"));
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("icaSummary"));
  summary_->setWordWrap(true);

  auto* bar = new QHBoxLayout;
  bar->addWidget(currentLabel_);
  bar->addWidget(markButton);
  bar->addWidget(threeD_);
  bar->addWidget(overlayCount_);
  bar->addWidget(link_);
  bar->addStretch(1);
  bar->addWidget(exportButton);
  bar->addWidget(save);
  bar->addWidget(apply_);

  auto* tableBox = new QWidget(this);
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  flagsBar_ = new IcaFlagsBar(this);
  tableLayout->addWidget(flagsBar_);
  tableLayout->addWidget(table_, 1);
  tableLayout->addWidget(summary_);
  // Left: the table over the current component's map and spectrum; middle: every map; right:
  // the activations over the cleaning overlay.
  auto* current = new QSplitter(Qt::Horizontal, this);
  current->addWidget(mapStack_);
  current->addWidget(spectrum_);
  current->setStretchFactor(0, 2);
  current->setStretchFactor(1, 3);
  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(tableBox);
  left->addWidget(current);
  left->setStretchFactor(0, 1);
  left->setStretchFactor(1, 1);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(browser_);
  right->addWidget(overlay_);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(grid_);
  split->addWidget(right);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 5);
  split->setSizes({400, 300, 500});  // proportions: the stretch factors act only on resizes
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& index) {
            if (syncing_ || !index.isValid()) return;
            setCurrentComponent(sorted_->mapToSource(index).row());
          });
  connect(model_, &IcaComponentModel::markToggled, this, [this](int component, bool marked) {
    // The box already shows the new state; the command records it for undo.
    model_->setMarked(component, !marked);
    if (undo_) {
      undo_->push(new MarkCommand(this, component, marked));
    } else {
      setMarked(component, marked);
    }
  });
  connect(markButton, &QPushButton::clicked, this, [this] { toggleMark(current_); });
  for (const QKeySequence& key : {QKeySequence(Qt::Key_M), QKeySequence(Qt::Key_Space)}) {
    auto* shortcut = new QShortcut(key, this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, [this] { toggleMark(current_); });
  }
  connect(grid_, &ScalpMapGrid::componentClicked, this, &IcaResultsPane::setCurrentComponent);
  connect(grid_, &ScalpMapGrid::componentToggled, this, &IcaResultsPane::toggleMark);
  connect(map_, &ScalpMapView::clicked, this, [this] { toggleMark(current_); });
  connect(browser_, &SignalBrowser::viewChanged, this, [this] {
    if (!overlayPending_) {
      overlayPending_ = true;
      QTimer::singleShot(0, this, &IcaResultsPane::updateOverlay);
    }
    if (syncing_ || !link_->isChecked()) return;
    emit timeWindowChanged(browser_->pageStart(), browser_->pageLength());
  });
  connect(browser_, &SignalBrowser::channelActivated, this, &IcaResultsPane::setCurrentComponent);
  connect(overlayCount_, &QSpinBox::valueChanged, this, &IcaResultsPane::updateOverlay);
  connect(save, &QPushButton::clicked, this, &IcaResultsPane::saveRequested);
  connect(apply_, &QPushButton::clicked, this, &IcaResultsPane::applyRequested);

  const IcaResult& r = file_->result;
  QString text = tr("%1 components of %2 channels, %3 samples at %4 Hz; %5 after %6 steps")
                     .arg(r.components)
                     .arg(file_->channels.size())
                     .arg(file_->samples)
                     .arg(file_->sampleRate)
                     .arg(r.converged ? tr("converged") : tr("NOT converged"))
                     .arg(r.steps);
  if (!file_->provenance.backend.empty())
    text += QStringLiteral("; ") + QString::fromStdString(file_->provenance.backend);
  summary_->setText(text);
  fillGrid();
  showCurrent();
  updateOverlay();
}

IcaResultsPane::~IcaResultsPane() = default;

void IcaResultsPane::setThreeDView(QWidget* view, MapSink setMap) {
  if (!view || mapStack_->count() > 1) return;
  mapStack_->addWidget(view);
  threeDMap_ = std::move(setMap);
  threeD_->setEnabled(true);
  threeD_->setToolTip(tr("Show the current component's map on a rotatable 3-D head"));
}

int IcaResultsPane::componentCount() const { return file_->result.components; }

void IcaResultsPane::setIcaPath(const QString& path) { icaPath_ = path; }

std::vector<ChannelInfo> IcaResultsPane::mapChannels() const {
  std::vector<ChannelInfo> out;
  for (const IcaFileChannel& c : file_->channels) {
    ChannelInfo info;
    info.label = c.label;
    info.name = c.name;
    info.unit = c.unit;
    info.position = c.position;
    info.type = parseChannelType(c.type).value_or(ChannelType::EEG);
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<double> IcaResultsPane::mapValues(int component) const {
  const IcaMatrix& m = file_->result.mixing;
  std::vector<double> v(static_cast<std::size_t>(m.rows));
  for (int i = 0; i < m.rows; ++i) v[static_cast<std::size_t>(i)] = m(i, component);
  return v;
}

void IcaResultsPane::fillGrid() {
  QStringList titles;
  const auto& metrics = model_->summary().components;
  for (int k = 0; k < componentCount(); ++k)
    titles << tr("IC%1 %2%")
                  .arg(k + 1)
                  .arg(metrics[static_cast<std::size_t>(k)].variancePercent, 0, 'f', 1);
  // The mixing matrix row-major (channels x components): column k is component k's map.
  grid_->setMaps(mapChannels(), file_->result.mixing.values, componentCount(), titles, tr("a.u."));
  for (int k = 0; k < componentCount(); ++k) grid_->setMarked(k, isMarked(k));
}

void IcaResultsPane::setCurrentComponent(int component) {
  if (component < 0 || component >= componentCount()) return;
  const bool changed = component != current_;
  current_ = component;
  showCurrent();
  if (changed) emit currentComponentChanged(component);
}

void IcaResultsPane::showCurrent() {
  const int k = current_;
  const IcaComponentMetrics& m = model_->summary().components[static_cast<std::size_t>(k)];
  currentLabel_->setText(
      tr("<b>IC %1</b> %2 %, kurt. %3%4")
          .arg(k + 1)
          .arg(m.variancePercent, 0, 'f', 1)
          .arg(m.kurtosis, 0, 'f', 1)
          .arg(isMarked(k) ? tr(" <font color=#c01c1c>marked</font>") : QString()));
  map_->setMap(mapChannels(), mapValues(k), tr("IC %1").arg(k + 1), tr("a.u."));
  // The 3-D view interpolates over ~10^4 vertices: only while it shows.
  if (threeDMap_ && mapStack_->currentIndex() == 1)
    threeDMap_(mapChannels(), mapValues(k), tr("IC %1").arg(k + 1), tr("a.u."));
  map_->setMarked(isMarked(k));
  grid_->setCurrent(k);
  {
    // The table row follows without re-entering setCurrentComponent.
    syncing_ = true;
    const QModelIndex row = sorted_->mapFromSource(model_->index(k, 0));
    table_->selectionModel()->setCurrentIndex(
        row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(row);
    syncing_ = false;
  }
  // The activation browser: the current component highlighted and in view.
  browser_->setSelectedChannels({k});
  const int first = browser_->firstVisibleChannel();
  const int count = browser_->visibleChannelCount();
  if (k < first || k >= first + count) browser_->setFirstVisibleChannel(std::max(0, k - count / 2));

  const auto& spectra = model_->summary().spectra;
  MarginalSpectrum s;
  if (static_cast<std::size_t>(k) < spectra.size()) {
    const WelchSpectrum& w = spectra[static_cast<std::size_t>(k)];
    for (std::size_t b = 0; b < w.power.size(); ++b) {
      const double f = static_cast<double>(b) * w.binHz;
      if (f < kSpectrumLowHz) continue;
      if (s.frequencyEdges.empty()) s.frequencyEdges.push_back(f - w.binHz / 2);
      s.frequencyEdges.push_back(f + w.binHz / 2);
      s.values.push_back(w.power[b]);
    }
  }
  s.valueUnit = tr("a.u.\u00b2/Hz");
  s.quantity = tr("IC %1 power (Welch)").arg(k + 1);
  spectrum_->setSpectrum(std::move(s));
}

bool IcaResultsPane::isMarked(int component) const { return model_->isMarked(component); }

std::vector<int> IcaResultsPane::markedComponents() const { return model_->markedComponents(); }

void IcaResultsPane::setMarked(int component, bool marked) {
  if (component < 0 || component >= componentCount()) return;
  model_->setMarked(component, marked);
  grid_->setMarked(component, marked);
  if (component == current_) showCurrent();
  markActivations();
  updateOverlay();
  emit marksChanged();
}

void IcaResultsPane::markActivations() {
  // The activation browser draws marked components as it draws bad channels.
  std::vector<std::string> names;
  for (int k : markedComponents()) names.push_back("IC " + std::to_string(k + 1));
  browser_->setBadChannels(names);
}

void IcaResultsPane::setMarkedComponents(const std::vector<int>& components) {
  for (int k = 0; k < componentCount(); ++k) {
    const bool on = std::find(components.begin(), components.end(), k) != components.end();
    model_->setMarked(k, on);
    grid_->setMarked(k, on);
  }
  showCurrent();
  markActivations();
  updateOverlay();
  emit marksChanged();
}

void IcaResultsPane::toggleMark(int component) {
  if (component < 0 || component >= componentCount()) return;
  const bool on = !isMarked(component);
  if (undo_) {
    undo_->push(new MarkCommand(this, component, on));
  } else {
    setMarked(component, on);
  }
}

void IcaResultsPane::markAll(const std::vector<int>& components, const QString& what) {
  std::vector<int> todo;
  for (int k : components)
    if (k >= 0 && k < componentCount() && !isMarked(k)) todo.push_back(k);
  if (todo.empty()) return;
  if (!undo_) {
    for (int k : todo) setMarked(k, true);
    return;
  }
  undo_->beginMacro(what);
  for (int k : todo) undo_->push(new MarkCommand(this, k, true));
  undo_->endMacro();
}

void IcaResultsPane::setFlagRecord(std::optional<PipelineIcaFlags> record) {
  flagRecord_ = std::move(record);
  emit flagRecordChanged();
}

void IcaResultsPane::setFlags(IcaFlags flags) {
  PipelineIcaFlags record = flagRecord_.value_or(PipelineIcaFlags{});
  record.params = flags.params;
  model_->setFlags(std::move(flags));
  showCurrent();
  emit flagsChanged();
  setFlagRecord(record);
}

int IcaResultsPane::markFlagged(const std::vector<IcaFlagLabel>& labels, double minConfidence) {
  const IcaFlags& flags = model_->summary().flags;
  const std::vector<int> flagged = flaggedComponents(flags, labels, minConfidence);
  PipelineIcaFlags record = flagRecord_.value_or(PipelineIcaFlags{});
  record.params = flags.params;
  record.minConfidence =
      record.reject.empty() ? minConfidence : std::min(record.minConfidence, minConfidence);
  for (IcaFlagLabel l : labels)
    if (std::find(record.reject.begin(), record.reject.end(), l) == record.reject.end())
      record.reject.push_back(l);
  std::vector<int> todo;
  for (int k : flagged)
    if (!isMarked(k)) todo.push_back(k);
  if (todo.empty() && flagRecord_ == record) return 0;  // nothing new: no empty undo step
  const QString what = labels.size() == 1 ? tr("mark %1 components flagged %2")
                                                .arg(todo.size())
                                                .arg(QString::fromUtf8(icaFlagLabelName(labels[0])))
                                          : tr("mark %1 flagged components").arg(todo.size());
  if (!undo_) {
    for (int k : todo) setMarked(k, true);
    setFlagRecord(record);
    return static_cast<int>(todo.size());
  }
  undo_->beginMacro(what);
  for (int k : todo) undo_->push(new MarkCommand(this, k, true));
  undo_->push(new FlagRecordCommand(this, flagRecord_, record));
  undo_->endMacro();
  return static_cast<int>(todo.size());
}

bool IcaResultsPane::timeLinked() const { return link_->isChecked(); }

void IcaResultsPane::setTimeWindow(double startSeconds, double seconds) {
  if (!link_->isChecked()) return;
  syncing_ = true;
  browser_->setPageLength(std::max(seconds, SignalBrowser::kMinPageLength));
  browser_->setPageStart(startSeconds);
  syncing_ = false;
}

void IcaResultsPane::updateOverlay() {
  overlayPending_ = false;
  const IcaFile& f = *file_;
  std::vector<std::size_t> channels;
  for (const IcaFileChannel& c : f.channels) channels.push_back(c.recordingIndex);
  SignalBlock block;
  try {
    block = extractBlock(*recording_, channels, browser_->pageStart(), browser_->pageLength());
  } catch (const std::exception&) {
    overlay_->setRows({}, f.sampleRate, 0.0, tr("No samples on this page"));
    return;
  }
  const std::vector<int> marked = markedComponents();
  const SignalBlock cleaned = icaBackProject(f.result, block, marked);
  // Channels ranked by the power the marks remove over the page; without marks, the frontal
  // sites first (where blinks show), then recording order.
  std::vector<double> removed(channels.size(), 0.0);
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const float* a = block.channel(i);
    const float* b = cleaned.channel(i);
    for (int64_t t = 0; t < block.samples; ++t) removed[i] += double(a[t] - b[t]) * (a[t] - b[t]);
    if (marked.empty()) {
      const auto& sites = icaFrontalProxySites();
      const std::string& name = recording_->channels[channels[i]].name;
      removed[i] = std::find(sites.begin(), sites.end(), name) != sites.end() ? 1.0 : 0.0;
    }
  }
  std::vector<std::size_t> order(channels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return removed[a] > removed[b]; });
  order.resize(
      std::min<std::size_t>(order.size(), static_cast<std::size_t>(overlayCount_->value())));
  std::sort(order.begin(), order.end());
  std::vector<IcaOverlayRow> rows;
  for (std::size_t i : order) {
    IcaOverlayRow row;
    row.label = QString::fromStdString(recording_->channels[channels[i]].name);
    row.original.assign(block.channel(i), block.channel(i) + block.samples);
    row.cleaned.assign(cleaned.channel(i), cleaned.channel(i) + cleaned.samples);
    rows.push_back(std::move(row));
  }
  const QString note =
      marked.empty()
          ? tr("No component marked: cleaned = original. Mark components to preview their removal.")
          : tr("Without %1: original grey, cleaned blue (the %2 channels changed most)")
                .arg(QString::fromStdString(describeRejected(marked)))
                .arg(rows.size());
  overlay_->setRows(std::move(rows), f.sampleRate,
                    static_cast<double>(block.firstSample) / f.sampleRate, note);
}

bool IcaResultsPane::exportFigure(const QString& which, const QString& path, QString* error) const {
  if (which == QLatin1String("spectrum")) return spectrum_->exportImage(path, error);
  if (which == QLatin1String("overlay")) return overlay_->exportImage(path, error);
  if (which == QLatin1String("activations")) return browser_->exportPage(path, error);
  const QSize size = which == QLatin1String("grid") ? grid_->exportSize() : map_->size();
  return exportView(
      path, size,
      [this, which](QPainter& p, const QRect& a) {
        if (which == QLatin1String("grid")) {
          grid_->render(p, a);
        } else {
          map_->render(p, a);
        }
      },
      title_, error);
}

void IcaResultsPane::chooseAndExport(const QString& which, const QString& what) {
  chooseAndExportFigure(this, what, [this, which](const QString& path, QString* error) {
    return exportFigure(which, path, error);
  });
}

}  // namespace modescope
