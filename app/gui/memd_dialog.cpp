#include "app/gui/memd_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <exception>

#include "app/gui/channel_checklist.h"
#include "app/gui/dialog_parts.h"
#include "app/gui/range_backend_box.h"

namespace modescope {
namespace {

// memd.m's own defaults are the natural start (Rehman and Mandic 2010).
const char kPreferredPreset[] = "rehman-mandic";

// Every declared field equal (the table is the one list of fields).
bool sameMemdParams(const MemdParams& a, const MemdParams& b) {
  for (const auto& f : memdParamTable().fields())
    if (!(f.get(a) == f.get(b))) return false;
  return true;
}

}  // namespace

MemdDialog::MemdDialog(std::shared_ptr<const Recording> recording, const std::vector<int>& selected,
                       double startSeconds, double durationSeconds, std::size_t deviceBytes,
                       QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)), deviceBytes_(deviceBytes) {
  setWindowTitle(tr("Multivariate EMD (MEMD, NA-MEMD)"));
  filling_ = true;

  fields_.build(memdParamTable(), this, QStringLiteral("memd"));
  preset_ = named(new QComboBox(this), "memdPreset",
                  tr("Named parameter sets reproducing the reference codes; choosing one fills "
                     "every field. Editing a field afterwards makes the set custom."));
  addPresetItems(preset_, memdPresets());
  presetNote_ = named(new QLabel(this), "memdPresetNote", QString());
  presetNote_->setWordWrap(true);
  presetNote_->setStyleSheet(QStringLiteral("color: palette(mid)"));

  auto* modesBox = new QGroupBox(tr("Directions and modes"), this);
  auto* modesForm = new QFormLayout(modesBox);
  modesForm->addRow(tr("Directions:"), fields_.editor("directions"));
  modesForm->addRow(tr("Max IMFs:"), fields_.editor("maxImfs"));
  modesForm->addRow(tr("GPU precision:"), fields_.editor("gpuPrecision"));

  auto* stopBox = new QGroupBox(tr("Sifting stop rule"), this);
  auto* stopForm = new QFormLayout(stopBox);
  auto* thresholds = new QHBoxLayout;
  for (const char* key : {"sd", "sd2", "tol"}) thresholds->addWidget(fields_.editor(key));
  stopForm->addRow(tr("Rule:"), fields_.editor("stop"));
  stopForm->addRow(tr("sd / sd2 / tol:"), thresholds);
  stopForm->addRow(tr("Max sifts:"), fields_.editor("maxSifts"));
  stopForm->addRow(tr("fix_h count:"), fields_.editor("sNumber"));
  stopForm->addRow(tr("Fixed sifts:"), fields_.editor("fixedSifts"));

  auto* noiseBox = new QGroupBox(tr("Noise-assisted MEMD (NA-MEMD)"), this);
  noiseBox->setToolTip(
      tr("White-noise channels decomposed with the data and dropped from the output (Rehman "
         "and Mandic 2011); 0 noise channels is plain MEMD."));
  auto* noiseForm = new QFormLayout(noiseBox);
  noiseForm->addRow(tr("Noise channels:"), fields_.editor("noiseChannels"));
  noiseForm->addRow(tr("Noise level:"), fields_.editor("noiseLevel"));
  noiseForm->addRow(tr("Noise draws:"), fields_.editor("ensembleSize"));
  noiseForm->addRow(tr("Seed:"), fields_.editor("seed"));

  channels_ = new ChannelChecklist(*recording_, selected, this);
  connect(channels_, &ChannelChecklist::changed, this, &MemdDialog::onFieldChanged);
  range_ = new RangeBackendBox(
      recording_->duration(), startSeconds, durationSeconds,
      tr("Start of the decomposed range, seconds from the recording start."),
      tr("Length of the decomposed range. MEMD projects every sift on K directions: its cost "
         "grows with samples x channels x directions."),
      this);
  connect(range_, &RangeBackendBox::changed, this, &MemdDialog::onFieldChanged);

  memoryPlan_ = named(new QLabel(this), "memoryPlan",
                      tr("What the run needs: the CUDA plan (engine/memd/memd_memory.h) against "
                         "the device's memory, or the size of the result on the CPU"));
  memoryPlan_->setWordWrap(true);
  memoryPlan_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  fields_.onChanged(this, [this] { onFieldChanged(); });
  connect(preset_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (filling_ || index <= 0) return;
    applyPreset(preset_->itemData(index).toString());
  });

  const RunFooter footer = makeRunFooter(this, QStringLiteral("memdValidationMessage"), true);
  error_ = footer.error;
  run_ = footer.run;

  auto* presetRow = new QWidget;
  auto* top = new QFormLayout(presetRow);
  top->setContentsMargins(0, 0, 0, 0);
  top->addRow(tr("Preset:"), preset_);
  top->addRow(QString(), presetNote_);
  layOutMethodDialog(this, {{presetRow, modesBox, noiseBox}, {stopBox, range_}}, channels_,
                     {memoryPlan_, error_, footer.buttons});

  filling_ = false;
  if (!applyPreset(QLatin1String(kPreferredPreset))) setParams(MemdParams{});
}

MemdParams MemdDialog::params() const { return fields_.get(); }

void MemdDialog::setParams(const MemdParams& p) {
  const bool wasFilling = filling_;
  filling_ = true;
  fields_.set(p);
  filling_ = wasFilling;
  onFieldChanged();
}

bool MemdDialog::applyPreset(const QString& name) {
  for (const auto& p : memdPresets()) {
    if (QString::fromStdString(p.name) != name) continue;
    setParams(p.params);  // onFieldChanged() then selects the matching preset
    return true;
  }
  return false;
}

QString MemdDialog::currentPresetName() const { return preset_->currentData().toString(); }
QString MemdDialog::memoryPlanText() const { return memoryPlan_->text(); }

void MemdDialog::onFieldChanged() {
  if (filling_) return;
  const MemdParams p = params();
  const int match = matchingPresetIndex(memdPresets(), [&p](const ParamPreset<MemdParams>& preset) {
    return sameMemdParams(p, preset.params);
  });
  showPresetMatch(preset_, presetNote_, memdPresets(), match, tr("Custom parameters"));
  fields_.enableApplicable(p);
  validate();
}

void MemdDialog::validate() {
  const MemdRequest r = request();
  QString problem = fields_.problem(r.params);
  if (problem.isEmpty()) {
    try {
      checkMemdJob(*recording_, toJobSpec(r, std::string()));  // the engine's words
    } catch (const std::exception& e) {
      problem = QString::fromUtf8(e.what());
    }
  }
  // The plan needs a valid selection; on a CPU-only run the device does not matter.
  const bool onCpu = r.backend == BackendChoice::Cpu;
  MemdMemoryPlan plan;
  if (problem.isEmpty()) {
    plan = memdMemoryPlan(r.params, static_cast<int>(r.channels.size()),
                          memdRequestSamples(*recording_, r), onCpu ? 0 : deviceBytes_);
    if (plan.refused) problem = tr("Will not fit: %1").arg(QString::fromStdString(plan.text));
  }
  memoryPlan_->setText(QString::fromStdString(plan.text));
  memoryPlan_->setVisible(!plan.text.empty() && !plan.refused);
  problem_ = problem;
  showValidation(error_, run_, problem);
}

MemdRequest MemdDialog::request() const {
  MemdRequest r;
  r.params = params();
  static_cast<RequestSelection&>(r) = range_->selection(*channels_);
  r.presetName = currentPresetName().toStdString();
  return r;
}

void MemdDialog::accept() {
  validate();
  if (!problem_.isEmpty()) return;
  QDialog::accept();
}

}  // namespace modescope
