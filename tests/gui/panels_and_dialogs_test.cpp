// The smaller panels and dialogs: recording information with its diagnostics bar, the filter
// editor, the tool bar's labels, and the Synthetic and Process dialogs' round trips.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QTest>

#include "app/gui/preprocess_dialog.h"
#include "app/gui/range_backend_box.h"
#include "app/gui/synthetic_dialog.h"
#include "widgets/browser_toolbar.h"
#include "widgets/filter_spec_editor.h"
#include "widgets/info_bar.h"
#include "widgets/recording_info_widget.h"

using namespace modescope;

namespace {

// EEG at 256 Hz (Fp1, Cz, O1), one EOG at 128 Hz; 10 s; one warning and one info diagnostic.
std::shared_ptr<const Recording> smallRecording() {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/small.edf";
  rec->info.format = "EDF+";
  rec->info.reader = "BioSig";
  rec->info.patient = "X";
  rec->info.startDateTime = "2009-08-12T16:15:00";
  const char* names[] = {"Fp1", "Cz", "O1", "EOG"};
  std::vector<std::vector<float>> data;
  for (int c = 0; c < 4; ++c) {
    ChannelInfo info;
    info.label = names[c];
    info.name = names[c];
    info.type = c == 3 ? ChannelType::EOG : ChannelType::EEG;
    info.sampleRate = c == 3 ? 128.0 : 256.0;
    info.sampleCount = static_cast<int64_t>(info.sampleRate * 10);
    rec->channels.push_back(info);
    data.emplace_back(static_cast<size_t>(info.sampleCount), 0.0f);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  rec->diagnostics = {
      {Severity::Info, "reader.fallback", "EDFlib refused the file; read with BioSig"},
      {Severity::Warning, "edf.nonCompliant", "signal 2 label is not EDF+ style"}};
  return rec;
}

}  // namespace

class PanelsAndDialogsTest : public QObject {
  Q_OBJECT

 private slots:
  // A range ending after the recording is cut to it, and the box says so under the range in the
  // command line's words (app/core/time_range_note.h); within the recording it says nothing.
  void rangeBoxSaysWhenTheRangeEndsAfterTheRecording() {
    RangeBackendBox box(125.0, 100.0, 20.0, QString(), QString());
    box.show();
    QVERIFY(QTest::qWaitForWindowExposed(&box));
    auto* note = box.findChild<QLabel*>(QStringLiteral("rangeTruncated"));
    QVERIFY(note);
    QVERIFY(!note->isVisible());
    box.findChild<QDoubleSpinBox*>(QStringLiteral("duration"))->setValue(60.0);
    QVERIFY(note->isVisible());
    QCOMPARE(note->text(),
             QStringLiteral("60 s from 100 s asked for, the recording ends at 125 s: 100-125 s is "
                            "used"));
    box.findChild<QCheckBox*>(QStringLiteral("toEnd"))->setChecked(true);
    QVERIFY(!note->isVisible());
  }

  void recordingInfoListsFieldsAndDiagnostics() {
    RecordingInfoWidget info;
    info.show();
    info.setRecording(smallRecording(), QStringLiteral("derived from A"));
    QCOMPARE(info.fieldText(QStringLiteral("Origin")), QStringLiteral("derived from A"));
    QCOMPARE(info.fieldText(QStringLiteral("Format")), QStringLiteral("EDF+"));
    QCOMPARE(info.fieldText(QStringLiteral("Reader")), QStringLiteral("BioSig"));
    QCOMPARE(info.fieldText(QStringLiteral("Channels")), QStringLiteral("4 (3 EEG, 1 EOG)"));
    QCOMPARE(info.fieldText(QStringLiteral("Sample rates")),
             QStringLiteral("128 Hz (1 channel), 256 Hz (3 channels)"));
    QVERIFY(info.fieldText(QStringLiteral("Duration")).startsWith(QStringLiteral("0:00:10.000")));
    QVERIFY(info.diagnosticsBar()->isVisible());
    // Warnings first, marked; then the informational lines; the bar shows the first in one line.
    const QStringList lines = info.diagnosticsBar()->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0], QStringLiteral("Warning: signal 2 label is not EDF+ style"));
    QCOMPARE(lines[1], QStringLiteral("EDFlib refused the file; read with BioSig"));
    QCOMPARE(info.diagnosticsBar()->severity(), Severity::Warning);
    QCOMPARE(info.diagnosticsBar()->summary(),
             QStringLiteral("signal 2 label is not EDF+ style  (+1 more)"));
    info.setRecording(nullptr);
    QVERIFY(!info.diagnosticsBar()->isVisible());
  }

  void filterEditorBuildsSpecs() {
    FilterSpecEditor editor(true);
    QVERIFY(!editor.spec().has_value());  // starts at "None"
    FilterSpec notch;
    notch.kind = FilterKind::Notch;
    notch.notchHz = 60.0;
    notch.notchHarmonics = false;
    editor.setSpec(notch);
    auto spec = editor.spec();
    QVERIFY(spec);
    QCOMPARE(spec->kind, FilterKind::Notch);
    QCOMPARE(spec->notchHz, 60.0);
    QCOMPARE(spec->notchHarmonics, false);
    FilterSpec high;
    high.kind = FilterKind::HighPass;
    high.lowHz = 0.5;
    editor.setSpec(high);
    spec = editor.spec();
    QCOMPARE(spec->kind, FilterKind::HighPass);
    QCOMPARE(spec->lowHz, 0.5);
    QCOMPARE(spec->highHz, 0.0);  // a high-pass has no upper edge
    // Edges are capped below Nyquist.
    editor.setNyquist(50.0);
    high.lowHz = 80.0;
    editor.setSpec(high);
    QVERIFY(editor.spec()->lowHz < 50.0);
  }

  void toolbarLabels() {
    ReferenceSpec ref;
    ref.kind = ReferenceKind::Channel;
    ref.channel = "Cz";
    QCOMPARE(BrowserToolbar::montageLabel(ref), QStringLiteral("Reference: Cz"));
    FilterSpec band;
    band.kind = FilterKind::BandPass;
    band.lowHz = 0.5;
    band.highHz = 70.0;
    QCOMPARE(BrowserToolbar::filterLabel(band), QStringLiteral("Band-pass 0.5-70 Hz"));
    QCOMPARE(BrowserToolbar::filterLabel(std::nullopt), QStringLiteral("No filter"));
    QCOMPARE(BrowserToolbar::pageLengths(), (std::vector<double>{1, 2, 5, 10, 20, 30, 60}));
    BrowserToolbar toolbar;
    QCOMPARE(toolbar.pageLengthCombo()->count(), 7);
    QVERIFY(!toolbar.montageCombo()->isEnabled());  // no browser yet
  }

  void syntheticDialogRoundTrip() {
    SynthParams p;
    p.channels = 19;
    p.sampleRate = 500.0;
    p.duration = 42.5;
    p.sources = 6;
    p.mixing = MixingModel::RandomMatrix;
    p.lineNoiseHz = 60.0;
    p.lineNoiseMicrovolts = 7.0;
    p.blinkRatePerMinute = 3.0;
    p.muscleBurstsPerMinute = 0.0;
    p.backgroundMicrovolts = 2.5;
    p.seed = 12345;
    SyntheticDialog dialog;
    dialog.setParams(p);
    const SynthParams q = dialog.params();
    QCOMPARE(q.channels, p.channels);
    QCOMPARE(q.sampleRate, p.sampleRate);
    QCOMPARE(q.duration, p.duration);
    QCOMPARE(q.sources, p.sources);
    QCOMPARE(q.mixing, p.mixing);
    QCOMPARE(q.lineNoiseHz, p.lineNoiseHz);
    QCOMPARE(q.lineNoiseMicrovolts, p.lineNoiseMicrovolts);
    QCOMPARE(q.blinkRatePerMinute, p.blinkRatePerMinute);
    QCOMPARE(q.muscleBurstsPerMinute, p.muscleBurstsPerMinute);
    QCOMPARE(q.backgroundMicrovolts, p.backgroundMicrovolts);
    QCOMPARE(q.seed, p.seed);
  }

  void preprocessDialogDefaultsAndSelection() {
    const auto rec = smallRecording();
    {
      // Nothing selected in the browser: the EEG channels, a 1-40 Hz band-pass, whole range.
      PreprocessDialog dialog(rec, {});
      const PreprocessRequest r = dialog.request();
      QCOMPARE(r.channels, (std::vector<std::size_t>{0, 1, 2}));
      QCOMPARE(r.spec.filters.size(), size_t{1});
      QCOMPARE(r.spec.filters[0].kind, FilterKind::BandPass);
      QCOMPARE(r.spec.filters[0].lowHz, 1.0);
      QCOMPARE(r.spec.filters[0].highHz, 40.0);
      QCOMPARE(r.spec.reference.kind, ReferenceKind::AsRecorded);
      QCOMPARE(r.startSeconds, 0.0);
      QVERIFY(r.durationSeconds < 0);   // to the end
      QVERIFY(!r.backend.has_value());  // as in the Compute menu
    }
    {
      // The browser's selection is preselected.
      PreprocessDialog dialog(rec, {1, 3});
      QCOMPARE(dialog.request().channels, (std::vector<std::size_t>{1, 3}));
    }
  }
};

QTEST_MAIN(PanelsAndDialogsTest)
#include "panels_and_dialogs_test.moc"
