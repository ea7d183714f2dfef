// What a method workflow needs from the window besides the Workspace (app/gui/workspace.h): a
// main window to parent its dialogs and result docks and to show status messages in, the
// browser pane that shows a document (the window keeps the widgets; the workspace the data), and
// the window's own filter step (PipelinePlayer repeats it). MainWindow implements it; nothing but
// main_window* includes main_window.h.
//
// Thread rules: GUI thread.
#pragma once

#include <QMainWindow>
#include <QString>
#include <vector>

#include "engine/core/job_queue.h"

namespace modescope {

class BrowserPane;
class SignalBrowser;
struct PreprocessRequest;

class WorkflowHost {
 public:
  virtual ~WorkflowHost() = default;
  virtual QMainWindow* hostWindow() = 0;
  // The pane showing the document at `documentIndex` (the workspace's index); null when none.
  virtual BrowserPane* paneAt(int documentIndex) const = 0;
  virtual void showStatus(const QString& message, int milliseconds) = 0;
  // Filters or re-references the current document as Process > Filter does (a derived document,
  // an undo step, a history step). Returns the job's id, 0 when nothing is open.
  virtual JobId runPreprocess(const PreprocessRequest& request) = 0;
};

// The signal browser of the document at `documentIndex` (null when none).
SignalBrowser* browserAt(const WorkflowHost& host, int documentIndex);
// The channels selected in the browser of the document at `documentIndex` (empty when none).
std::vector<int> selectedChannels(const WorkflowHost& host, int documentIndex);
// The same when at least two are selected, else none (the dialog's checklist then offers its
// default, the EEG channels): a one-channel selection is rarely what a map between channels
// (r^2, entropy, epochs) is for.
std::vector<int> severalSelectedChannels(const WorkflowHost& host, int documentIndex);

}  // namespace modescope
