// "Apply as cleaned recording" of the EMD-family and MEMD panes: a job that builds the recording
// with the marked rows left out (app/core/imf_reconstruction.h: the kept rows summed over the
// decomposed range, the rest read from the original) and opens it as an undoable derived tab,
// with its provenance (method "emd-cleaning", the rows dropped, the decomposition's parameters),
// which File > Export recording writes to EDF+/BDF+/HDF5 like any recording.
//
// Thread rules: GUI thread.
#pragma once

#include <QString>
#include <functional>
#include <memory>

#include "app/core/imf_reconstruction.h"
#include "engine/core/job_queue.h"

namespace modescope {

class WorkflowHost;
class Workspace;

// `source` names the result in titles ("MEMD of Fz, Cz (4 s from 0 s)"); `kind` the
// decomposition in the tab title ("EMD" -> "... (EMD-cleaned)"). `opened(tabIndex)` runs when
// the tab is open.
JobId submitImfCleaning(Workspace& workspace, WorkflowHost& host,
                        std::shared_ptr<const Recording> recording,
                        std::shared_ptr<const EmdResult> result, DroppedRows dropped,
                        const QString& source, const QString& kind,
                        std::function<void(int tabIndex)> opened);

}  // namespace modescope
