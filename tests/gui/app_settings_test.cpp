// Settings-backed and pure helpers of the app: the recent-files list and the file-dialog filters.
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "app/gui/file_filters.h"
#include "app/gui/recent_files.h"

using namespace modescope;

class AppSettingsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Test mode: QSettings and QStandardPaths use a private location, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("app_settings_test"));
  }

  void init() { RecentFiles::clear(); }

  void recentFilesAreNewestFirstUniqueAndCapped() {
    for (int i = 0; i < 13; ++i) RecentFiles::add(QStringLiteral("/data/r%1.edf").arg(i));
    QStringList list = RecentFiles::list();
    QCOMPARE(list.size(), RecentFiles::kMaxEntries);
    QCOMPARE(list.front(), QStringLiteral("/data/r12.edf"));
    QCOMPARE(list.back(), QStringLiteral("/data/r3.edf"));  // r0..r2 fell off the end
    RecentFiles::add(QStringLiteral("/data/r5.edf"));       // reopened: moves to the front
    list = RecentFiles::list();
    QCOMPARE(list.size(), RecentFiles::kMaxEntries);
    QCOMPARE(list.front(), QStringLiteral("/data/r5.edf"));
    QCOMPARE(list.count(QStringLiteral("/data/r5.edf")), 1);
    RecentFiles::remove(QStringLiteral("/data/r5.edf"));
    QVERIFY(!RecentFiles::list().contains(QStringLiteral("/data/r5.edf")));
  }

  void recentFilesSurviveANewSettingsObject() {
    RecentFiles::add(QStringLiteral("/data/kept.edf"));
    QSettings fresh;  // what the next start of the program reads
    QCOMPARE(fresh.value(QStringLiteral("recentFiles")).toStringList().front(),
             QStringLiteral("/data/kept.edf"));
  }

  void relativePathsBecomeAbsolute() {
    RecentFiles::add(QStringLiteral("rel.edf"));
    QVERIFY(QFileInfo(RecentFiles::list().front()).isAbsolute());
  }

  void filtersNameTheFormats() {
    const QStringList open = recordingOpenFilters();
    QVERIFY(open.front().startsWith(QStringLiteral("Recordings (")));
    QVERIFY(open.front().contains(QStringLiteral("*.edf")));
    QVERIFY(open.front().contains(QStringLiteral("*.bdf")));
    QVERIFY(open.front().contains(QStringLiteral("*.h5")));
    QCOMPARE(open.back(), QStringLiteral("All files (*)"));
    QCOMPARE(recordingExportFilters().size(), 3);
    QCOMPARE(pageExportFilters().size(), 3);
  }

  void suffixFollowsTheChosenFilter() {
    QCOMPARE(withSuffixFromFilter(QStringLiteral("/t/page"), QStringLiteral("SVG drawing (*.svg)")),
             QStringLiteral("/t/page.svg"));
    QCOMPARE(
        withSuffixFromFilter(QStringLiteral("/t/page.pdf"), QStringLiteral("PNG image (*.png)")),
        QStringLiteral("/t/page.pdf"));  // an explicit suffix wins
    QCOMPARE(withSuffixFromFilter(QStringLiteral("/t/rec"), QStringLiteral("EDF+ (*.edf)")),
             QStringLiteral("/t/rec.edf"));
  }
};

QTEST_MAIN(AppSettingsTest)
#include "app_settings_test.moc"
