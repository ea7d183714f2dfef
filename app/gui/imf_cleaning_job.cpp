#include "app/gui/imf_cleaning_job.h"

#include <QObject>
#include <QStatusBar>

#include "app/gui/job_results.h"
#include "app/gui/main_window.h"

namespace modescope {

JobId submitImfCleaning(MainWindow* window, std::shared_ptr<const Recording> recording,
                        std::shared_ptr<const EmdResult> result, DroppedRows dropped,
                        const QString& source, const QString& kind,
                        std::function<void(int tabIndex)> opened) {
  return window->submitTyped<DerivedRecording>(
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
      [window, source, kind, opened](JobId id, std::shared_ptr<const DerivedRecording> result) {
        const auto& derived = *result;
        const QString title = QObject::tr("%1 (%2-cleaned)").arg(source, kind);
        const JobRecord record{title.toStdString(),
                               jobStateName(JobState::Succeeded),
                               {},
                               derived.provenance,
                               derived.recording};
        Document doc;
        doc.recording = derived.recording;
        doc.title = title;
        doc.derived = true;
        QString droppedText;
        for (const auto& [name, value] : derived.provenance.parameters) {
          if (name == "dropped") droppedText = QString::fromStdString(value);
        }
        doc.origin =
            QObject::tr("Cleaned by IMF rejection from %1; dropped %2").arg(source, droppedText);
        doc.provenance = derived.provenance;
        const int index = window->addDerivedDocument(
            std::move(doc), id, record, QObject::tr("remove IMFs (%1)").arg(droppedText));
        window->statusBar()->showMessage(
            QObject::tr("Cleaned recording opened; Edit > Undo removes it, File > Export "
                        "recording writes it"),
            8000);
        if (opened) opened(index);
      });
}

}  // namespace modescope
