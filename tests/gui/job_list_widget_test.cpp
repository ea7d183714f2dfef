// JobListWidget: rows follow the job life cycle (queued, running with progress, finished), the
// cancel button works only while a job can still be stopped, failed jobs expose their error text,
// and only finished rows can be removed.
#include "widgets/job_list_widget.h"

#include <QMessageBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

using namespace modescope;

class JobListWidgetTest : public QObject {
  Q_OBJECT

 private slots:
  void queuedRowCanBeCancelledNotRemoved() {
    JobListWidget list;
    list.addJob(7, QStringLiteral("Open a.edf"));
    QCOMPARE(list.jobCount(), 1);
    QCOMPARE(list.jobState(7), std::optional<JobState>(JobState::Queued));
    QVERIFY(list.cancelButton(7)->isEnabled());
    QVERIFY(!list.removeButton(7)->isEnabled());
    list.addJob(7, QStringLiteral("duplicate"));  // an id is one row
    QCOMPARE(list.jobCount(), 1);
  }

  void cancelButtonEmitsTheJobsId() {
    JobListWidget list;
    list.addJob(3, QStringLiteral("a"));
    list.addJob(4, QStringLiteral("b"));
    QSignalSpy spy(&list, &JobListWidget::cancelRequested);
    list.cancelButton(4)->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).value<JobId>(), JobId{4});
  }

  void progressShowsFractionAndStage() {
    JobListWidget list;
    list.show();
    list.addJob(1, QStringLiteral("Filter"));
    list.markStarted(1);
    list.setProgress(1, 0.37, QStringLiteral("filtering 3/8 channels"));
    QCOMPARE(list.jobState(1), std::optional<JobState>(JobState::Running));
    QCOMPARE(list.jobProgress(1), 0.37);
    QCOMPARE(list.stageText(1), QStringLiteral("filtering 3/8 channels"));
    auto* bar = qobject_cast<QProgressBar*>(
        list.tree()->itemWidget(list.tree()->topLevelItem(0), JobListWidget::ProgressColumn));
    QVERIFY(bar);
    QCOMPARE(bar->value(), 370);  // 0.37 of the bar's 1000 steps
    QVERIFY(bar->text().contains(QStringLiteral("filtering 3/8 channels")));
    QVERIFY(bar->text().startsWith(QStringLiteral("37%")));
    // Elapsed time is shown while running.
    QTRY_VERIFY_WITH_TIMEOUT(
        !list.tree()->topLevelItem(0)->text(JobListWidget::ElapsedColumn).isEmpty(), 2000);
  }

  void finishedRowsDisableCancelAndCanBeRemoved() {
    JobListWidget list;
    list.addJob(1, QStringLiteral("done"));
    list.markStarted(1);
    list.markFinished(1, JobState::Succeeded, QString(), 1.5);
    QVERIFY(!list.cancelButton(1)->isEnabled());
    QVERIFY(list.removeButton(1)->isEnabled());
    QCOMPARE(list.jobProgress(1), 1.0);
    QCOMPARE(list.tree()->topLevelItem(0)->text(JobListWidget::ElapsedColumn),
             QStringLiteral("1.5 s"));
    // A late progress event (throttled events may trail the finish) must not revive the row.
    list.setProgress(1, 0.2, QStringLiteral("late"));
    QCOMPARE(list.jobProgress(1), 1.0);
    list.removeButton(1)->click();
    QCOMPARE(list.jobCount(), 0);
  }

  void runningRowsAreNotRemoved() {
    JobListWidget list;
    list.addJob(1, QStringLiteral("running"));
    list.markStarted(1);
    list.addJob(2, QStringLiteral("cancelled"));
    list.markFinished(2, JobState::Cancelled, QStringLiteral("cancelled by the user"), 0.2);
    list.addJob(3, QStringLiteral("queued"));
    list.removeJob(1);
    QCOMPARE(list.jobCount(), 3);
    list.clearFinished();
    QCOMPARE(list.jobCount(), 2);
    QVERIFY(list.contains(1));
    QVERIFY(list.contains(3));
    QVERIFY(!list.contains(2));
  }

  void failedJobShowsItsErrorInTooltipAndDetails() {
    JobListWidget list;
    list.show();
    const QString message = QStringLiteral(
        "/data/x.edf: header field 'number of data records' is '-7', expected a positive integer");
    list.addJob(9, QStringLiteral("Open x.edf"));
    list.markStarted(9);
    list.markFinished(9, JobState::Failed, message, 0.1);
    QCOMPARE(list.errorText(9), message);
    QTreeWidgetItem* item = list.tree()->topLevelItem(0);
    QCOMPARE(item->text(JobListWidget::StateColumn),
             QString::fromLatin1(jobStateName(JobState::Failed)));
    QVERIFY(item->toolTip(JobListWidget::TitleColumn).contains(message));
    QVERIFY(!list.cancelButton(9)->isEnabled());
    auto* box = qobject_cast<QMessageBox*>(list.showDetails(9));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY(box->informativeText().contains(message));
    box->close();
    // Jobs that did not fail have no details dialog.
    list.addJob(10, QStringLiteral("ok"));
    list.markFinished(10, JobState::Succeeded, QString(), 0.1);
    QVERIFY(list.showDetails(10) == nullptr);
  }

  void restoredJobsGetTheirOwnIds() {
    JobListWidget list;
    list.addJob(1, QStringLiteral("live"));
    const JobId a = list.addFinishedJob(QStringLiteral("old 1"), JobState::Succeeded, QString());
    const JobId b =
        list.addFinishedJob(QStringLiteral("old 2"), JobState::Failed, QStringLiteral("bad"));
    QVERIFY(a != b);
    QVERIFY(a != 1 && b != 1);
    QCOMPARE(list.jobState(b), std::optional<JobState>(JobState::Failed));
    QCOMPARE(list.errorText(b), QStringLiteral("bad"));
    QCOMPARE(list.jobCount(), 3);
  }
};

QTEST_MAIN(JobListWidgetTest)
#include "job_list_widget_test.moc"
