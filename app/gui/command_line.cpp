#include "app/gui/command_line.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include "engine/core/version.h"

namespace modescope {

bool wantsHelpOrVersion(const QStringList& args) {
  for (int i = 1; i < args.size(); ++i) {
    const QString& a = args[i];
    if (a == QLatin1String("--help") || a == QLatin1String("-h") ||
        a == QLatin1String("--version") || a == QLatin1String("-v")) {
      return true;
    }
  }
  return false;
}

GuiCommandLine parseGuiCommandLine(const QStringList& args) {
  GuiCommandLine out;
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "ModeScope: browse EEG/MEG recordings and run GPU signal decompositions.\n"
      "Without FILE, the embedded demo recording (PhysioNet EEG Motor Movement/Imagery, "
      "subject 1, run 3) opens."));
  const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")},
                                QStringLiteral("Show this help and exit."));
  const QCommandLineOption version(QStringList{QStringLiteral("v"), QStringLiteral("version")},
                                   QStringLiteral("Show the version and exit."));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Open FILE (or the demo), wait until the first page is drawn, save the main "
                     "window as a PNG to <out.png> and quit (exit 0; 2 if the file cannot be "
                     "opened; 1 if the image cannot be written)."),
      QStringLiteral("out.png"));
  parser.addOption(help);
  parser.addOption(version);
  parser.addOption(screenshot);
  parser.addPositionalArgument(QStringLiteral("FILE"),
                               QStringLiteral("Recording to open (EDF, EDF+, BDF, BDF+, "
                                              "ModeScope HDF5, or a format BioSig reads)."),
                               QStringLiteral("[FILE]"));

  const QString program = QStringLiteral("modescope");
  if (!parser.parse(args)) {
    out.action = GuiCommandLine::Action::PrintAndExit;
    out.exitCode = 1;
    out.output =
        parser.errorText() + QStringLiteral("\nTry '") + program + QStringLiteral(" --help'.\n");
    return out;
  }
  if (parser.isSet(help)) {
    out.action = GuiCommandLine::Action::PrintAndExit;
    out.output = parser.helpText();
    return out;
  }
  if (parser.isSet(version)) {
    out.action = GuiCommandLine::Action::PrintAndExit;
    out.output = program + QLatin1Char(' ') + QLatin1String(kVersionString) + QLatin1Char('\n');
    return out;
  }
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    out.action = GuiCommandLine::Action::PrintAndExit;
    out.exitCode = 1;
    out.output = QStringLiteral("modescope: one FILE at most, got %1: %2\n")
                     .arg(positional.size())
                     .arg(positional.join(QLatin1Char(' ')));
    return out;
  }
  if (!positional.isEmpty()) out.file = positional.front();
  out.screenshotPath = parser.value(screenshot);
  return out;
}

}  // namespace modescope
