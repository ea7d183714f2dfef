// The GUI's command line: `modescope [--screenshot OUT.png] [FILE]`, `--help`, `--version`.
// Without FILE the embedded demo recording opens.
#pragma once

#include <QString>
#include <QStringList>

namespace modescope {

struct GuiCommandLine {
  enum class Action { Run, PrintAndExit };
  Action action = Action::Run;
  int exitCode = 0;        // for PrintAndExit: 0 for --help/--version, 1 for a usage error
  QString output;          // for PrintAndExit: the text to print (stdout, or stderr on error)
  QString file;            // recording to open; empty = the demo
  QString screenshotPath;  // --screenshot: grab the window to this PNG once the page is drawn
  int screenshotTimeoutSeconds = 120;  // give up (exit 1) if no page was drawn by then
};

// args[0] is the program name (as QCoreApplication::arguments()). Needs no QApplication, so
// --help and --version work without a display.
GuiCommandLine parseGuiCommandLine(const QStringList& args);

// True when argv asks for --help/-h/--version/-v (checked before a QApplication exists).
bool wantsHelpOrVersion(const QStringList& args);

}  // namespace modescope
