// The job list: one row per engine job with its title, state, a progress bar with the stage
// text, the elapsed time, a cancel button (disabled once the job has finished), the error text of
// a failed job (tooltip and a details dialog) and a remove button for finished rows.
//
// The widget knows nothing of the engine thread: the app feeds it events (already on the GUI
// thread) and listens to cancelRequested. GUI thread only.
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QWidget>
#include <map>
#include <optional>

#include "engine/core/job_queue.h"

class QTreeWidget;
class QTreeWidgetItem;
class QProgressBar;
class QToolButton;
class QPushButton;
class QTimer;

namespace modescope {

class JobListWidget : public QWidget {
  Q_OBJECT

 public:
  enum Column { TitleColumn = 0, StateColumn, ProgressColumn, ElapsedColumn, ActionColumn };

  explicit JobListWidget(QWidget* parent = nullptr);
  ~JobListWidget() override;

  // A submitted job (state Queued). Adding an id twice is ignored.
  void addJob(JobId id, const QString& title);
  void markStarted(JobId id);
  // fraction in [0, 1]; stage is the engine's short text ("filtering 12/64 channels").
  void setProgress(JobId id, double fraction, const QString& stage);
  // message: the error text for Failed, the reason for Cancelled; wallSeconds from the outcome.
  void markFinished(JobId id, JobState state, const QString& message, double wallSeconds);
  // A job that finished in an earlier run (restored from a session); returns the row's id.
  JobId addFinishedJob(const QString& title, JobState state, const QString& message);

  void removeJob(JobId id);  // only finished rows are removed
  void clearFinished();

  int jobCount() const { return static_cast<int>(rows_.size()); }
  bool contains(JobId id) const { return rows_.count(id) != 0; }
  std::optional<JobState> jobState(JobId id) const;
  double jobProgress(JobId id) const;
  QString stageText(JobId id) const;
  QString errorText(JobId id) const;
  QToolButton* cancelButton(JobId id) const;
  QToolButton* removeButton(JobId id) const;
  QTreeWidget* tree() const { return tree_; }
  // Room for kVisibleRows rows (each holds a progress bar and buttons, taller than a line of
  // text) under the header, and the buttons below: the Jobs dock's default height. The list
  // scrolls beyond that; its minimum height stays small.
  static constexpr int kVisibleRows = 4;
  QSize sizeHint() const override;
  // Opens the details dialog of a failed job (non-modal); returns it, or nullptr.
  QWidget* showDetails(JobId id);

 signals:
  void cancelRequested(JobId id);

 private:
  struct Row {
    QTreeWidgetItem* item = nullptr;
    QProgressBar* bar = nullptr;
    QToolButton* cancel = nullptr;
    QToolButton* details = nullptr;
    QToolButton* remove = nullptr;
    QElapsedTimer clock;
    JobState state = JobState::Queued;
    double progress = 0.0;
    QString stage, message, title;
    double wallSeconds = 0.0;
  };
  Row* find(JobId id);
  const Row* find(JobId id) const;
  void createRow(JobId id, const QString& title);
  void updateElapsed();
  void applyState(Row& row);
  static bool isFinished(JobState s);

  QTreeWidget* tree_ = nullptr;
  QPushButton* clearButton_ = nullptr;
  int rowHeight_ = 0;  // a row's height with its widgets, measured once
  QTimer* ticker_ = nullptr;
  std::map<JobId, Row> rows_;
  JobId nextRestoredId_ = (JobId{1} << 62);  // far from the engine's ids (which start at 1)
};

}  // namespace modescope
