#include "app/gui/montage_workflow.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QStatusBar>

#include "app/core/montage_job.h"
#include "app/core/pipeline_montage.h"
#include "app/gui/derived_tab.h"
#include "app/gui/job_results.h"
#include "app/gui/workflow_host.h"
#include "app/gui/workspace.h"
#include "engine/core/error.h"
#include "engine/io/montage_file.h"
#include "widgets/browser_pane.h"

namespace modescope {

MontageWorkflow::MontageWorkflow(Workspace& workspace, WorkflowHost& host)
    : QObject(host.hostWindow()), workspace_(workspace), host_(host) {
  setObjectName(QStringLiteral("montageWorkflow"));
}

void MontageWorkflow::askApply() {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return;
  // What the tab shows is what the user means.
  const BrowserPane* pane = host_.paneAt(workspace_.currentIndex());
  if (pane && pane->derivations()) {
    const DerivationMontage& shown = *pane->derivations();
    apply(shown, builtinMontageName(shown, *doc->recording));
    return;
  }
  QStringList items;
  for (const BuiltinMontage& m : builtinMontages())
    items << QStringLiteral("%1 - %2").arg(QString::fromLatin1(m.name),
                                           QString::fromLatin1(m.description));
  const QString fromFile = tr("A montage file...");
  items << fromFile;
  bool ok = false;
  const QString choice = QInputDialog::getItem(
      host_.hostWindow(), tr("Apply montage as new recording"),
      tr("The tab shows the channels as recorded. Montage to apply:"), items, 0, false, &ok);
  if (!ok) return;
  try {
    if (choice == fromFile) {
      const QString path =
          QFileDialog::getOpenFileName(host_.hostWindow(), tr("Montage file"), QString(),
                                       tr("Montages (*.montage);;All files (*)"));
      if (path.isEmpty()) return;
      apply(readMontageFile(path.toStdString()), path.toStdString());
      return;
    }
    const std::string name = choice.section(QStringLiteral(" - "), 0, 0).toStdString();
    apply(builtinMontage(name, *doc->recording).value(), name);
  } catch (const Error& e) {
    host_.showStatus(QString::fromUtf8(e.what()), 10000);
  }
}

JobId MontageWorkflow::apply(const DerivationMontage& montage, const std::string& source) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  const std::shared_ptr<const Recording> rec = doc->recording;
  MontageJobSpec spec;
  spec.montage = montage;
  spec.source = source;
  spec.inputFile = doc->path.isEmpty() ? doc->title.toStdString() : doc->path.toStdString();
  const QString name = QString::fromStdString(montage.name.empty() ? source : montage.name);
  const QString sourceTitle = doc->title;
  return workspace_.submitTyped<DerivedRecording>(
      tr("Montage %1 of %2").arg(name, sourceTitle),
      [rec, spec](JobContext& ctx) {
        MontageJobResult r = runMontageJob(rec, spec, ctx);
        return DerivedRecording{r.recording, r.provenance};
      },
      tr("Montage failed"), tr("Could not apply the montage %1.").arg(name),
      [this, rec, montage, name, sourceTitle](JobId id,
                                              std::shared_ptr<const DerivedRecording> result) {
        // A built-in montage is recorded by name, so the step applies to the next recording's
        // channels; any other by its derivations.
        PipelineMontageStep step;
        step.builtin = builtinMontageName(montage, *rec);
        if (step.builtin.empty()) step.montage = montage;
        workspace_.recordStep(step);
        const int tab =
            openDerivedTab(workspace_, host_, id, *result,
                           {tr("%1 (%2)").arg(sourceTitle, name),
                            tr("%1 with the montage %2 applied").arg(sourceTitle, name),
                            tr("montage %1").arg(name), tr("Montage recording opened")});
        emit applied(tab);
      });
}

JobId MontageWorkflow::applyStep(const PipelineMontageStep& step) {
  const Document* doc = workspace_.currentDocument();
  if (!doc) return 0;
  return apply(montageStepMontage(step, *doc->recording),
               step.builtin.empty() ? "the pipeline's derivations" : step.builtin);
}

}  // namespace modescope
