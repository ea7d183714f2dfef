// The ICA workflow (issue 4, item 4) end to end on synthetic EEG whose blinks are annotated (the
// ground truth): the dialog's defaults and checks, the job run from the Analysis menu, the
// component browser's sort order, marking, the overlay, Apply as an undoable derived tab, the
// ICA result file, sessions, and cancel. The blink component is identified here from the
// annotations (the share of an activation's power inside the blinks), never from the code under
// test. Views are saved next to the test (MODESCOPE_TEST_OUTPUT_DIR/ica_*.png) for looking at.
#include <H5Cpp.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "app/core/ica_metrics.h"
#include "app/gui/engine_bridge.h"
#include "app/gui/ica_component_model.h"
#include "app/gui/ica_dialog.h"
#include "app/gui/ica_overlay_view.h"
#include "app/gui/ica_results_pane.h"
#include "app/gui/ica_workflow.h"
#include "app/gui/main_window.h"
#include "demo_window_support.h"
#include "engine/ica/infomax.h"
#include "engine/io/hdf5_ica.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_util.h"
#include "engine/io/recording_io.h"
#include "tests/gui/menu_dialog_support.h"
#include "widgets/job_list_widget.h"
#include "widgets/scalp_3d_view.h"
#include "widgets/signal_browser.h"

using namespace modescope;

#ifndef MODESCOPE_TEST_OUTPUT_DIR
#define MODESCOPE_TEST_OUTPUT_DIR "."
#endif

namespace {

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

struct MenuIca {
  double startSeconds = 0.0;
  double durationSeconds = -1.0;
  int maxSteps = 200;
  QString seed = QStringLiteral("3");
};

// "Analysis > Independent components (Infomax ICA)..." filled as a user would, CPU backend;
// returns the dialog's validation message ("" when Run was accepted). The dialog is modal, so it
// is filled from a timer inside its event loop.
QString icaFromMenu(MainWindow& window, const MenuIca& m) {
  return gui_test::runMenuDialog<IcaDialog>(
      window, QStringLiteral("&Independent components (Infomax ICA)..."), [&](IcaDialog& d) {
        gui_test::fillRangeAndBackend(d, m.startSeconds, m.durationSeconds, BackendChoice::Cpu);
        d.findChild<QSpinBox*>(QStringLiteral("icaMaxSteps"))->setValue(m.maxSteps);
        d.findChild<QLineEdit*>(QStringLiteral("icaSeed"))->setText(m.seed);
        d.updateRankProposal();
        return d.validationMessage();
      });
}

// Samples inside the annotated blinks (1) or not (0), over [first, first + n) at `rate`.
std::vector<char> blinkMask(const Recording& rec, double rate, int64_t first, int64_t n) {
  std::vector<char> mask(static_cast<std::size_t>(n), 0);
  for (const Annotation& a : rec.annotations) {
    if (a.text != "blink") continue;
    const auto b = static_cast<int64_t>(std::floor(a.onset * rate)) - first;
    const auto e = static_cast<int64_t>(std::ceil((a.onset + a.duration) * rate)) - first;
    for (int64_t t = std::max<int64_t>(b, 0); t < std::min(e, n); ++t) mask[t] = 1;
  }
  return mask;
}

// Share of a series' power (about its mean) that lies inside the mask.
double shareInside(const float* x, const std::vector<char>& mask) {
  double mean = 0;
  for (std::size_t t = 0; t < mask.size(); ++t) mean += x[t];
  mean /= static_cast<double>(mask.size());
  double in = 0, all = 0;
  for (std::size_t t = 0; t < mask.size(); ++t) {
    const double d = (x[t] - mean) * (x[t] - mean);
    all += d;
    if (mask[t]) in += d;
  }
  return all > 0 ? in / all : 0.0;
}

// Mean square about the out-of-blink mean, inside the blinks: the blink power of one channel.
double blinkPowerOf(const std::vector<float>& x, const std::vector<char>& mask) {
  double base = 0, nb = 0, in = 0, ni = 0;
  for (std::size_t t = 0; t < mask.size(); ++t)
    if (!mask[t]) base += x[t], nb += 1;
  base /= std::max(nb, 1.0);
  for (std::size_t t = 0; t < mask.size(); ++t)
    if (mask[t]) in += (x[t] - base) * (x[t] - base), ni += 1;
  return in / std::max(ni, 1.0);
}

// The ground-truth blink component of a decomposition of `rec`.
int blinkComponentOf(const Recording& rec, const IcaFile& f) {
  std::vector<std::size_t> channels;
  for (const auto& c : f.channels) channels.push_back(c.recordingIndex);
  const SignalBlock block =
      extractBlock(rec, channels, f.startSeconds(), static_cast<double>(f.samples) / f.sampleRate);
  const std::vector<float> act = icaActivations(f.result, block);
  const auto mask = blinkMask(rec, f.sampleRate, f.firstSample, block.samples);
  int best = -1;
  double bestShare = -1;
  for (int k = 0; k < f.result.components; ++k) {
    const double s = shareInside(act.data() + static_cast<std::size_t>(k) * block.samples, mask);
    if (s > bestShare) bestShare = s, best = k;
  }
  return best;
}

SynthParams blinkParams() {
  SynthParams p;
  p.channels = 8;
  p.sampleRate = 128.0;
  p.duration = 40.0;
  p.blinkRatePerMinute = 20.0;
  p.muscleBurstsPerMinute = 0.0;
  p.seed = 3;
  return p;
}

}  // namespace

class IcaViewsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ModeScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("ica_views_test"));
  }

  // Defaults (EEG without the bad channels; eeglab-runica), the rank proposal on data whose rank
  // is known by construction, and the refusals.
  void dialogProposesTheRankAndRefusesTooFewSamples() {
    // Five EEG channels forming an average reference (they sum to zero: rank 4), one EOG channel
    // and one EEG channel the caller marks bad; 100 Hz, 60 s of independent noise.
    auto rec = std::make_shared<Recording>();
    const char* names[] = {"Fp1", "Fp2", "Cz", "O1", "O2", "VEOG", "T7"};
    std::vector<std::vector<float>> data(7, std::vector<float>(6000));
    std::mt19937 rng(1);
    std::normal_distribution<float> g(0, 10);
    for (int t = 0; t < 6000; ++t) {
      float sum = 0;
      for (int c = 0; c < 5; ++c) sum += (data[c][t] = g(rng));
      for (int c = 0; c < 5; ++c) data[c][t] -= sum / 5;
      data[5][t] = g(rng);
      data[6][t] = g(rng);
    }
    for (int c = 0; c < 7; ++c) {
      ChannelInfo info;
      info.label = info.name = names[c];
      info.type = c == 5 ? ChannelType::EOG : ChannelType::EEG;
      info.unit = "uV";
      info.sampleRate = 100.0;
      info.sampleCount = 6000;
      rec->channels.push_back(info);
    }
    rec->source = std::make_shared<InMemorySource>(std::move(data));
    const std::vector<int> selected = defaultIcaChannels(*rec, {"T7"});
    QCOMPARE(selected, (std::vector<int>{0, 1, 2, 3, 4}));
    IcaDialog d(rec, selected, 0.0, -1.0, BackendChoice::Cpu);
    QCOMPARE(d.currentPresetName(), QStringLiteral("eeglab-runica"));
    d.updateRankProposal();
    QCOMPARE(d.proposedRank(), std::optional<int>(4));
    QVERIFY2(d.rankProposalText().contains(QStringLiteral("rank 4 of 5")),
             qPrintable(d.rankProposalText()));
    QVERIFY2(d.validationMessage().isEmpty(), qPrintable(d.validationMessage()));
    const IcaRequest r = d.request();
    QCOMPARE(r.channels, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
    QCOMPARE(r.params.maxSteps, icaPreset("eeglab-runica").maxSteps);
    QCOMPARE(r.presetName, std::string("eeglab-runica"));
    // Editing a field makes the parameters custom; the preset restores them.
    d.findChild<QSpinBox*>(QStringLiteral("icaMaxSteps"))->setValue(77);
    QCOMPARE(d.currentPresetName(), QString());
    QVERIFY(d.applyPreset(QStringLiteral("mne-infomax")));
    QCOMPARE(d.params().maxSteps, icaPreset("mne-infomax").maxSteps);
    // The GPU arithmetic is the user's choice, kept across presets, and no preset depends on it.
    auto* math = d.findChild<QComboBox*>(QStringLiteral("icaGpuMath"));
    QVERIFY(math);
    QCOMPARE(d.params().gpuMath, IcaParams{}.gpuMath);
    save(&d, "ica_dialog");
    // FP32 is never the default, so the choice below changes the field.
    math->setCurrentIndex(math->findData(static_cast<int>(IcaGpuMath::Fp32)));
    QCOMPARE(d.params().gpuMath, IcaGpuMath::Fp32);
    QCOMPARE(d.currentPresetName(), QStringLiteral("mne-infomax"));
    QVERIFY(d.applyPreset(QStringLiteral("eeglab-runica")));
    QCOMPARE(d.request().params.gpuMath, IcaGpuMath::Fp32);
    // A forced rank above the data's is refused; so is a range with fewer than r^2 samples
    // (4 components need 16; 0.1 s at 100 Hz is 10).
    d.findChild<QSpinBox*>(QStringLiteral("icaPcaRank"))->setValue(5);
    QVERIFY2(d.validationMessage().contains(QStringLiteral("above the rank")),
             qPrintable(d.validationMessage()));
    d.findChild<QSpinBox*>(QStringLiteral("icaPcaRank"))->setValue(0);
    d.findChild<QCheckBox*>(QStringLiteral("toEnd"))->setChecked(false);
    d.findChild<QDoubleSpinBox*>(QStringLiteral("duration"))->setValue(0.1);
    d.updateRankProposal();
    QVERIFY2(d.validationMessage().contains(QStringLiteral("at least 16")),
             qPrintable(d.validationMessage()));
    QVERIFY(!d.findChild<QPushButton*>()->isEnabled() || !d.validationMessage().isEmpty());
  }

  // The whole workflow on a synthetic recording: menu -> job -> browser; the EOG sort puts the
  // ground-truth blink component first; marking it, Apply gives a derived recording whose
  // frontal blink power drops; undo removes it and then the mark; the ICA file and the session
  // keep the decomposition and the marks.
  void blinkWorkflowFromTheMenu() {
    QTemporaryDir tmp;
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    w.newSyntheticRecording(blinkParams());
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    const auto rec = w.currentDocument()->recording;
    IcaWorkflow* ica = w.icaWorkflow();
    QVERIFY(ica && !ica->dock()->isVisible());
    QSignalSpy shown(ica, &IcaWorkflow::resultsShown);
    // Every progress event (the job is fast: the 50 ms throttle could swallow all the steps).
    w.engine()->setProgressInterval(std::chrono::milliseconds(0));
    QSignalSpy progressed(w.engine(), &EngineBridge::jobProgressed);
    MenuIca choice;
    const QString problem = icaFromMenu(w, choice);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 120000);
    bool stepReported = false;
    for (const auto& args : progressed)
      stepReported |= args.at(2).toString().contains(QStringLiteral("step"));
    QVERIFY2(stepReported, "the job list saw no 'step k, change x' progress");

    IcaResultsPane* pane = ica->currentResults();
    QVERIFY(pane && ica->dock()->isVisible());
    const IcaFile& f = *pane->file();
    QCOMPARE(int(f.channels.size()), 8);
    QCOMPARE(f.samples, int64_t(40 * 128));
    QVERIFY(f.provenance.backend.find("CPU") != std::string::npos);
    // The dialog's own CPU backend (submitMethodRun's MethodBackend) runs on every core and says
    // how many: the thread count is recorded.
    QVERIFY2(f.provenance.backend.find(" thread") != std::string::npos,
             f.provenance.backend.c_str());
    QCOMPARE(pane->componentModel()->rowCount(), f.result.components);
    // The synthetic recording has no EOG channel: the EOG column is the frontal proxy, and the
    // header says so.
    const QString header =
        pane->componentModel()
            ->headerData(IcaComponentModel::kEogColumn, Qt::Horizontal, Qt::ToolTipRole)
            .toString();
    QVERIFY2(header.contains(QStringLiteral("no EOG channel")), qPrintable(header));

    // Sort by |r| EOG, descending: the first row is the ground-truth blink component.
    const int blink = blinkComponentOf(*rec, f);
    QVERIFY(blink >= 0);
    pane->componentTable()->sortByColumn(IcaComponentModel::kEogColumn, Qt::DescendingOrder);
    const QModelIndex top = pane->sortModel()->index(0, 0);
    QCOMPARE(pane->sortModel()->mapToSource(top).row(), blink);
    save(pane, "ica_pane_sorted");

    // Click the top row, then M marks it; the grid, the table and the overlay follow.
    pane->componentTable()->setCurrentIndex(top);
    QCOMPARE(pane->currentComponent(), blink);
    // Shortcuts need the active window and the focus inside the pane.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    pane->componentTable()->setFocus();
    QTest::keyClick(pane->componentTable(), Qt::Key_M);
    QCOMPARE(pane->markedComponents(), std::vector<int>{blink});
    QVERIFY(pane->componentModel()->isMarked(blink));
    QTRY_VERIFY(!pane->overlay()->rows().empty());
    // The 3-D head (VTK): the button shows it with the current component's map, and back.
#if MODESCOPE_HAVE_VTK
    QVERIFY(pane->threeDButton()->isEnabled());
    pane->threeDButton()->click();
    auto* head = qobject_cast<Scalp3dView*>(pane->mapStack()->currentWidget());
    QVERIFY(head);
    QTRY_VERIFY(head->colourLimit() > 0);
    QVERIFY2(head->message().isEmpty(), qPrintable(head->message()));
    pane->threeDButton()->click();
    QCOMPARE(pane->mapStack()->currentIndex(), 0);
#else
    QVERIFY(!pane->threeDButton()->isEnabled());
#endif

    // Space toggles too (and toggles back).
    QTest::keyClick(pane->componentTable(), Qt::Key_Space);
    QVERIFY(pane->markedComponents().empty());
    QTest::keyClick(pane->componentTable(), Qt::Key_Space);
    QCOMPARE(pane->markedComponents(), std::vector<int>{blink});

    // The activations' time axis follows the main browser's page and drives it.
    w.currentBrowser()->setPageLength(4.0);
    w.currentBrowser()->setPageStart(12.0);
    QCOMPARE(pane->activationBrowser()->pageStart(), 12.0);
    QCOMPARE(pane->activationBrowser()->pageLength(), 4.0);
    pane->activationBrowser()->nextPage();
    QCOMPARE(w.currentBrowser()->pageStart(), pane->activationBrowser()->pageStart());
    QCOMPARE(w.currentBrowser()->pageStart(), 16.0);
    // The overlay covers that page.
    QTRY_COMPARE(pane->overlay()->rows().front().original.size(), std::size_t(4 * 128));
    // The overlay's cleaned traces differ from the originals (the blink page changes most).
    bool differs = false;
    for (const IcaOverlayRow& row : pane->overlay()->rows())
      for (std::size_t t = 0; t < row.original.size(); ++t)
        differs |= std::fabs(row.original[t] - row.cleaned[t]) > 1e-3f;
    QVERIFY(differs);

    // Apply: a derived tab whose frontal blink power is far lower.
    QSignalSpy cleaned(ica, &IcaWorkflow::cleanedRecordingOpened);
    QTest::mouseClick(pane->applyButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(cleaned.count() == 1, 30000);
    QCOMPARE(w.documentCount(), 2);
    QVERIFY(w.currentDocument()->derived);
    QCOMPARE(w.currentDocument()->provenance.method, std::string("ica-cleaning"));
    const auto clean = w.currentDocument()->recording;
    QCOMPARE(clean->annotations.size(), rec->annotations.size());
    const auto mask = blinkMask(*rec, 128.0, 0, f.samples);
    std::size_t frontal = 0;
    double most = -1;
    for (std::size_t ch = 0; ch < rec->channelCount(); ++ch) {
      const double p = blinkPowerOf(rec->readChannel(ch, 0, f.samples), mask);
      if (p > most) most = p, frontal = ch;
    }
    const double before = blinkPowerOf(rec->readChannel(frontal, 0, f.samples), mask);
    const double after = blinkPowerOf(clean->readChannel(frontal, 0, f.samples), mask);
    // As docs/cli.md states for ica-apply: at least 10-fold less blink power on the most frontal
    // channel (a wrong component leaves most of it).
    QVERIFY2(after < before / 10.0, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));

    // File > Export recording writes the cleaned tab: HDF5 with the ICA provenance (the removed
    // component, 1-based, and the decomposition's parameters) and EDF+ with the annotations.
    const QString h5Path = tmp.filePath(QStringLiteral("cleaned.h5"));
    const QString edfPath = tmp.filePath(QStringLiteral("cleaned.edf"));
    for (const QString& out : {h5Path, edfPath}) {
      const JobId id = w.exportRecording(out);
      QTRY_VERIFY_WITH_TIMEOUT(
          w.jobList()->jobState(id) == std::optional<JobState>(JobState::Succeeded) ||
              w.jobList()->jobState(id) == std::optional<JobState>(JobState::Failed),
          60000);
      QCOMPARE(w.jobList()->jobState(id), std::optional<JobState>(JobState::Succeeded));
    }
    {
      h5::Lock lock(h5::hdf5Mutex());
      H5::H5File file(QFile::encodeName(h5Path).toStdString(), H5F_ACC_RDONLY);
      const Provenance written =
          h5::readProvenance(h5::Reader(h5Path.toStdString()), file.openGroup("/"));
      QCOMPARE(written.method, std::string("ica-cleaning"));
      // The dialog's max steps (200, not the preset's 512) reached the decomposition's record.
      bool rejectedNamed = false, stepsNamed = false;
      for (const auto& [name, value] : written.parameters) {
        rejectedNamed |= name == "rejected_components" && value == std::to_string(blink + 1);
        stepsNamed |= name == "maxSteps" && value == "200 steps";
      }
      QVERIFY(rejectedNamed);
      QVERIFY(stepsNamed);
      QCOMPARE(written.seed, std::string("3"));
    }
    const auto reopened = openRecording(QFile::encodeName(edfPath).toStdString());
    int blinks = 0;
    for (const Annotation& a : reopened->annotations) blinks += a.text == "blink";
    int blinksBefore = 0;
    for (const Annotation& a : rec->annotations) blinksBefore += a.text == "blink";
    QCOMPARE(blinks, blinksBefore);

    // Figures: the map, the grid, the spectrum and the overlay as PNG, SVG and PDF.
    for (const char* which : {"map", "grid", "spectrum", "overlay"}) {
      for (const char* ext : {"png", "svg", "pdf"}) {
        const QString out =
            tmp.filePath(QStringLiteral("%1.%2").arg(QLatin1String(which), QLatin1String(ext)));
        QString error;
        QVERIFY2(pane->exportFigure(QLatin1String(which), out, &error), qPrintable(error));
        QVERIFY2(QFileInfo(out).size() > 500, qPrintable(out));
      }
    }

    // Edit > Undo removes the tab, a second undo the mark; redo brings both back.
    QUndoStack* undo = ica->undoStack();
    undo->undo();
    QCOMPARE(w.documentCount(), 1);
    QCOMPARE(pane->markedComponents(), std::vector<int>{blink});
    undo->undo();
    QVERIFY(pane->markedComponents().empty());
    undo->redo();
    undo->redo();
    QCOMPARE(w.documentCount(), 2);
    QCOMPARE(pane->markedComponents(), std::vector<int>{blink});
    w.tabs()->setCurrentIndex(0);

    // The ICA result file: written and read back equal.
    QSignalSpy savedIca(ica, &IcaWorkflow::icaFileSaved);
    const QString icaPath = tmp.filePath(QStringLiteral("blink ica.h5"));
    ica->saveIcaFile(pane, icaPath);
    QTRY_VERIFY_WITH_TIMEOUT(savedIca.count() == 1, 30000);
    QCOMPARE(pane->icaPath(), icaPath);
    const IcaFile reread = readIcaFile(QFile::encodeName(icaPath).toStdString());
    QCOMPARE(reread.result.unmixing.values, f.result.unmixing.values);
    // File > Open ICA result opens it as a second tab, without marks.
    w.tabs()->setCurrentIndex(0);
    shown.clear();
    ica->openIcaFile(icaPath);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 30000);
    QCOMPARE(ica->resultTabs()->count(), 2);
    IcaResultsPane* fromFile = ica->currentResults();
    QCOMPARE(fromFile->icaPath(), icaPath);
    QVERIFY(fromFile->markedComponents().empty());
    QCOMPARE(fromFile->file()->result.mixing.values, f.result.mixing.values);
    const QString fromFileTitle = fromFile->title();

    // The session keeps both decompositions and their marks.
    QSignalSpy sessionSaved(&w, &MainWindow::sessionSaved);
    const QString sessionPath = tmp.filePath(QStringLiteral("s.h5"));
    w.saveSession(sessionPath);
    QTRY_VERIFY_WITH_TIMEOUT(sessionSaved.count() == 1, 30000);
    const std::vector<double> mixing = f.result.mixing.values;
    const QString title = pane->title();
    shown.clear();
    QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
    w.loadSession(sessionPath);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 2, 60000);
    QCOMPARE(ica->resultTabs()->count(), 2);
    for (int i = 0; i < 2; ++i) {
      auto* restored = qobject_cast<IcaResultsPane*>(ica->resultTabs()->widget(i));
      QVERIFY(restored);
      QCOMPARE(restored->file()->result.mixing.values, mixing);
      QCOMPARE(restored->icaPath(), icaPath);  // the first was saved there, the second read
      if (restored->title() == title) {
        QCOMPARE(restored->markedComponents(), std::vector<int>{blink});
      } else {
        QCOMPARE(restored->title(), fromFileTitle);
        QVERIFY(restored->markedComponents().empty());
      }
    }
    save(&w, "ica_main_window");
  }

  // Cancel while the job runs: no result, no dock.
  void cancelLeavesNoResult() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy opened(&w, &MainWindow::recordingOpened);
    SynthParams p = blinkParams();
    p.duration = 60.0;
    w.newSyntheticRecording(p);
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 60000);
    IcaWorkflow* ica = w.icaWorkflow();
    QSignalSpy shown(ica, &IcaWorkflow::resultsShown);
    IcaRequest r;
    r.params = icaPreset("eeglab-runica");
    r.params.maxSteps = 100000;
    r.params.stopTolerance = 1e-30;  // never converges: only the cancel ends it
    for (std::size_t c = 0; c < 8; ++c) r.channels.push_back(c);
    r.backend = BackendChoice::Cpu;
    QSignalSpy progressed(w.engine(), &EngineBridge::jobProgressed);
    const JobId id = ica->runIca(r);
    QVERIFY(id != 0);
    QTRY_VERIFY_WITH_TIMEOUT(!progressed.isEmpty(), 30000);
    w.engine()->cancel(id);
    QTRY_VERIFY_WITH_TIMEOUT(
        w.jobList()->jobState(id) == std::optional<JobState>(JobState::Cancelled), 30000);
    QTest::qWait(100);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(ica->resultTabs()->count(), 0);
    QVERIFY(!ica->dock()->isVisible());
  }

  // The picture in docs/gui.md: the embedded demo (64 EEG channels at 160 Hz), its first 30 s
  // band-passed 1-40 Hz and average-referenced as one does before ICA (so the dialog proposes rank
  // 63), eeglab-runica on the CPU, the top |r| Fp component marked. Runs only when
  // MODESCOPE_DOCS_ICA_SCREENSHOT names the PNG.
  void docsScreenshotOfTheDemoComponents() {
    const QString out = qEnvironmentVariable("MODESCOPE_DOCS_ICA_SCREENSHOT");
    if (out.isEmpty()) QSKIP("MODESCOPE_DOCS_ICA_SCREENSHOT is not set");
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    qputenv("MODESCOPE_CLI", MODESCOPE_CLI);
    const QString openError = gui_test::openDemoAndWait(w);
    QVERIFY2(openError.isEmpty(), qPrintable(openError));
    PreprocessRequest filter;
    for (std::size_t c = 0; c < 64; ++c) filter.channels.push_back(c);
    filter.durationSeconds = 30.0;
    filter.spec.reference.kind = ReferenceKind::Average;
    FilterSpec band;
    band.kind = FilterKind::BandPass;
    band.lowHz = 1.0;
    band.highHz = 40.0;
    filter.spec.filters = {band};
    w.runPreprocess(filter);
    QTRY_VERIFY_WITH_TIMEOUT(w.documentCount() == 2, 60000);
    QSignalSpy shown(w.icaWorkflow(), &IcaWorkflow::resultsShown);
    MenuIca choice;
    choice.maxSteps = 512;
    const QString problem = icaFromMenu(w, choice);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 300000);
    IcaResultsPane* pane = w.icaWorkflow()->currentResults();
    pane->componentTable()->sortByColumn(IcaComponentModel::kEogColumn, Qt::DescendingOrder);
    const int top = pane->sortModel()->mapToSource(pane->sortModel()->index(0, 0)).row();
    pane->setCurrentComponent(top);
    pane->setMarked(top, true);
    w.currentBrowser()->setPageLength(10.0);
    QTest::qWait(800);  // the views draw their first frame
    const QImage image =
        w.grab().toImage().convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither);
    QVERIFY(image.save(out, "PNG", 0));
  }
};

QTEST_MAIN(IcaViewsTest)
#include "ica_views_test.moc"
