// modescope: the desktop application (see command_line.h for the options).
#include <QApplication>
#include <QIcon>
#include <cstdio>

#include "app/gui/command_line.h"
#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "engine/core/version.h"
#include "widgets/signal_browser.h"

namespace {

int printAndExit(const modescope::GuiCommandLine& cl) {
  std::FILE* out = cl.exitCode == 0 ? stdout : stderr;
  std::fputs(cl.output.toLocal8Bit().constData(), out);
  return cl.exitCode;
}

QStringList argumentList(int argc, char** argv) {
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication::setOrganizationName(QStringLiteral("ModeScope"));
  QCoreApplication::setApplicationName(QStringLiteral("ModeScope"));
  QCoreApplication::setApplicationVersion(QLatin1String(modescope::kVersionString));

  // --help and --version must work without a display, i.e. before QApplication connects to one.
  if (modescope::wantsHelpOrVersion(argumentList(argc, argv))) {
    return printAndExit(modescope::parseGuiCommandLine(argumentList(argc, argv)));
  }

  // Views with QOpenGLWidgets move between top-levels (docks): share their GL contexts.
  QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
  QApplication app(argc, argv);
  app.setWindowIcon(QIcon::fromTheme(QStringLiteral("modescope")));
  // QApplication has removed its own options (-platform, ...) from arguments().
  const modescope::GuiCommandLine cl = modescope::parseGuiCommandLine(app.arguments());
  if (cl.action == modescope::GuiCommandLine::Action::PrintAndExit) return printAndExit(cl);

  modescope::MainWindow window;
  if (!cl.screenshotPath.isEmpty()) {
    auto* taker = new modescope::ScreenshotTaker(
        &window, [&window]() -> QWidget* { return window.currentBrowser(); }, cl.screenshotPath,
        cl.screenshotTimeoutSeconds);
    QObject::connect(&window, &modescope::MainWindow::pageDrawn, taker,
                     &modescope::ScreenshotTaker::pageDrawn);
    QObject::connect(&window, &modescope::MainWindow::openFailed, taker,
                     &modescope::ScreenshotTaker::openFailed);
  } else {
    window.restoreLayout();  // a screenshot shows the default layout, whatever was saved
  }
  window.show();
  if (cl.file.isEmpty()) {
    window.openDemo();
  } else {
    window.openFile(cl.file);
  }
  return app.exec();
}
