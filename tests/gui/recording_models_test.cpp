// The table models behind the channel and annotation docks, the channel subset that hides
// channels, and the time formatting they use.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "widgets/annotation_model.h"
#include "widgets/channel_subset.h"
#include "widgets/channel_table_model.h"
#include "widgets/time_format.h"

using namespace modescope;

namespace {

// Three channels with known samples: channel c holds c*1000 + i at sample i.
std::shared_ptr<const Recording> threeChannels() {
  auto rec = std::make_shared<Recording>();
  const char* names[] = {"Fp1", "Cz", "EOG"};
  std::vector<std::vector<float>> data(3);
  for (int c = 0; c < 3; ++c) {
    ChannelInfo info;
    info.label = std::string("EEG ") + names[c];
    info.name = names[c];
    info.type = c == 2 ? ChannelType::EOG : ChannelType::EEG;
    info.unit = "uV";
    info.sampleRate = c == 2 ? 128.0 : 256.0;
    info.sampleCount = 512;
    if (c == 1) info.position = Position3{0.0, 0.0, 1.0};
    rec->channels.push_back(info);
    for (int i = 0; i < 512; ++i) data[c].push_back(static_cast<float>(c * 1000 + i));
  }
  rec->annotations = {{1.0, 0.0, "blink"}, {2.5, 0.5, "T1"}};
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

}  // namespace

class RecordingModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void clockFormatting() {
    // Hand-computed: 3725.5 s = 1 h 2 min 5.5 s.
    QCOMPARE(formatClock(3725.5), QStringLiteral("1:02:05.500"));
    QCOMPARE(formatClock(0.0), QStringLiteral("0:00:00.000"));
    // Rounds to the millisecond before splitting, so no "0:00:59.1000".
    QCOMPARE(formatClock(59.9996), QStringLiteral("0:01:00.000"));
    QCOMPARE(formatClock(-1.25), QStringLiteral("-0:00:01.250"));
    QCOMPARE(formatDurationSeconds(0.0), QStringLiteral("-"));
    QCOMPARE(formatDurationSeconds(0.25), QStringLiteral("0.250 s"));
    QCOMPARE(formatHz(160.0), QStringLiteral("160 Hz"));
    QCOMPARE(formatHz(256.5), QStringLiteral("256.5 Hz"));
  }

  void channelTableShowsEveryField() {
    ChannelTableModel model;
    model.setRecording(threeChannels());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(ChannelTableModel::ColumnCount));
    auto cell = [&](int r, int c) { return model.index(r, c).data().toString(); };
    QCOMPARE(cell(0, ChannelTableModel::IndexColumn), QStringLiteral("1"));
    QCOMPARE(cell(1, ChannelTableModel::LabelColumn), QStringLiteral("EEG Cz"));
    QCOMPARE(cell(1, ChannelTableModel::NameColumn), QStringLiteral("Cz"));
    QCOMPARE(cell(2, ChannelTableModel::TypeColumn), QStringLiteral("EOG"));
    QCOMPARE(cell(0, ChannelTableModel::UnitColumn), QStringLiteral("uV"));
    QCOMPARE(cell(2, ChannelTableModel::RateColumn), QStringLiteral("128 Hz"));
    QCOMPARE(cell(0, ChannelTableModel::SamplesColumn), QStringLiteral("512"));
    QCOMPARE(cell(1, ChannelTableModel::PositionColumn), QStringLiteral("0.00, 0.00, 1.00"));
    QCOMPARE(cell(0, ChannelTableModel::PositionColumn), QStringLiteral("-"));
    for (int r = 0; r < 3; ++r) {
      QCOMPARE(model.index(r, ChannelTableModel::VisibleColumn).data(Qt::CheckStateRole).toInt(),
               int(Qt::Checked));
    }
  }

  void visibleBoxTogglesAndReports() {
    ChannelTableModel model;
    model.setRecording(threeChannels());
    QSignalSpy spy(&model, &ChannelTableModel::visibilityChanged);
    const QModelIndex box = model.index(1, ChannelTableModel::VisibleColumn);
    QVERIFY(model.flags(box) & Qt::ItemIsUserCheckable);
    QVERIFY(!(model.flags(model.index(1, 0)) & Qt::ItemIsUserCheckable));
    QVERIFY(model.setData(box, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(spy.count(), 1);
    const auto flags = spy.at(0).at(0).value<std::vector<bool>>();
    QCOMPARE(flags, (std::vector<bool>{true, false, true}));
    QVERIFY(!model.isVisible(1));
    // Setting the same state again is not a change.
    QVERIFY(model.setData(box, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(spy.count(), 1);
  }

  void channelSubsetReadsThroughToTheRightChannels() {
    const auto full = threeChannels();
    const ChannelSubset all = makeChannelSubset(full, {true, true, true});
    QCOMPARE(all.recording.get(), full.get());  // nothing hidden: the recording itself
    const ChannelSubset subset = makeChannelSubset(full, {true, false, true});
    QCOMPARE(subset.recording->channelCount(), size_t{2});
    QCOMPARE(subset.toFull, (std::vector<int>{0, 2}));
    QCOMPARE(subset.toSubset(2), 1);
    QCOMPARE(subset.toSubset(1), -1);
    QCOMPARE(subset.recording->channels[1].name, std::string("EOG"));
    // Subset channel 1 is full channel 2, whose sample i is 2000 + i.
    const std::vector<float> samples = subset.recording->readChannel(1, 10, 3);
    QCOMPARE(samples, (std::vector<float>{2010.0f, 2011.0f, 2012.0f}));
    QCOMPARE(subset.recording->annotations.size(), full->annotations.size());
  }

  void annotationModelAndFilterOverManyRows() {
    // 12,000 rows (the browser's target is 10,000+ annotations): every 1000th is a "Seizure",
    // the rest alternate T0/T1/T2 so the expected filter counts are known by construction.
    constexpr int kRows = 12000;
    std::vector<Annotation> annotations;
    int expectedT1 = 0;
    for (int i = 0; i < kRows; ++i) {
      Annotation a;
      a.onset = i * 0.5;
      a.duration = i % 2 ? 0.25 : 0.0;
      if (i % 1000 == 999) {
        a.text = "Seizure onset";
      } else {
        a.text = "T" + std::to_string(i % 3);
        if (i % 3 == 1) ++expectedT1;
      }
      annotations.push_back(a);
    }
    AnnotationModel model;
    model.setAnnotations(annotations);
    AnnotationFilterModel filter;
    filter.setSourceModel(&model);
    QCOMPARE(model.rowCount(), kRows);
    QCOMPARE(model.index(7451, AnnotationModel::OnsetColumn).data().toString(),
             formatClock(7451 * 0.5));
    QCOMPARE(model.index(1, AnnotationModel::DurationColumn).data().toString(),
             QStringLiteral("0.250 s"));
    QCOMPARE(model.index(999, AnnotationModel::TextColumn).data().toString(),
             QStringLiteral("Seizure onset"));

    QTableView view;
    view.setModel(&filter);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    QElapsedTimer clock;
    clock.start();
    filter.setFilterText(QStringLiteral("seizure"));  // case-insensitive
    QCOMPARE(filter.rowCount(), kRows / 1000);
    QCOMPARE(filter.onsetAt(0), 999 * 0.5);
    filter.setFilterText(QStringLiteral("T1"));
    QCOMPARE(filter.rowCount(), expectedT1);
    filter.setFilterText(QString());
    QCOMPARE(filter.rowCount(), kRows);
    view.scrollToBottom();
    QCoreApplication::processEvents();
    // Three filter passes and a scroll over 12,000 rows take milliseconds; a whole second means
    // something went quadratic (the bound is loose because CI machines are slow and shared).
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
  }
};

QTEST_MAIN(RecordingModelsTest)
#include "recording_models_test.moc"
