#include "app/gui/ar_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <map>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"

namespace modescope {
namespace {

const char kDefaultPreset[] = "bci2000";

bool sameParams(const BurgArParams& a, const BurgArParams& b) {
  for (const auto& f : burgArParamTable().fields())
    if (f.get(a) != f.get(b)) return false;
  return true;
}

QDoubleSpinBox* spin(QWidget* parent, const char* name, const QString& tip, double lo, double hi,
                     int decimals, const QString& suffix) {
  auto* s = named(new QDoubleSpinBox(parent), name, tip);
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSuffix(suffix);
  s->setKeyboardTracking(false);
  return s;
}

QWidget* row(QWidget* a, QWidget* b) {
  auto* w = new QWidget;
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(a, 1);
  l->addWidget(b);
  return w;
}

}  // namespace

std::pair<std::string, std::string> defaultArClasses(const Recording& rec) {
  std::map<std::string, int> counts;
  for (const Annotation& a : rec.annotations) ++counts[a.text];
  if (counts.count("T1") && counts.count("T2")) return {"T1", "T2"};
  std::vector<std::pair<int, std::string>> byCount;
  for (const auto& [text, n] : counts) byCount.emplace_back(-n, text);
  std::sort(byCount.begin(), byCount.end());
  std::pair<std::string, std::string> out;
  if (byCount.size() >= 1) out.first = byCount[0].second;
  if (byCount.size() >= 2) out.second = byCount[1].second;
  return out;
}

ArDialog::ArDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                   QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)) {
  setWindowTitle(tr("Event-related spectra (AR)"));
  setObjectName(QStringLiteral("arDialog"));
  filling_ = true;
  const Recording& rec = *recording_;

  preset_ = named(new QComboBox(this), "arPreset",
                  tr("Named parameter sets: bci2000 is BCI2000's ARFilter default (order 16, "
                     "0.5 s windows, 3 Hz bins 0-30 Hz, 15 evaluations); wilson2009 is Wilson "
                     "and Williams 2009 (order 30, 250 ms windows, 2 Hz bins, 11 evaluations). "
                     "Choosing one fills every field; editing a field makes the set custom."));
  addPresetItems(preset_, burgArPresets());
  presetNote_ = new QLabel(this);
  presetNote_->setObjectName(QStringLiteral("arPresetNote"));
  presetNote_->setWordWrap(true);
  presetNote_->setForegroundRole(QPalette::PlaceholderText);
  // Room for the longest description: a wrapped label in a form layout gets the height of its
  // first text only, and the presets' descriptions differ in length.
  presetNote_->setMinimumHeight(presetNote_->fontMetrics().lineSpacing() * 5);
  presetNote_->setMinimumWidth(260);

  // The AR fields come from their declarations (burgArParamTable()): range, unit, help.
  fields_.build(burgArParamTable(), this, QStringLiteral("ar"));
  // Coefficients have no bins and so no r^2 map (checkArJob refuses them): the dialog, whose job
  // is the map, does not offer them. The last choice goes, so item data stays the enum's value.
  auto* output = fields_.editorAs<QComboBox>("output");
  output->removeItem(output->findData(static_cast<int>(ArOutput::Coefficients)));
  const auto editor = [this](const char* key) { return fields_.editor(key); };

  auto* arBox = new QGroupBox(tr("Burg AR spectra"), this);
  auto* arForm = new QFormLayout(arBox);
  arForm->addRow(tr("Preset:"), preset_);
  arForm->addRow(QString(), presetNote_);
  arForm->addRow(tr("Order:"), editor("order"));
  arForm->addRow(tr("Window:"), row(editor("window"), editor("window.unit")));
  arForm->addRow(tr("Step:"), row(editor("step"), editor("step.unit")));
  arForm->addRow(tr("Detrend:"), editor("detrend"));
  arForm->addRow(tr("First bin centre:"), editor("firstBinCenter"));
  arForm->addRow(tr("Last bin centre:"), editor("lastBinCenter"));
  arForm->addRow(tr("Bin width:"), editor("binWidth"));
  arForm->addRow(tr("Evaluations per bin:"), editor("evaluationsPerBin"));
  arForm->addRow(tr("Bin grid:"), editor("binGrid"));
  arForm->addRow(tr("Output:"), editor("output"));

  // Classes: every annotation text with its count.
  std::map<std::string, int> counts;
  for (const Annotation& a : rec.annotations) ++counts[a.text];
  classA_ = named(new QComboBox(this), "arClassA",
                  tr("Class A: the annotations with exactly this text are its trials. Signed r^2 "
                     "is positive where class A has the larger mean."));
  classB_ = named(new QComboBox(this), "arClassB", tr("Class B, compared with class A."));
  for (QComboBox* c : {classA_, classB_}) {
    for (const auto& [text, n] : counts)
      c->addItem(tr("%1  (%2 trials)").arg(QString::fromStdString(text)).arg(n),
                 QString::fromStdString(text));
  }
  classNote_ = new QLabel(this);
  classNote_->setWordWrap(true);
  classNote_->setForegroundRole(QPalette::PlaceholderText);
  if (counts.empty()) classNote_->setText(tr("This recording has no annotations: no trials."));
  classNote_->setVisible(counts.empty());
  offset_ = spin(this, "arOffset",
                 tr("Trial start relative to each annotation's onset (negative: before it)."),
                 -3600.0, 3600.0, 3, tr(" s"));
  length_ = spin(this, "arLength",
                 tr("Trial length. \"annotation duration\": each annotation's own duration (on "
                    "the demo about 4.1 s)."),
                 0.0, 3600.0, 3, tr(" s"));
  length_->setSpecialValueText(tr("annotation duration"));
  filter_ = named(new QComboBox(this), "arSpatialFilter",
                  tr("Applied to every trial before the spectra (one matrix product, "
                     "docs/spatial-filters.md). Laplacians need electrode positions (the "
                     "montage); a user matrix is a text file of weights."));
  filter_->addItem(tr("None"), static_cast<int>(ArSpatialFilterKind::None));
  filter_->addItem(tr("Common average reference (CAR)"),
                   static_cast<int>(ArSpatialFilterKind::CommonAverage));
  filter_->addItem(tr("Small Laplacian"), static_cast<int>(ArSpatialFilterKind::SmallLaplacian));
  filter_->addItem(tr("Large Laplacian"), static_cast<int>(ArSpatialFilterKind::LargeLaplacian));
  filter_->addItem(tr("User matrix file..."), static_cast<int>(ArSpatialFilterKind::UserMatrix));
  weighting_ = named(new QComboBox(this), "arWeighting",
                     tr("Laplacian neighbour weights: equal (Hjorth) or inverse distance "
                        "(McFarland et al. 1997)."));
  weighting_->addItem(tr("equal weights"), static_cast<int>(LaplacianWeighting::Equal));
  weighting_->addItem(tr("inverse distance"),
                      static_cast<int>(LaplacianWeighting::InverseDistance));
  matrixPath_ = named(new QLineEdit(this), "arMatrixPath",
                      tr("Text file of the user matrix: named (first line the input channels, "
                         "then one output name and its weights per line) or plain."));
  matrixPath_->setPlaceholderText(tr("matrix file"));
  browse_ = new QToolButton(this);
  browse_->setText(tr("..."));
  browse_->setToolTip(tr("Choose the matrix file"));

  auto* trialBox = new QGroupBox(tr("Trials and spatial filter"), this);
  auto* trialForm = new QFormLayout(trialBox);
  trialForm->addRow(tr("Class A:"), classA_);
  trialForm->addRow(tr("Class B:"), classB_);
  trialForm->addRow(QString(), classNote_);
  trialForm->addRow(tr("Trial offset:"), offset_);
  trialForm->addRow(tr("Trial length:"), length_);
  trialForm->addRow(tr("Spatial filter:"), filter_);
  trialForm->addRow(tr("Laplacian weights:"), weighting_);
  trialForm->addRow(tr("Matrix file:"), row(matrixPath_, browse_));

  channels_ = new ChannelChecklist(rec, selected, this);
  range_ = new RangeBackendBox(
      rec.duration(), 0.0, -1.0,
      tr("Trials must start at or after this time (s from the recording start)."),
      tr("Trials must end within this many seconds after the start; trials reaching outside "
         "are skipped and listed in the diagnostics."),
      this);
  range_->setTitle(tr("Trials within, and backend"));
  range_->setBackendToolTip(
      tr("Where the spectra run. Auto: the GPU when one is usable, else the CPU (double "
         "precision, all cores)."));

  const RunFooter footer = makeRunFooter(this, QStringLiteral("arValidationMessage"), true);
  error_ = footer.error;
  run_ = footer.run;
  QDialogButtonBox* buttons = footer.buttons;

  layOutMethodDialog(this, {{arBox}, {trialBox, range_}}, channels_, {error_, buttons});

  fields_.onChanged(this, [this] { onFieldChanged(); });
  auto revalidate = [this] {
    if (!filling_) validate();
  };
  for (QComboBox* c : {classA_, classB_, filter_, weighting_})
    connect(c, &QComboBox::currentIndexChanged, this, revalidate);
  connect(offset_, &QDoubleSpinBox::valueChanged, this, revalidate);
  connect(length_, &QDoubleSpinBox::valueChanged, this, revalidate);
  connect(matrixPath_, &QLineEdit::textChanged, this, revalidate);
  connect(channels_, &ChannelChecklist::changed, this, revalidate);
  connect(range_, &RangeBackendBox::changed, this, revalidate);
  connect(browse_, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Spatial filter matrix"), matrixPath_->text(),
        tr("Matrix files (*.txt *.tsv *.csv *.mat.txt);;All files (*)"));
    if (path.isEmpty()) return;
    matrixPath_->setText(path);
    filter_->setCurrentIndex(filter_->findData(static_cast<int>(ArSpatialFilterKind::UserMatrix)));
  });
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (filling_ || index <= 0) return;
    applyPreset(preset_->itemData(index).toString());
  });

  const auto [a, b] = defaultArClasses(rec);
  classA_->setCurrentIndex(std::max(0, classA_->findData(QString::fromStdString(a))));
  classB_->setCurrentIndex(std::max(0, classB_->findData(QString::fromStdString(b))));
  filling_ = false;
  applyPreset(QLatin1String(kDefaultPreset));
}

BurgArParams ArDialog::params() const { return fields_.get(); }

void ArDialog::setParams(const BurgArParams& p) {
  const bool wasFilling = filling_;
  filling_ = true;
  fields_.set(p);
  // Coefficients are not offered (see the constructor): such parameters show power.
  if (p.output == ArOutput::Coefficients) fields_.editorAs<QComboBox>("output")->setCurrentIndex(0);
  filling_ = wasFilling;
  onFieldChanged();
}

bool ArDialog::applyPreset(const QString& name) {
  for (const BurgArPreset& p : burgArPresets()) {
    if (QString::fromStdString(p.name) != name) continue;
    setParams(p.params);
    return true;
  }
  return false;
}

QString ArDialog::currentPresetName() const { return preset_->currentData().toString(); }

void ArDialog::setClasses(const QString& a, const QString& b) {
  const int ia = classA_->findData(a), ib = classB_->findData(b);
  if (ia >= 0) classA_->setCurrentIndex(ia);
  if (ib >= 0) classB_->setCurrentIndex(ib);
  validate();
}

void ArDialog::setSpatialFilter(ArSpatialFilterKind kind, const QString& matrixPath) {
  if (!matrixPath.isEmpty()) matrixPath_->setText(matrixPath);
  filter_->setCurrentIndex(filter_->findData(static_cast<int>(kind)));
  validate();
}

void ArDialog::setTrialWindow(double offsetSeconds, double lengthSeconds) {
  offset_->setValue(offsetSeconds);
  length_->setValue(std::max(0.0, lengthSeconds));
  validate();
}

void ArDialog::onFieldChanged() {
  if (filling_) return;
  const BurgArParams p = params();
  const auto& presets = burgArPresets();
  const int match = matchingPresetIndex(
      presets, [&p](const BurgArPreset& preset) { return sameParams(p, preset.params); });
  showPresetMatch(preset_, presetNote_, presets, match, tr("Custom parameters"));
  validate();
}

void ArDialog::validate() {
  const auto kind = static_cast<ArSpatialFilterKind>(filter_->currentData().toInt());
  const bool laplacian =
      kind == ArSpatialFilterKind::SmallLaplacian || kind == ArSpatialFilterKind::LargeLaplacian;
  weighting_->setEnabled(laplacian);
  matrixPath_->setEnabled(kind == ArSpatialFilterKind::UserMatrix);
  browse_->setEnabled(kind == ArSpatialFilterKind::UserMatrix);
  QString problem;
  try {
    checkArJob(*recording_, request().spec);
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
  }
  problem_ = problem;
  showValidation(error_, run_, problem);
}

ArRequest ArDialog::request() const {
  ArRequest r;
  const RequestSelection selection = range_->selection(*channels_);
  r.backend = selection.backend;
  ArJobSpec& s = r.spec;
  static_cast<Selection&>(s) = selection;
  s.classA = classA_->currentData().toString().toStdString();
  s.classB = classB_->currentData().toString().toStdString();
  s.params = params();
  s.presetName = currentPresetName().toStdString();
  s.offsetSeconds = offset_->value();
  s.lengthSeconds = length_->value();
  s.filter = static_cast<ArSpatialFilterKind>(filter_->currentData().toInt());
  s.weighting = static_cast<LaplacianWeighting>(weighting_->currentData().toInt());
  s.filterPath = matrixPath_->text().trimmed().toStdString();
  return r;
}

void ArDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
