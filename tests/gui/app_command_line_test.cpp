// The `modescope` executable's command line: parsing, and the real program run as a child
// process for --version, --help and --screenshot (which tests and docs rely on).
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "app/gui/command_line.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif
#ifndef MODESCOPE_GUI_EXE
#define MODESCOPE_GUI_EXE ""
#endif
#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."  // ctest runs the test in its build folder
#endif

namespace {

// Where the build put a program of this project: the path CMake passed in, else the usual
// place relative to this test (build/tests/gui -> build/app).
QString builtProgram(const char* fromCMake, const char* name) {
  if (fromCMake && *fromCMake) return QString::fromLocal8Bit(fromCMake);
  return QDir(QCoreApplication::applicationDirPath())
      .absoluteFilePath(QStringLiteral("../../app/") + QLatin1String(name));
}

QString guiExe() { return builtProgram(MODESCOPE_GUI_EXE, "modescope"); }

QStringList args(std::initializer_list<const char*> list) {
  QStringList out{QStringLiteral("modescope")};
  for (const char* a : list) out << QString::fromLatin1(a);
  return out;
}

// Runs the built GUI with `arguments`; returns the exit code (-1 on crash or time-out).
int runGui(const QStringList& arguments, QString* output, int timeoutMs = 90000) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("MODESCOPE_CLI"), builtProgram(MODESCOPE_CLI, "modescope-cli"));
  p.setProcessEnvironment(env);
  p.start(guiExe(), arguments);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    if (output) *output = QString::fromLocal8Bit(p.readAll()) + QStringLiteral("\n[timed out]");
    return -1;
  }
  if (output) *output = QString::fromLocal8Bit(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// Distinct colours in an image: a blank or single-colour window has one or two.
int distinctColours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  }
  return colours.size();
}

}  // namespace

class AppCommandLineTest : public QObject {
  Q_OBJECT

 private slots:
  void parsesFileAndScreenshot() {
    const GuiCommandLine cl = parseGuiCommandLine(args({"--screenshot", "out.png", "rec.edf"}));
    QCOMPARE(cl.action, GuiCommandLine::Action::Run);
    QCOMPARE(cl.file, QStringLiteral("rec.edf"));
    QCOMPARE(cl.screenshotPath, QStringLiteral("out.png"));
    const GuiCommandLine demo = parseGuiCommandLine(args({}));
    QCOMPARE(demo.action, GuiCommandLine::Action::Run);
    QVERIFY(demo.file.isEmpty());  // the demo opens
    QVERIFY(demo.screenshotPath.isEmpty());
  }

  void helpAndVersionPrintAndExit() {
    const GuiCommandLine help = parseGuiCommandLine(args({"--help"}));
    QCOMPARE(help.action, GuiCommandLine::Action::PrintAndExit);
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.output.contains(QStringLiteral("--screenshot")));
    QVERIFY(help.output.contains(QStringLiteral("--version")));
    const GuiCommandLine version = parseGuiCommandLine(args({"--version"}));
    QCOMPARE(version.exitCode, 0);
    QVERIFY(QRegularExpression(QStringLiteral("^modescope \\d+\\.\\d+\\.\\d+\\n$"))
                .match(version.output)
                .hasMatch());
    QVERIFY(wantsHelpOrVersion(args({"x.edf", "-v"})));
    QVERIFY(!wantsHelpOrVersion(args({"x.edf"})));
  }

  void usageErrorsExitWithOne() {
    const GuiCommandLine unknown = parseGuiCommandLine(args({"--frobnicate"}));
    QCOMPARE(unknown.action, GuiCommandLine::Action::PrintAndExit);
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY(unknown.output.contains(QStringLiteral("frobnicate")));
    const GuiCommandLine two = parseGuiCommandLine(args({"a.edf", "b.edf"}));
    QCOMPARE(two.exitCode, 1);
    const GuiCommandLine missingValue = parseGuiCommandLine(args({"--screenshot"}));
    QCOMPARE(missingValue.exitCode, 1);
  }

  void executablePrintsVersionWithoutDisplay() {
    QVERIFY2(QFileInfo::exists(guiExe()), qPrintable(guiExe()));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));  // --version must not need one
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    p.setProcessEnvironment(env);
    p.start(guiExe(), {QStringLiteral("--version")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(
        QString::fromLocal8Bit(p.readAllStandardOutput()).startsWith(QStringLiteral("modescope ")));
  }

  void screenshotOfARecordingIsNotBlank() {
    QVERIFY2(QFileInfo::exists(guiExe()), qPrintable(guiExe()));
    const QString out = QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/modescope_screenshot.png");
    QFile::remove(out);
    QString log;
    const int code = runGui(
        {QStringLiteral("--screenshot"), out, QStringLiteral(MODESCOPE_TEST_DATA "/mne_test.edf")},
        &log);
    QVERIFY2(code == 0, qPrintable(log));
    QImage image(out);
    QVERIFY2(!image.isNull(), qPrintable(log));
    QVERIFY(image.width() >= 800 && image.height() >= 500);
    // A drawn window has text, widgets and traces in many colours (antialiasing alone gives
    // dozens); an empty or black grab has a handful.
    QVERIFY2(distinctColours(image) > 64, qPrintable(QString::number(distinctColours(image))));
  }

  void screenshotOfAMissingFileExitsWithTwo() {
    QVERIFY2(QFileInfo::exists(guiExe()), qPrintable(guiExe()));
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("no_such_recording.edf"));
    QString log;
    const int code = runGui(
        {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("x.png")), missing}, &log);
    QCOMPARE(code, 2);
    QVERIFY2(log.contains(QStringLiteral("no_such_recording.edf")), qPrintable(log));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.png"))));
  }
};

QTEST_MAIN(AppCommandLineTest)
#include "app_command_line_test.moc"
