// The workspace (app/gui/workspace.h) on its own, without a window: documents and their undoable
// derived steps, marks put into the opened recording, the history's step replacement rule, the
// typed job submission (success, failure with its message, no result for a cancel).
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>
#include <stdexcept>

#include "app/gui/engine_bridge.h"
#include "app/gui/workspace.h"
#include "engine/core/bad_marks.h"
#include "engine/core/error.h"

using namespace modescope;

namespace {

// Two EEG channels (C3, C4) at 100 Hz, 10 s of zeros, one annotation of the file.
std::shared_ptr<const Recording> twoChannels() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/two.edf";
  std::vector<std::vector<float>> data;
  for (const char* name : {"C3", "C4"}) {
    ChannelInfo info;
    info.label = info.name = name;
    info.type = ChannelType::EEG;
    info.sampleRate = 100.0;
    info.sampleCount = 1000;
    rec->channels.push_back(info);
    data.emplace_back(1000, 0.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  rec->annotations = {Annotation{1.0, 0.5, "T1"}};
  return rec;
}

Document documentOf(std::shared_ptr<const Recording> rec, const QString& title, bool derived) {
  Document d;
  d.recording = std::move(rec);
  d.title = title;
  d.derived = derived;
  return d;
}

}  // namespace

class WorkspaceModelTest : public QObject {
  Q_OBJECT

 private slots:
  void derivedDocumentsAreUndoSteps() {
    EngineBridge engine(BackendChoice::Cpu);
    Workspace ws(&engine, nullptr);
    QSignalSpy opened(&ws, &Workspace::recordingOpened);
    QSignalSpy added(&ws, &Workspace::documentAdded);
    QSignalSpy removed(&ws, &Workspace::documentRemoved);
    ws.openPrimary(documentOf(twoChannels(), QStringLiteral("two.edf"), false),
                   QStringLiteral("/data/two.edf"));
    QCOMPARE(opened.count(), 1);
    QCOMPARE(ws.documentCount(), 1);

    const int first = ws.addDerivedDocument(documentOf(twoChannels(), QStringLiteral("A"), true), 7,
                                            JobRecord{"A", "succeeded", {}, {}, nullptr},
                                            QStringLiteral("filter A"));
    const int second = ws.addDerivedDocument(documentOf(twoChannels(), QStringLiteral("B"), true),
                                             8, JobRecord{"B", "succeeded", {}, {}, nullptr},
                                             QStringLiteral("filter B"));
    QCOMPARE(first, 1);
    QCOMPARE(second, 2);
    QCOMPARE(added.count(), 3);
    QCOMPARE(ws.jobRecords().size(), std::size_t{2});
    QCOMPARE(ws.unsavedWork().size(), 2);
    QCOMPARE(ws.undoStack()->undoText(), QStringLiteral("filter B"));
    const int idOfB = ws.documents()[2].id;
    QVERIFY(idOfB != ws.documents()[1].id);

    // Closing A by hand (its tab's close button) leaves B where undo still finds it by id.
    ws.removeDocument(1);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(ws.indexOf(idOfB), 1);
    ws.undoStack()->undo();  // removes B, wherever it is
    QCOMPARE(ws.documentCount(), 1);
    QCOMPARE(ws.jobRecords().count(8), std::size_t{0});
    ws.undoStack()->redo();
    QCOMPARE(ws.documentCount(), 2);
    QCOMPARE(ws.documents()[1].title, QStringLiteral("B"));
    QVERIFY(ws.jobRecords().count(8) == 1);

    // The first document is the recording itself: it is never removed as a derived one.
    ws.removeDocument(0);
    QCOMPARE(ws.documentCount(), 2);

    // Exported: nothing is lost by closing it any more.
    ws.markExported(ws.documents()[1].recording);
    QVERIFY(ws.unsavedWork().isEmpty());

    // Another recording forgets the documents, job records, undo steps and history.
    ws.recordStep(PipelineFilterStep{});
    ws.openPrimary(documentOf(twoChannels(), QStringLiteral("other.edf"), false), QString());
    QCOMPARE(ws.documentCount(), 1);
    QVERIFY(ws.jobRecords().empty());
    QCOMPARE(ws.undoStack()->count(), 0);
    QVERIFY(ws.history().steps.empty());
  }

  void marksGoIntoTheOpenedRecording() {
    EngineBridge engine(BackendChoice::Cpu);
    Workspace ws(&engine, nullptr);
    const auto rec = twoChannels();
    ws.openPrimary(documentOf(rec, QStringLiteral("two.edf"), false), QString());
    QSignalSpy marksChanged(&ws, &Workspace::marksChanged);
    QSignalSpy annotationsChanged(&ws, &Workspace::userAnnotationsChanged);
    Marks m;
    m.badChannels = {"C4"};
    ws.setMarks(m);
    QCOMPARE(marksChanged.count(), 1);
    const Recording& marked = *ws.documents()[0].recording;
    QVERIFY(!rec->channels[1].bad);
    QVERIFY(marked.channels[1].bad);  // what every method and export reads
    QVERIFY(!marked.channels[0].bad);

    // User annotations are sorted; a "bad" one is a bad segment in the recording too, while the
    // file's own list stays as the file has it.
    ws.setUserAnnotations({Annotation{5.0, 1.0, "bad muscle"}, Annotation{2.0, 0.0, "note"}});
    QCOMPARE(annotationsChanged.count(), 1);
    QCOMPARE(ws.marks().userAnnotations.front().text, std::string("note"));
    QCOMPARE(ws.fileAnnotations(ws.documents()[0]).size(), std::size_t{1});
    const auto& inRecording = ws.documents()[0].recording->annotations;
    QVERIFY(std::any_of(inRecording.begin(), inRecording.end(),
                        [](const Annotation& a) { return a.text == "bad muscle"; }));
    QCOMPARE(ws.marks().badChannels, std::vector<std::string>{"C4"});
  }

  void aReplacedStepMustBeOfTheSameKind() {
    EngineBridge engine(BackendChoice::Cpu);
    Workspace ws(&engine, nullptr);
    QSignalSpy changed(&ws, &Workspace::historyChanged);
    PipelineIcaStep ica;
    ica.preset = "before";
    const std::size_t index = ws.recordStep(ica);
    ica.preset = "after";
    ws.replaceRecordedStep(index, ica);
    QCOMPARE(std::get<PipelineIcaStep>(ws.history().steps[index]).preset, std::string("after"));
    // Another kind at that index (the history was cleared and refilled meanwhile): ignored.
    ws.replaceRecordedStep(index, PipelineFilterStep{});
    QVERIFY(std::holds_alternative<PipelineIcaStep>(ws.history().steps[index]));
    ws.replaceRecordedStep(index + 5, ica);  // no such step: ignored
    QCOMPARE(ws.history().steps.size(), std::size_t{1});
    QCOMPARE(changed.count(), 2);  // the record and the one replacement
  }

  void typedJobsHandOverTheirResultOrTheirMessage() {
    EngineBridge engine(BackendChoice::Cpu);
    Workspace ws(&engine, nullptr);
    std::shared_ptr<const std::vector<int>> got;
    JobId gotId = 0;
    const JobId id = ws.submitJob<std::vector<int>>(
        QStringLiteral("numbers"),
        [](JobContext&) {
          return std::vector<int>{1, 2, 3};
        },
        [&](JobId jobId, std::shared_ptr<const std::vector<int>> result) {
          gotId = jobId;
          got = std::move(result);
        },
        [](const QString& message) { QFAIL(qPrintable(message)); });
    QTRY_VERIFY_WITH_TIMEOUT(got != nullptr, 10000);
    QCOMPARE(gotId, id);
    QCOMPARE(*got, (std::vector<int>{1, 2, 3}));

    QString failure;
    bool succeeded = false;
    ws.submitJob<int>(
        QStringLiteral("refused"),
        [](JobContext&) -> int { throw InvalidParameterError("order", "0", "at least 1"); },
        [&](JobId, std::shared_ptr<const int>) { succeeded = true; },
        [&](const QString& message) { failure = message; });
    QTRY_VERIFY_WITH_TIMEOUT(!failure.isEmpty(), 10000);
    QVERIFY(!succeeded);
    QVERIFY2(failure.contains(QLatin1String("order")), qPrintable(failure));
  }
};

QTEST_MAIN(WorkspaceModelTest)
#include "workspace_model_test.moc"
