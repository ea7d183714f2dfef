#include "app/gui/epoch_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/channel_checklist.h"
#include "engine/core/error.h"
#include "engine/epochs/epochs.h"
#include "widgets/annotation_colours.h"

namespace modescope {
namespace {

std::vector<std::string> splitDifferences(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
    if (!part.trimmed().isEmpty()) out.push_back(part.trimmed().toStdString());
  return out;
}

// `rec` with the user's annotations added, except those it already carries (the opened
// recording carries the user's bad segments for the methods): each is counted once.
Recording withUserAnnotations(const Recording& rec, const std::vector<Annotation>& user) {
  Recording all = rec;
  for (const Annotation& a : user) {
    const bool carried =
        std::any_of(rec.annotations.begin(), rec.annotations.end(), [&](const Annotation& b) {
          return b.onset == a.onset && b.duration == a.duration && b.text == a.text;
        });
    if (!carried) all.annotations.push_back(a);
  }
  return all;
}

}  // namespace

EpochDialog::EpochDialog(std::shared_ptr<const Recording> recording,
                         std::vector<Annotation> userAnnotations, const std::vector<int>& selected,
                         QWidget* parent)
    : QDialog(parent), recording_(std::move(recording)), user_(std::move(userAnnotations)) {
  setWindowTitle(tr("Epochs and averages"));
  setObjectName(QStringLiteral("epochDialog"));
  const Recording all = withUserAnnotations(*recording_, user_);
  types_ = new QListWidget;
  types_->setObjectName(QStringLiteral("eventTypes"));
  types_->setIconSize(QSize(12, 12));
  for (const auto& [type, count] : eventTypeCounts(all)) {
    auto* item =
        new QListWidgetItem(tr("%1  (%2)").arg(QString::fromStdString(type)).arg(count), types_);
    item->setData(Qt::UserRole, QString::fromStdString(type));
    item->setData(Qt::DecorationRole, annotationColour(type));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    // Bad segments are what epochs are rejected by, not conditions; a type with one event has
    // no standard error, so it starts unchecked too.
    const bool bad =
        QString::fromStdString(type).startsWith(QStringLiteral("bad"), Qt::CaseInsensitive);
    item->setCheckState(bad || count < 2 ? Qt::Unchecked : Qt::Checked);
  }
  types_->setToolTip(tr("Each checked event type is a condition: its epochs are averaged"));
  connect(types_, &QListWidget::itemChanged, this, &EpochDialog::revalidate);
  channels_ = new ChannelChecklist(*recording_, selected);
  connect(channels_, &ChannelChecklist::changed, this, &EpochDialog::revalidate);

  auto* form = new QFormLayout;
  editors_.build(epochParamTable(), this, QStringLiteral("epoch"));
  for (const auto& f : epochParamTable().fields()) {
    QWidget* w = editors_.editor(f.decl.key);
    // A check box carries its own label.
    if (f.decl.kind == ParamKind::Flag)
      form->addRow(w);
    else
      form->addRow(QString::fromStdString(f.decl.label), w);
    onParamEditorChanged(w, this, [this] { revalidate(); });
  }
  differences_ = new QLineEdit;
  differences_->setObjectName(QStringLiteral("epochDifferences"));
  differences_->setPlaceholderText(tr("e.g. T1-T2 (comma-separated)"));
  differences_->setToolTip(tr("Difference waves A - B of two conditions"));
  form->addRow(tr("Difference waves"), differences_);

  badSegments_ = new QLabel;
  badSegments_->setObjectName(QStringLiteral("epochBadSegments"));
  badSegments_->setWordWrap(true);
  badSegments_->setToolTip(
      tr("Bad segments: the file's annotations beginning with 'bad' and the segments marked in "
         "the window (Shift+drag, the Bad channels dock). An epoch overlapping one is rejected "
         "while 'Reject bad segments' is on."));
  problem_ = new QLabel;
  problem_->setObjectName(QStringLiteral("epochProblem"));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #b00020"));
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Compute"));
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* left = new QVBoxLayout;
  left->addWidget(new QLabel(tr("Event types (conditions)")));
  left->addWidget(types_, 1);
  left->addWidget(channels_, 2);
  auto* right = new QVBoxLayout;
  right->addLayout(form);
  right->addWidget(badSegments_);
  right->addStretch(1);
  auto* columns = new QHBoxLayout;
  columns->addLayout(left, 1);
  columns->addLayout(right, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(columns, 1);
  layout->addWidget(problem_);
  layout->addWidget(buttons_);
  editors_.set(EpochParams{});
  revalidate();
}

EpochJobSpec EpochDialog::spec() const {
  EpochJobSpec s;
  s.epochs.params = editors_.get();
  for (int i = 0; i < types_->count(); ++i)
    if (types_->item(i)->checkState() == Qt::Checked)
      s.epochs.eventTypes.push_back(types_->item(i)->data(Qt::UserRole).toString().toStdString());
  s.epochs.channels = channels_->checkedChannels();
  // The user's marks beginning with "bad" (the bad-marks dock's segments) are bad segments as
  // the file's are.
  Recording marks;
  marks.annotations = user_;
  s.epochs.badSegments = badSegmentsFromAnnotations(marks);
  s.differences = splitDifferences(differences_->text());
  return s;
}

void EpochDialog::setEventTypes(const std::vector<std::string>& types) {
  for (int i = 0; i < types_->count(); ++i) {
    const std::string t = types_->item(i)->data(Qt::UserRole).toString().toStdString();
    types_->item(i)->setCheckState(
        std::find(types.begin(), types.end(), t) != types.end() ? Qt::Checked : Qt::Unchecked);
  }
  revalidate();
}

void EpochDialog::setParams(const EpochParams& p) {
  editors_.set(p);
  revalidate();
}

void EpochDialog::setDifferences(const QString& text) {
  differences_->setText(text);
  revalidate();
}

QString EpochDialog::problem() const { return problem_->text(); }

QString EpochDialog::badSegmentText() const { return badSegments_->text(); }

void EpochDialog::updateBadSegmentText(const EpochJobSpec& s) {
  // The recording's own "bad" annotations, less those that are the window's marks (the opened
  // recording carries them too), then the marks.
  EpochSpec es = s.epochs;
  std::size_t fromFile = 0;
  for (const TimeSpan& b : badSegmentsFromAnnotations(*recording_)) {
    const bool marked = std::any_of(
        es.badSegments.begin(), es.badSegments.end(),
        [&](const TimeSpan& t) { return t.onset == b.onset && t.duration == b.duration; });
    if (marked) continue;
    es.badSegments.push_back(b);
    ++fromFile;
  }
  const std::size_t marked = es.badSegments.size() - fromFile;
  if (es.badSegments.empty()) {
    badSegments_->setText(tr("No bad segments: mark them with Shift+drag on the traces."));
    return;
  }
  QString text = tr("%n bad segment(s) (%1 marked in the window, %2 in the file)", "",
                    static_cast<int>(es.badSegments.size()))
                     .arg(marked)
                     .arg(fromFile);
  const EpochPreview p = previewEpochs(withUserAnnotations(*recording_, user_), es);
  if (!s.epochs.params.rejectBadSegments)
    text += tr(": kept (rejection is off).");
  else if (p.events > 0)
    text += tr(": %1 of %2 epochs overlap them and are rejected.").arg(p.badSegment).arg(p.events);
  else
    text += tr(": epochs overlapping them are rejected.");
  badSegments_->setText(text);
}

void EpochDialog::revalidate() {
  const EpochParams p = editors_.get();
  editors_.enableApplicable(p);
  QString message = editors_.problem(p);
  if (message.isEmpty()) {
    try {
      validateEpochParams(p);
    } catch (const Error& e) {
      message = QString::fromStdString(e.what());
    }
  }
  const EpochJobSpec s = spec();
  updateBadSegmentText(s);
  if (message.isEmpty() && s.epochs.eventTypes.empty())
    message = tr("Check at least one event type to epoch around.");
  if (message.isEmpty() && s.epochs.channels.empty()) message = tr("Check at least one channel.");
  if (message.isEmpty()) {
    for (const std::string& d : s.differences) {
      bool ok = false;
      for (std::size_t i = d.find('-'); i != std::string::npos && !ok; i = d.find('-', i + 1)) {
        const std::string a = d.substr(0, i), b = d.substr(i + 1);
        const auto& t = s.epochs.eventTypes;
        ok = std::find(t.begin(), t.end(), a) != t.end() &&
             std::find(t.begin(), t.end(), b) != t.end();
      }
      if (!ok) {
        message = tr("The difference '%1' does not name two checked event types as A-B.")
                      .arg(QString::fromStdString(d));
        break;
      }
    }
  }
  problem_->setText(message);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(message.isEmpty());
}

}  // namespace modescope
