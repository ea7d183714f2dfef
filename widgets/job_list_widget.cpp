#include "widgets/job_list_widget.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <vector>

namespace modescope {
namespace {

constexpr int kProgressSteps = 1000;

QString stateText(JobState s) { return QString::fromLatin1(jobStateName(s)); }

QString elapsedText(double seconds) {
  if (seconds < 60) return QString::number(seconds, 'f', 1) + QStringLiteral(" s");
  const int total = static_cast<int>(seconds);
  return QStringLiteral("%1:%2 min").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

JobListWidget::JobListWidget(QWidget* parent) : QWidget(parent) {
  tree_ = new QTreeWidget(this);
  tree_->setColumnCount(5);
  tree_->setHeaderLabels({tr("Job"), tr("State"), tr("Progress"), tr("Elapsed"), QString()});
  tree_->setRootIsDecorated(false);
  tree_->setUniformRowHeights(true);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  tree_->header()->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
  tree_->header()->setSectionResizeMode(ProgressColumn, QHeaderView::Interactive);
  tree_->header()->resizeSection(ProgressColumn, 220);
  tree_->header()->setStretchLastSection(false);
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    showDetails(item->data(TitleColumn, Qt::UserRole).value<JobId>());
  });

  clearButton_ = new QPushButton(tr("Remove finished"), this);
  connect(clearButton_, &QPushButton::clicked, this, &JobListWidget::clearFinished);

  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(clearButton_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(tree_);
  layout->addLayout(buttons);

  // A row is as tall as its tallest cell widget (setItemWidget): measure the widgets a row gets.
  QProgressBar bar;
  bar.setTextVisible(true);
  QToolButton button;
  button.setText(tr("Cancel"));
  rowHeight_ = std::max(
      {tree_->fontMetrics().height() + 4, bar.sizeHint().height(), button.sizeHint().height()});

  // Elapsed times of running jobs tick at 4 Hz; the timer runs only while a job runs.
  ticker_ = new QTimer(this);
  ticker_->setInterval(250);
  connect(ticker_, &QTimer::timeout, this, &JobListWidget::updateElapsed);
}

JobListWidget::~JobListWidget() = default;

bool JobListWidget::isFinished(JobState s) {
  return s == JobState::Succeeded || s == JobState::Failed || s == JobState::Cancelled;
}

JobListWidget::Row* JobListWidget::find(JobId id) {
  auto it = rows_.find(id);
  return it == rows_.end() ? nullptr : &it->second;
}

const JobListWidget::Row* JobListWidget::find(JobId id) const {
  auto it = rows_.find(id);
  return it == rows_.end() ? nullptr : &it->second;
}

void JobListWidget::createRow(JobId id, const QString& title) {
  Row& row = rows_[id];
  row.title = title;
  row.item = new QTreeWidgetItem(tree_);
  row.item->setText(TitleColumn, title);
  row.item->setToolTip(TitleColumn, title);
  row.item->setData(TitleColumn, Qt::UserRole, QVariant::fromValue<JobId>(id));

  row.bar = new QProgressBar;
  row.bar->setRange(0, kProgressSteps);
  row.bar->setValue(0);
  row.bar->setTextVisible(true);
  tree_->setItemWidget(row.item, ProgressColumn, row.bar);

  auto* actions = new QWidget;
  auto* h = new QHBoxLayout(actions);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(2);
  row.cancel = new QToolButton(actions);
  row.cancel->setText(tr("Cancel"));
  row.cancel->setToolTip(tr("Stop this job"));
  connect(row.cancel, &QToolButton::clicked, this, [this, id] { emit cancelRequested(id); });
  row.details = new QToolButton(actions);
  row.details->setText(tr("Details"));
  row.details->setToolTip(tr("Show the error message"));
  connect(row.details, &QToolButton::clicked, this, [this, id] { showDetails(id); });
  row.remove = new QToolButton(actions);
  row.remove->setText(tr("Remove"));
  row.remove->setToolTip(tr("Remove this finished job from the list"));
  connect(row.remove, &QToolButton::clicked, this, [this, id] { removeJob(id); });
  h->addWidget(row.cancel);
  h->addWidget(row.details);
  h->addWidget(row.remove);
  tree_->setItemWidget(row.item, ActionColumn, actions);
  applyState(row);
  tree_->resizeColumnToContents(ActionColumn);
}

QSize JobListWidget::sizeHint() const {
  const QMargins m = layout()->contentsMargins();
  const int height = m.top() + tree_->header()->sizeHint().height() + kVisibleRows * rowHeight_ +
                     2 * tree_->frameWidth() + layout()->spacing() +
                     clearButton_->sizeHint().height() + m.bottom();
  return {QWidget::sizeHint().width(), height};
}

void JobListWidget::addJob(JobId id, const QString& title) {
  if (contains(id)) return;
  createRow(id, title);
}

JobId JobListWidget::addFinishedJob(const QString& title, JobState state, const QString& message) {
  const JobId id = nextRestoredId_++;
  createRow(id, title);
  markFinished(id, state, message, 0.0);
  return id;
}

void JobListWidget::markStarted(JobId id) {
  Row* row = find(id);
  if (!row || isFinished(row->state)) return;
  row->state = JobState::Running;
  row->clock.start();
  applyState(*row);
  if (!ticker_->isActive()) ticker_->start();
}

void JobListWidget::setProgress(JobId id, double fraction, const QString& stage) {
  Row* row = find(id);
  if (!row || isFinished(row->state)) return;
  row->progress = std::clamp(fraction, 0.0, 1.0);
  row->stage = stage;
  row->bar->setValue(static_cast<int>(std::lround(row->progress * kProgressSteps)));
  // QProgressBar substitutes %p; a literal '%' in a stage would be misread, so drop it.
  QString s = stage;
  s.replace(QLatin1Char('%'), QString());
  row->bar->setFormat(s.isEmpty() ? QStringLiteral("%p%") : QStringLiteral("%p% - ") + s);
}

void JobListWidget::markFinished(JobId id, JobState state, const QString& message,
                                 double wallSeconds) {
  Row* row = find(id);
  if (!row) return;
  row->state = state;
  row->message = message;
  row->wallSeconds = wallSeconds;
  if (state == JobState::Succeeded) {
    row->progress = 1.0;
    row->bar->setValue(kProgressSteps);
    row->bar->setFormat(QStringLiteral("%p%"));
  }
  applyState(*row);
}

void JobListWidget::applyState(Row& row) {
  const bool finished = isFinished(row.state);
  row.item->setText(StateColumn, stateText(row.state));
  row.cancel->setEnabled(!finished);
  row.remove->setEnabled(finished);
  row.details->setVisible(row.state == JobState::Failed);
  const QString tip =
      row.message.isEmpty() ? row.title : row.title + QStringLiteral("\n\n") + row.message;
  for (int c = TitleColumn; c <= ElapsedColumn; ++c) row.item->setToolTip(c, tip);
  row.bar->setToolTip(tip);
  if (row.state == JobState::Failed) {
    row.item->setForeground(StateColumn, QBrush(QColor(176, 0, 32)));
    row.bar->setFormat(tr("failed"));
  } else if (row.state == JobState::Cancelled) {
    row.item->setForeground(StateColumn, QBrush(QColor(120, 120, 120)));
    row.bar->setFormat(tr("cancelled"));
  }
  if (finished) {
    row.item->setText(ElapsedColumn,
                      row.wallSeconds > 0 ? elapsedText(row.wallSeconds) : QString());
  } else if (row.state == JobState::Running) {
    row.item->setText(ElapsedColumn,
                      elapsedText(static_cast<double>(row.clock.elapsed()) / 1000.0));
  }
}

void JobListWidget::updateElapsed() {
  bool anyRunning = false;
  for (auto& [id, row] : rows_) {
    if (row.state != JobState::Running) continue;
    anyRunning = true;
    row.item->setText(ElapsedColumn,
                      elapsedText(static_cast<double>(row.clock.elapsed()) / 1000.0));
  }
  if (!anyRunning) ticker_->stop();
}

void JobListWidget::removeJob(JobId id) {
  Row* row = find(id);
  if (!row || !isFinished(row->state)) return;
  delete row->item;  // also deletes its item widgets
  rows_.erase(id);
}

void JobListWidget::clearFinished() {
  std::vector<JobId> done;
  for (const auto& [id, row] : rows_) {
    if (isFinished(row.state)) done.push_back(id);
  }
  for (JobId id : done) removeJob(id);
}

std::optional<JobState> JobListWidget::jobState(JobId id) const {
  const Row* row = find(id);
  return row ? std::optional<JobState>(row->state) : std::nullopt;
}

double JobListWidget::jobProgress(JobId id) const {
  const Row* row = find(id);
  return row ? row->progress : 0.0;
}

QString JobListWidget::stageText(JobId id) const {
  const Row* row = find(id);
  return row ? row->stage : QString();
}

QString JobListWidget::errorText(JobId id) const {
  const Row* row = find(id);
  return row ? row->message : QString();
}

QToolButton* JobListWidget::cancelButton(JobId id) const {
  const Row* row = find(id);
  return row ? row->cancel : nullptr;
}

QToolButton* JobListWidget::removeButton(JobId id) const {
  const Row* row = find(id);
  return row ? row->remove : nullptr;
}

QWidget* JobListWidget::showDetails(JobId id) {
  const Row* row = find(id);
  if (!row || row->state != JobState::Failed) return nullptr;
  auto* box =
      new QMessageBox(QMessageBox::Warning, tr("Job failed"),
                      tr("The job \"%1\" failed.").arg(row->title), QMessageBox::Close, this);
  box->setObjectName(QStringLiteral("jobErrorDetails"));
  box->setInformativeText(row->message);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  return box;
}

}  // namespace modescope
