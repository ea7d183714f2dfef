// Bad channels and bad segments in the main window (issue 19, items 2, 3 and 9):
//
//  - marking: Shift + click on a channel label, Shift + drag over the traces (bad_marking_input.h),
//    the dock's list and its buttons; every change is a step of the window's undo stack;
//  - the dock "Bad channels" lists the marked channels and the bad segments (the file's own
//    "BAD..." annotations among them, which are not removable here);
//  - Process > Suggest bad channels: a background job measures the channels
//    (app/core/bad_channel_job.h) and BadChannelSuggestionsDialog shows the measures with their
//    thresholds; accepting marks the ticked channels;
//  - Process > Interpolate bad channels: a background job interpolates the current tab's marked
//    channels by spherical splines (app/core/interpolation_job.h) into a new tab (undoable, as
//    the window's other derived recordings).
// The marks live in Workspace::marks() and are saved with the session; Workspace::setMarks
// gives the opened recording's tab the flags and segments, so every method and export sees them.
//
// Thread rules: GUI thread. MainWindow owns it.
#pragma once

#include <QObject>
#include <QString>
#include <string>
#include <vector>

#include "engine/core/job_queue.h"
#include "engine/core/recording.h"
#include "engine/spatial/bad_channel_detection.h"
#include "engine/spatial/channel_interpolation.h"

class QDockWidget;
class QListWidget;
class QPushButton;

namespace modescope {

class BadChannelSuggestionsDialog;
class InterpolationDialog;
class WorkflowHost;
class Workspace;

class BadMarksWorkflow : public QObject {
  Q_OBJECT

 public:
  BadMarksWorkflow(Workspace& workspace, WorkflowHost& host);  // creates the dock

  QDockWidget* dock() const { return dock_; }
  QListWidget* channelList() const { return channels_; }
  QListWidget* segmentList() const { return segments_; }

  // Undoable changes of the marks (names as the browser shows them: name, else label).
  void toggleBadChannel(const QString& name);
  void setBadChannels(const std::vector<std::string>& names);
  void markBadSegment(double onset, double duration);
  // Removes the channels and the (user) segments selected in the dock's lists.
  void removeSelected();

  // The suggestion job on the opened recording; the dialog opens when it finishes (window
  // modal, not blocking: suggestionsShown hands it to tests). 0 when nothing is open.
  JobId suggest(const BadChannelCriteria& criteria = {});
  // Process > Interpolate bad channels...: the spline-parameter dialog (interpolation_dialog.h,
  // window modal, not blocking: interpolationAsked hands it to tests) for the current tab's
  // marked channels; Interpolate runs the job. Refused as interpolate() refuses.
  void askInterpolate();
  // The interpolation job on the current tab's marked channels with MNE's defaults; 0 (and
  // interpolationRefused) when nothing is open or no channel is marked. The step joins the
  // window's history.
  JobId interpolate();
  // The same for `channels` (recording indices of the current tab) with `params` (pipelines).
  JobId interpolate(const std::vector<std::size_t>& channels,
                    const SplineInterpolationParams& params);

 signals:
  void suggestionsShown(BadChannelSuggestionsDialog* dialog);
  void interpolated(int tabIndex);
  void interpolationRefused(const QString& message);
  void interpolationAsked(InterpolationDialog* dialog);

 private:
  void attach(int documentIndex);  // the mouse input on a new tab of the opened recording
  void onRecordingOpened();        // the file's own bad channels become marks
  void refresh();                  // lists and overlays from the window's marks
  // One undo step from the current bad channels and segments to these.
  void change(const QString& text, std::vector<std::string> channels,
              std::vector<Annotation> segments);

  Workspace& workspace_;
  WorkflowHost& host_;
  QDockWidget* dock_ = nullptr;
  QListWidget* channels_ = nullptr;
  QListWidget* segments_ = nullptr;
  QPushButton* interpolateButton_ = nullptr;
};

}  // namespace modescope
