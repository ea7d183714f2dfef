// For GUI tests that record a session and replay it headless: the window with a synthetic
// recording open, the same recording written by `modescope-cli synth`, and an exported pipeline
// run by `modescope-cli run`. Header-only; each returns "" on success, else what went wrong.
#pragma once

#include <QProcess>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTest>

#include "app/gui/main_window.h"

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif

namespace modescope::gui_test {

// Shows `w` at 1400 x 900 and opens the synthetic recording of `p` in it.
inline QString showWithSynthetic(MainWindow& w, const SynthParams& p) {
  w.resize(1400, 900);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return QStringLiteral("the window was not exposed");
  QSignalSpy opened(&w, &MainWindow::recordingOpened);
  w.newSyntheticRecording(p);
  if (!QTest::qWaitFor([&] { return opened.count() == 1; }, 60000))
    return QStringLiteral("the synthetic recording did not open");
  return {};
}

// Runs modescope-cli with `args`; its merged output on failure.
inline QString runCli(const QStringList& args, int timeoutMs = 120000) {
  QProcess cli;
  cli.setProcessChannelMode(QProcess::MergedChannels);
  cli.start(QStringLiteral(MODESCOPE_CLI), args);
  if (!cli.waitForFinished(timeoutMs))
    return QStringLiteral("modescope-cli %1 did not finish").arg(args.join(QLatin1Char(' ')));
  if (cli.exitStatus() != QProcess::NormalExit || cli.exitCode() != 0)
    return QStringLiteral("modescope-cli %1 failed: %2")
        .arg(args.join(QLatin1Char(' ')), QString::fromUtf8(cli.readAll()));
  return {};
}

// The recording of `p` as `modescope-cli synth` writes it to `path` (channels, rate, duration
// and seed from `p`; `extra` for the rest, e.g. --exg).
inline QString writeSyntheticWithCli(const QString& path, const SynthParams& p,
                                     const QStringList& extra = {}) {
  return runCli(QStringList{QStringLiteral("synth"), QStringLiteral("-o"), path,
                            QStringLiteral("--channels"), QString::number(p.channels),
                            QStringLiteral("--rate"), QString::number(p.sampleRate),
                            QStringLiteral("--duration"), QString::number(p.duration),
                            QStringLiteral("--seed"), QString::number(p.seed),
                            QStringLiteral("--quiet")} +
                extra);
}

// `modescope-cli run PIPELINE --input INPUT -o OUT`.
inline QString runPipelineWithCli(const QString& pipeline, const QString& input,
                                  const QString& out) {
  return runCli({QStringLiteral("run"), pipeline, QStringLiteral("--input"), input,
                 QStringLiteral("-o"), out, QStringLiteral("--quiet")});
}

}  // namespace modescope::gui_test
