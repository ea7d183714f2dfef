// MainWindow's engine jobs: opening, generating, filtering, exporting, sessions, and what
// happens on the GUI thread when each finishes.
#include <QFile>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <algorithm>
#include <fstream>

#include "app/core/gpu_backend.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/error_presenter.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/job_results.h"
#include "app/gui/main_window.h"
#include "app/gui/pipeline_player.h"
#include "app/gui/recent_files.h"
#include "app/gui/session_history.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/annotation_files.h"
#include "engine/io/atomic_file.h"
#include "engine/io/recording_io.h"
#include "resources/embedded_resources.h"
#include "widgets/browser_pane.h"
#include "widgets/job_list_widget.h"
#include "widgets/signal_browser.h"

namespace modescope {
namespace {

const char kDemoSessionPath[] = "<demo>";  // how a session names the embedded demo (session.h)

// File names as the C library wants them (the local 8-bit encoding, UTF-8 on Linux).
std::string nativePath(const QString& path) { return QFile::encodeName(path).toStdString(); }
QString fromNative(const std::string& path) { return QFile::decodeName(path.c_str()); }

void completeProvenance(Provenance& p) {
  if (p.softwareVersion.empty()) p.softwareVersion = softwareVersion();
  if (p.createdAt.empty()) p.createdAt = utcNowIso8601();
}

JobState parseJobState(const std::string& text) {
  for (JobState s : {JobState::Queued, JobState::Running, JobState::Succeeded, JobState::Failed,
                     JobState::Cancelled}) {
    if (text == jobStateName(s)) return s;
  }
  return JobState::Failed;
}

QString synthTitle(const SynthParams& p) {
  return QObject::tr("Synthetic EEG (%1 ch, %2 Hz, %3 s, seed %4)")
      .arg(p.channels)
      .arg(p.sampleRate)
      .arg(p.duration)
      .arg(p.seed);
}

Provenance synthProvenance(const SynthParams& p) {
  Provenance prov;
  prov.method = "synth";
  auto num = [](double v) { return QString::number(v, 'g', 10).toStdString(); };
  prov.parameters = {
      {"channels", std::to_string(p.channels)},
      {"sampleRate", num(p.sampleRate) + " Hz"},
      {"duration", num(p.duration) + " s"},
      {"sources", std::to_string(p.sources)},
      {"mixing", p.mixing == MixingModel::HeadModel ? "head model" : "random matrix"},
      {"blinkRate", num(p.blinkRatePerMinute) + " /min"},
      {"lineNoise", num(p.lineNoiseHz) + " Hz"},
      {"lineNoiseAmplitude", num(p.lineNoiseMicrovolts) + " uV"},
      {"muscleBursts", num(p.muscleBurstsPerMinute) + " /min"},
      {"background", num(p.backgroundMicrovolts) + " uV RMS"}};
  prov.seed = std::to_string(p.seed);
  prov.backend = "CPU";  // the generator has no GPU path
  completeProvenance(prov);
  return prov;
}

}  // namespace

JobId MainWindow::openFile(const QString& path) {
  const std::string file = nativePath(path);
  return workspace_->submitJob<OpenedRecording>(
      tr("Open %1").arg(QFileInfo(path).fileName()),
      [file](JobContext& ctx) {
        ctx.progress(0.0, "reading");
        OpenedRecording opened;
        opened.path = file;
        opened.recording = openRecording(file);
        return opened;
      },
      [this](JobId, std::shared_ptr<const OpenedRecording> opened) { onOpened(*opened); },
      [this, path](const QString& message) { onOpenFailed(path, message, false); });
}

JobId MainWindow::openDemo() {
  return workspace_->submitJob<OpenedRecording>(
      tr("Open demo recording"),
      [](JobContext& ctx) {
        ctx.progress(0.0, "reading");
        OpenedRecording opened;
        opened.path = materializeDemoRecording();
        opened.demo = true;
        opened.recording = openRecording(opened.path);
        return opened;
      },
      [this](JobId, std::shared_ptr<const OpenedRecording> opened) { onOpened(*opened); },
      [this](const QString& message) { onOpenFailed(tr("the demo recording"), message, true); });
}

bool MainWindow::exportPipeline(const QString& path, QString* error) {
  try {
    Pipeline p = workspace_->history();
    if (p.description.empty() && workspace_->documentCount() > 0) {
      p.description = "Recorded in ModeScope " + softwareVersion() + " on " +
                      workspace_->document(0)->title.toStdString() + ", " + utcNowIso8601();
    }
    const std::string text = writePipelineJson(p);
    AtomicOutput out(nativePath(path));
    {
      std::ofstream f(out.temporaryPath(), std::ios::binary);
      f << text;
      f.close();
      if (!f) throw OutputError(nativePath(path), "the file could not be written");
    }
    out.commit();
    statusBar()->showMessage(
        tr("Pipeline of %n step(s) written to %1", nullptr, static_cast<int>(p.steps.size()))
            .arg(path),
        8000);
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

bool MainWindow::applyPipeline(const QString& path, QString* error) {
  Pipeline pipeline;
  try {
    pipeline = readPipelineFile(nativePath(path));
  } catch (const Error& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  if (!currentDocument()) {
    if (error) *error = tr("open a recording first: a pipeline runs on the current recording");
    return false;
  }
  auto* player = new PipelinePlayer(*workspace_, *this,
                                    {emd_, memd_, ica_, entropy_, badMarks_, epochs_, montage_},
                                    std::move(pipeline), QFileInfo(path).fileName());
  connect(player, &PipelinePlayer::stepStarted, this, [this](int, const QString& label) {
    statusBar()->showMessage(tr("Pipeline: %1").arg(label));
  });
  connect(player, &PipelinePlayer::finished, this, [this, path] {
    statusBar()->showMessage(tr("Pipeline %1 applied").arg(QFileInfo(path).fileName()), 8000);
    emit pipelineApplied(path);
  });
  connect(player, &PipelinePlayer::failed, this, [this, path](const QString& message) {
    statusBar()->showMessage(message, 8000);
    emit pipelineFailed(path, message);
  });
  player->start();
  return true;
}

void MainWindow::onOpened(const OpenedRecording& opened) {
  Document doc;
  doc.recording = opened.recording;
  doc.path = fromNative(opened.path);
  doc.demo = opened.demo;
  doc.title = opened.demo ? tr("Demo: PhysioNet eegmmidb S001R03") : QFileInfo(doc.path).fileName();
  if (opened.demo)
    doc.origin = tr("Embedded demo recording (see Help > About for its attribution)");
  if (!opened.demo) RecentFiles::add(fromNative(opened.path));
  // The demo lives in a private temporary copy; its path would mean nothing to the user.
  statusBar()->showMessage(
      opened.demo ? tr("Opened the embedded demo recording (PhysioNet eegmmidb S001R03)")
                  : tr("Opened %1").arg(fromNative(opened.path)),
      5000);
  workspace_->openPrimary(std::move(doc), fromNative(opened.path));
}

void MainWindow::onOpenFailed(const QString& path, const QString& message, bool demo) {
  showOpenError(this, path, message);
  // A recent entry whose file is gone would fail every time.
  if (!demo && !QFileInfo::exists(path)) RecentFiles::remove(path);
  emit openFailed(path, message);
}

JobId MainWindow::newSyntheticRecording(const SynthParams& params) {
  const QString title = synthTitle(params);
  return submitTyped<DerivedRecording>(
      tr("Generate %1").arg(title),
      [params](JobContext& ctx) -> DerivedRecording {
        DerivedRecording result;
        result.provenance = synthProvenance(params);
        result.recording = generateSyntheticEeg(params, ctx).recording;
        return result;
      },
      tr("Generation failed"), tr("Could not generate %1.").arg(title),
      [this, title](JobId id, std::shared_ptr<const DerivedRecording> result) {
        onSyntheticReady(id, *result, title);
      });
}

void MainWindow::onSyntheticReady(JobId id, const DerivedRecording& result, const QString& title) {
  Document doc;
  doc.recording = result.recording;
  doc.title = title;
  doc.origin =
      tr("Generated: synthetic EEG, seed %1").arg(QString::fromStdString(result.provenance.seed));
  doc.provenance = result.provenance;
  workspace_->openPrimary(std::move(doc), QString());
  // Generated data have no file: the session keeps them as this job's result.
  workspace_->recordJob(id, JobRecord{title.toStdString(),
                                      jobStateName(JobState::Succeeded),
                                      {},
                                      result.provenance,
                                      result.recording});
}

JobId MainWindow::runPreprocess(const PreprocessRequest& request) {
  const Document* doc = currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  const QString source = doc->title;
  const std::string inputFile =
      doc->path.isEmpty() ? doc->title.toStdString() : nativePath(doc->path);
  EngineBridge* engine = engine_;
  return submitTyped<DerivedRecording>(
      tr("Filter and re-reference %1").arg(source),
      [rec, request, engine, inputFile](JobContext& ctx) -> DerivedRecording {
        const std::shared_ptr<ComputeBackend> backend = engine->backendFor(request.backend);
        DerivedRecording result;
        result.recording =
            preprocess(*rec, request.channels, request.startSeconds, request.durationSeconds,
                       request.spec, *backend, ctx, &result.provenance);
        if (result.provenance.method.empty()) result.provenance.method = "preprocess";
        if (result.provenance.backend.empty())
          result.provenance.backend = backend->info().describe();
        if (result.provenance.inputFile.empty()) result.provenance.inputFile = inputFile;
        completeProvenance(result.provenance);
        return result;
      },
      tr("Processing failed"), tr("Could not filter %1.").arg(source),
      [this, source, rec, request](JobId id, std::shared_ptr<const DerivedRecording> result) {
        recordStep(historyStep(*rec, request));
        onDerivedReady(id, *result, source);
      });
}

void MainWindow::onDerivedReady(JobId id, const DerivedRecording& result, const QString& source) {
  QStringList steps;
  for (const auto& [name, value] : result.provenance.parameters) {
    steps << QStringLiteral("%1 %2").arg(QString::fromStdString(name),
                                         QString::fromStdString(value));
  }
  const QString title = tr("%1 (filtered)").arg(source);
  const JobRecord record{title.toStdString(),
                         jobStateName(JobState::Succeeded),
                         {},
                         result.provenance,
                         result.recording};
  Document doc;
  doc.recording = result.recording;
  doc.title = title;
  doc.derived = true;
  doc.origin = tr("Derived from %1: %2").arg(source, steps.join(QStringLiteral("; ")));
  doc.provenance = result.provenance;
  addDerivedDocument(std::move(doc), id, record, tr("filter and re-reference %1").arg(source));
}

JobId MainWindow::exportRecording(const QString& path) {
  const Document* doc = currentDocument();
  if (!doc) return 0;
  std::shared_ptr<const Recording> rec = doc->recording;
  const Marks& marks = workspace_->marks();
  if (!doc->derived && !marks.userAnnotations.empty()) {
    // The user's annotations go into the file with the recording's own (EDF+ TALs, HDF5).
    // Bad segments are user annotations that setMarks already put into the recording (for the
    // methods): drop those copies first so each is written once.
    auto marked = std::make_shared<Recording>(*rec);
    std::erase_if(marked->annotations, [&marks](const Annotation& a) {
      return std::any_of(
          marks.userAnnotations.begin(), marks.userAnnotations.end(), [&a](const Annotation& u) {
            return u.onset == a.onset && u.duration == a.duration && u.text == a.text;
          });
    });
    marked->annotations = mergeAnnotations(marked->annotations, marks.userAnnotations);
    rec = std::move(marked);
  }
  Provenance prov = doc->provenance;
  if (prov.method.empty()) {
    prov.method = "convert";
    prov.inputFile = doc->path.isEmpty() ? doc->title.toStdString() : nativePath(doc->path);
  }
  completeProvenance(prov);
  const std::string file = nativePath(path);
  return submitTyped<std::string>(
      tr("Export %1").arg(QFileInfo(path).fileName()),
      [rec, prov, file](JobContext& ctx) {
        writeRecording(*rec, file, outputFormatForPath(file), prov, ctx);
        return file;
      },
      tr("Export failed"), tr("Could not write %1.").arg(path),
      [this, path, source = doc->recording](JobId, std::shared_ptr<const std::string>) {
        // The derived recording is now in a file: closing it loses nothing.
        workspace_->markExported(source);
        statusBar()->showMessage(tr("Recording written to %1").arg(path), 5000);
      });
}

bool MainWindow::exportPage(const QString& path, QString* error) {
  const SignalBrowser* browser = currentBrowser();
  if (!browser) {
    if (error) *error = tr("no recording is open");
    return false;
  }
  return browser->exportPage(path, error);
}

Session MainWindow::collectSession() const {
  Session s;
  if (const Document* primary = workspace_->document(0)) {
    s.recordingPath = primary->demo ? kDemoSessionPath : nativePath(primary->path);
    s.view = paneAt(0)->viewState();  // with a derivation montage, if one is shown
  }
  for (const auto& [id, record] : workspace_->jobRecords()) s.jobs.push_back(record);
  s.marks = workspace_->marks();
  const Pipeline& history = workspace_->history();
  s.icaResults = ica_->sessionEntries();
  try {
    s.historyPipeline = history.steps.empty() ? std::string() : writePipelineJson(history);
  } catch (const Error& e) {
    // A step that pipeline version 1 cannot say (a filter with a custom transition width) is
    // left out of the session's history, not the session itself.
    qWarning("ModeScope: the session's history is not saved: %s", e.what());
  }
  s.provenance.method = "session";
  completeProvenance(s.provenance);
  return s;
}

JobId MainWindow::saveSession(const QString& path) {
  const Session session = collectSession();
  const std::string file = nativePath(path);
  return submitTyped<std::string>(
      tr("Save session %1").arg(QFileInfo(path).fileName()),
      [session, file](JobContext& ctx) {
        ctx.progress(0.0, "writing");
        ::modescope::saveSession(session, file);
        return file;
      },
      tr("Saving the session failed"), tr("Could not write %1.").arg(path),
      [this, path](JobId, std::shared_ptr<const std::string>) {
        statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000);
        emit sessionSaved(path);
      });
}

JobId MainWindow::loadSession(const QString& path) {
  const std::string file = nativePath(path);
  return workspace_->submitJob<LoadedSession>(
      tr("Open session %1").arg(QFileInfo(path).fileName()),
      [file](JobContext& ctx) {
        ctx.progress(0.0, "reading session");
        LoadedSession loaded;
        loaded.session = ::modescope::loadSession(file);
        if (loaded.session.recordingPath == kDemoSessionPath) {
          loaded.recordingPath = materializeDemoRecording();
          loaded.demo = true;
        } else {
          loaded.recordingPath = loaded.session.recordingPath;
        }
        ctx.checkpoint();
        ctx.progress(0.5, "reading the recording");
        if (!loaded.recordingPath.empty()) loaded.recording = openRecording(loaded.recordingPath);
        return loaded;
      },
      [this, path](JobId, std::shared_ptr<const LoadedSession> loaded) {
        onSessionLoaded(path, *loaded);
      },
      [this, path](const QString& message) {
        showOpenError(this, path, message);
        emit openFailed(path, message);
      });
}

void MainWindow::onSessionLoaded(const QString& path, const LoadedSession& loaded) {
  workspace_->startNew(loaded.session.marks);
  if (!loaded.session.historyPipeline.empty()) {
    try {
      workspace_->setHistory(readPipeline(
          parseJson(loaded.session.historyPipeline, path.toStdString()), path.toStdString()));
    } catch (const Error& e) {
      qWarning("ModeScope: the session's history could not be read: %s", e.what());
    }
  }
  if (loaded.recording) {
    Document doc;
    doc.recording = loaded.recording;
    doc.path = fromNative(loaded.recordingPath);
    doc.demo = loaded.demo;
    doc.title =
        loaded.demo ? tr("Demo: PhysioNet eegmmidb S001R03") : QFileInfo(doc.path).fileName();
    workspace_->addDocument(std::move(doc));
  }
  for (const JobRecord& record : loaded.session.jobs) {
    const JobId row =
        jobList_->addFinishedJob(QString::fromStdString(record.title), parseJobState(record.state),
                                 QString::fromStdString(record.message));
    workspace_->recordJob(row, record);  // saved again with the next session
    if (!record.resultRecording) continue;
    Document doc;
    doc.recording = record.resultRecording;
    doc.title = QString::fromStdString(record.title);
    // A generated recording with no file is the session's first tab, not a derived one.
    doc.derived = workspace_->documentCount() > 0;
    doc.origin = tr("Result restored from session %1").arg(QFileInfo(path).fileName());
    doc.provenance = record.provenance;
    workspace_->addDocument(std::move(doc));
  }
  if (workspace_->documentCount() > 0) {
    // The view state belongs to the first tab (collectSession saves it from there).
    tabs_->setCurrentIndex(0);
    paneAt(0)->setViewState(loaded.session.view);
  }
  ica_->restoreSession(loaded.session.icaResults);  // summarised again on the engine thread
  statusBar()->showMessage(tr("Session %1 opened").arg(path), 5000);
  workspace_->finishSessionLoad(path);
}

}  // namespace modescope
