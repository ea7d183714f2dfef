#include "app/gui/imf_cleaning_job.h"

#include <QObject>

#include "app/gui/derived_tab.h"
#include "app/gui/job_results.h"
#include "app/gui/workspace.h"

namespace modescope {

JobId submitImfCleaning(Workspace& workspace, WorkflowHost& host,
                        std::shared_ptr<const Recording> recording,
                        std::shared_ptr<const EmdResult> result, DroppedRows dropped,
                        const QString& source, const QString& kind,
                        std::function<void(int tabIndex)> opened) {
  return workspace.submitTyped<DerivedRecording>(
      QObject::tr("Clean by IMF rejection (%1)").arg(source),
      [rec = std::move(recording), result = std::move(result),
       dropped = std::move(dropped)](JobContext& ctx) -> DerivedRecording {
        ctx.progress(0.0, "reconstructing");
        DerivedRecording derived;
        derived.recording = cleanedRecording(rec, *result, dropped);
        derived.provenance = cleaningProvenance(*rec, *result, dropped);
        return derived;
      },
      QObject::tr("Cleaning failed"), QObject::tr("Could not make the cleaned recording."),
      [&workspace, &host, source, kind, opened](JobId id,
                                                std::shared_ptr<const DerivedRecording> derived) {
        QString droppedText;
        for (const auto& [name, value] : derived->provenance.parameters) {
          if (name == "dropped") droppedText = QString::fromStdString(value);
        }
        const int index = openDerivedTab(
            workspace, host, id, *derived,
            {QObject::tr("%1 (%2-cleaned)").arg(source, kind),
             QObject::tr("Cleaned by IMF rejection from %1; dropped %2").arg(source, droppedText),
             QObject::tr("remove IMFs (%1)").arg(droppedText),
             QObject::tr("Cleaned recording opened")});
        if (opened) opened(index);
      });
}

}  // namespace modescope
