// The component browser's automatic labels (app/gui/ica_component_model.h Label column,
// app/gui/ica_flags_bar.h, app/gui/ica_properties_view.h) on a synthetic recording with blinks,
// heartbeats and EOG/ECG channels: the eye component is labelled with its reasons on hover, the
// filter shows only that label, "Mark flagged" marks exactly the flagged components as one undo
// step, and the properties view shows the component's spectrum, epoch image (segments, then
// epochs around the blinks), variance per row and the detectors' features. Screenshots go to
// the build folder (ica_flags_pane.png, ica_properties.png).
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>
#include <memory>

#include "app/core/ica_flags_job.h"
#include "app/core/ica_metrics.h"
#include "app/gui/ica_component_model.h"
#include "app/gui/ica_flags_bar.h"
#include "app/gui/ica_properties_view.h"
#include "app/gui/ica_results_pane.h"
#include "engine/ica/infomax.h"
#include "engine/synth/synthetic_eeg.h"

using namespace modescope;

namespace {

void save(QWidget* w, const char* name) {
  w->grab().save(QStringLiteral(MODESCOPE_TEST_OUTPUT_DIR "/%1.png").arg(QLatin1String(name)));
}

}  // namespace

class IcaFlagsViewTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    SynthParams p;
    p.channels = 19;
    p.sampleRate = 128.0;
    p.duration = 40.0;
    p.blinkRatePerMinute = 20.0;
    p.heartRatePerMinute = 72.0;
    p.heartMicrovolts = 20.0;
    p.exgChannels = true;
    p.seed = 5;
    JobContext ctx;
    synth_ = generateSyntheticEeg(p, ctx);
    std::vector<std::size_t> eeg;
    for (std::size_t i = 0; i < 19; ++i) eeg.push_back(i);
    const SignalBlock block = extractBlock(*synth_.recording, eeg, 0.0, p.duration);
    auto file = std::make_shared<IcaFile>();
    file->sampleRate = p.sampleRate;
    file->samples = block.samples;
    file->channels = icaFileChannels(*synth_.recording, eeg);
    IcaParams ip = icaPreset("eeglab-runica");
    ip.maxSteps = 150;
    file->result = runInfomaxCpu(block, ip, 2, ctx);
    file_ = file;
    summary_ = summariseIcaComponents(*synth_.recording, *file_, ctx);
  }

  void labelsFilterMarkAndUndo() {
    QUndoStack undo;
    IcaResultsPane pane(synth_.recording, file_, summary_, QStringLiteral("synthetic"), &undo);
    pane.resize(1500, 900);
    pane.show();
    IcaComponentModel* model = pane.componentModel();
    const std::vector<int> eye = model->flaggedComponents(0.5, QStringLiteral("eye"));
    QVERIFY2(!eye.empty(), "no component labelled eye");
    const QModelIndex cell = model->index(eye.front(), IcaComponentModel::kLabelColumn);
    QVERIFY(model->data(cell, Qt::DisplayRole).toString().startsWith(QStringLiteral("eye ")));
    QVERIFY2(
        model->data(cell, Qt::ToolTipRole).toString().contains(QStringLiteral("find_bads_eog")),
        qPrintable(model->data(cell, Qt::ToolTipRole).toString()));

    IcaFlagsBar* bar = pane.flagsBar();
    QVERIFY(bar->isEnabled());
    bar->setFilteredLabel(QStringLiteral("eye"));
    QCOMPARE(pane.sortModel()->rowCount(), static_cast<int>(eye.size()));
    bar->setFilteredLabel(QString());
    QCOMPARE(pane.sortModel()->rowCount(), pane.componentCount());

    const std::vector<int> flagged = model->flaggedComponents(0.5);
    const int before = undo.count();
    QCOMPARE(bar->markFlagged(), static_cast<int>(flagged.size()));
    QCOMPARE(pane.markedComponents(), flagged);
    QCOMPARE(undo.count(), before + 1);  // one step for all of them
    QCOMPARE(bar->markFlagged(), 0);     // nothing new: no empty step either
    QCOMPARE(undo.count(), before + 1);
    save(&pane, "ica_flags_pane");
    undo.undo();
    QVERIFY(pane.markedComponents().empty());
  }

  void propertiesViewShowsSpectrumEpochsAndFeatures() {
    QUndoStack undo;
    IcaResultsPane pane(synth_.recording, file_, summary_, QStringLiteral("synthetic"), &undo);
    const std::vector<int> eye =
        pane.componentModel()->flaggedComponents(0.5, QStringLiteral("eye"));
    QVERIFY(!eye.empty());
    pane.setCurrentComponent(eye.front());
    auto* view = qobject_cast<IcaPropertiesView*>(pane.flagsBar()->showProperties());
    QVERIFY(view);
    QCOMPARE(view->component(), eye.front());
    const IcaComponentProperties& p = view->properties();
    QCOMPARE(static_cast<int>(p.rows.size()), 20);  // 40 s in 2 s segments
    QCOMPARE(p.variancePercent.size(), p.rows.size());
    QVERIFY(!p.frequencies.empty());
    QVERIFY(p.frequencies.back() <= 64.0);  // Nyquist at 128 Hz
    QVERIFY(view->featureTable()->rowCount() > 10);
    // Epochs around the blinks: one row per blink whose epoch fits, the blink in each.
    view->setRows(QStringLiteral("blink"));
    QVERIFY(view->properties().rows.size() >= 8);
    QCOMPARE(view->properties().rowStartSeconds, -0.5);
    QTest::qWait(50);
    save(view, "ica_properties");
    view->close();
  }

 private:
  SyntheticEeg synth_;
  std::shared_ptr<const IcaFile> file_;
  IcaComponentSummary summary_;
};

QTEST_MAIN(IcaFlagsViewTest)
#include "ica_flags_view_test.moc"
