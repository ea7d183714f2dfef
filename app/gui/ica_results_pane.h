// One ICA decomposition in the "Independent components" dock: the component browser.
//
//  - a table of the components (IC, variance %, kurtosis, |r| with EOG/ECG channels or the
//    frontal blink proxy, mark), sortable by any column (app/gui/ica_component_model.h);
//  - the current component's topography (widgets/scalp_map_view.h) with a slot for the 3-D head
//    view (widgets/scalp_3d_view.h, wired in where that view is built), and a grid of all the
//    components' maps (widgets/scalp_map_grid.h) showing the marks;
//  - the activations in a signal browser (scrolling, zoom and annotations as in the main browser;
//    time axis linked with it), from a recording that computes them on demand
//    (app/core/ica_activation_recording.h);
//  - the current component's Welch power spectrum (log power against Hz, 1 Hz to Nyquist);
//  - an overlay of the original (grey) and cleaned (blue) channels the marks change most, over the
//    activation browser's page (icaBackProject of that page);
//  - "Apply", "Save ICA...", figure export.
//
// Marking: click the Mark box, or M / space for the current component, or click/toggle a map in
// the grid. Toggles go through the undo stack given to the pane (Edit > Undo).
//
// Thread rules: a GUI-thread widget; the recording, decomposition and summary are shared
// read-only.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "app/core/ica_metrics.h"
#include "app/core/pipeline.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_ica.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QStackedWidget;
class QTableView;
class QToolButton;
class QUndoStack;

namespace modescope {

class IcaComponentModel;
class IcaOverlayView;
class MarginalSpectrumView;
class ScalpMapGrid;
class ScalpMapView;
class SignalBrowser;

class IcaResultsPane : public QWidget {
  Q_OBJECT

 public:
  // `recording`: the one `file` was computed on. `undo` (may be null: toggles are then not
  // undoable) receives one command per mark toggle.
  IcaResultsPane(std::shared_ptr<const Recording> recording, std::shared_ptr<const IcaFile> file,
                 IcaComponentSummary summary, const QString& title, QUndoStack* undo,
                 QWidget* parent = nullptr);
  ~IcaResultsPane() override;

  const std::shared_ptr<const Recording>& recording() const { return recording_; }
  const std::shared_ptr<const IcaFile>& file() const { return file_; }
  const QString& title() const { return title_; }
  // The ICA file this decomposition was read from or saved to ("" when none yet).
  const QString& icaPath() const { return icaPath_; }
  void setIcaPath(const QString& path);

  int componentCount() const;
  int currentComponent() const { return current_; }
  void setCurrentComponent(int component);
  bool isMarked(int component) const;
  std::vector<int> markedComponents() const;  // 0-based, ascending
  // Direct (no undo entry): sessions, undo commands, tests.
  void setMarked(int component, bool marked);
  void setMarkedComponents(const std::vector<int>& components);
  // Through the undo stack (the table box, M / space, the grid).
  void toggleMark(int component);
  // Marks every one of `components` not yet marked as one undo step.
  void markAll(const std::vector<int>& components, const QString& what);

  // The automatic flags as the session history records them (app/gui/session_history.h): the
  // thresholds of the labels shown and the labels "Mark flagged" rejected, at the lowest
  // confidence it was asked for. nullopt until the user runs the detectors at other thresholds
  // or marks flagged components (a replayed pipeline's ica step sets it).
  const std::optional<PipelineIcaFlags>& flagRecord() const { return flagRecord_; }
  void setFlagRecord(std::optional<PipelineIcaFlags> record);  // emits flagRecordChanged
  // The detectors' labels at other thresholds (the Label column and the record follow).
  void setFlags(IcaFlags flags);
  // Asks whoever runs jobs for the pane (IcaWorkflow) to label again at `params`.
  void requestFlags(const IcaFlagParams& params) { emit flagsRequested(params); }
  // Marks the components labelled one of `labels` with at least `minConfidence` and adds the
  // labels to the record, as one undo step; returns how many were newly marked.
  int markFlagged(const std::vector<IcaFlagLabel>& labels, double minConfidence);
  // The automatic labels' bar (filter, mark flagged, properties; app/gui/ica_flags_bar.h).
  class IcaFlagsBar* flagsBar() const {
    return flagsBar_;
  }
  // The scalp map of a component as the map views take it.
  std::vector<ChannelInfo> mapChannels() const;
  std::vector<double> mapValues(int component) const;
  bool timeLinked() const;

  IcaComponentModel* componentModel() const { return model_; }
  QSortFilterProxyModel* sortModel() const { return sorted_; }
  QTableView* componentTable() const { return table_; }
  ScalpMapView* currentMap() const { return map_; }
  ScalpMapGrid* mapGrid() const { return grid_; }
  // Page 0: the 2-D map; the 3-D view goes on page 1 (toggle: threeDButton()).
  QStackedWidget* mapStack() const { return mapStack_; }
  QToolButton* threeDButton() const { return threeD_; }
  // The slot for the 3-D head view (widgets/scalp_3d_view.h, built with VTK): `view` becomes page
  // 1 of mapStack() and the 3-D button is enabled; `setMap` is called with the current
  // component's map whenever it changes while the 3-D page shows (and when it is shown). E.g.
  //   auto* v = new Scalp3dView;
  //   pane->setThreeDView(v, [v](const auto& ch, const auto& x, const QString& t,
  //                              const QString& u) { v->setMap(ch, x, t, u); });
  using MapSink = std::function<void(const std::vector<ChannelInfo>& channels,
                                     const std::vector<double>& values, const QString& title,
                                     const QString& unit)>;
  void setThreeDView(QWidget* view, MapSink setMap);
  SignalBrowser* activationBrowser() const { return browser_; }
  MarginalSpectrumView* spectrum() const { return spectrum_; }
  IcaOverlayView* overlay() const { return overlay_; }
  QPushButton* applyButton() const { return apply_; }
  QLabel* summaryLabel() const { return summary_; }

  // Figures: "map", "grid", "spectrum", "overlay", "activations" (PNG/SVG/PDF by extension).
  bool exportFigure(const QString& which, const QString& path, QString* error = nullptr) const;

 public slots:
  // From the signal browser (when linked): shows that time range in the activations/overlay.
  void setTimeWindow(double startSeconds, double seconds);
  // Recomputes the overlay for the activation browser's page and the current marks.
  void updateOverlay();

 signals:
  void timeWindowChanged(double startSeconds, double seconds);  // user pan/zoom, when linked
  void applyRequested();
  void saveRequested();
  void marksChanged();
  void currentComponentChanged(int component);
  void flagsRequested(const IcaFlagParams& params);
  void flagsChanged();  // setFlags
  void flagRecordChanged();

 private:
  void showCurrent();
  void fillGrid();
  void markActivations();
  void chooseAndExport(const QString& which, const QString& what);

  std::shared_ptr<const Recording> recording_;
  std::shared_ptr<const IcaFile> file_;
  QString title_;
  QString icaPath_;
  QUndoStack* undo_ = nullptr;
  int current_ = 0;
  bool syncing_ = false;
  bool overlayPending_ = false;

  IcaComponentModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* table_ = nullptr;
  ScalpMapView* map_ = nullptr;
  ScalpMapGrid* grid_ = nullptr;
  QStackedWidget* mapStack_ = nullptr;
  QToolButton* threeD_ = nullptr;
  MapSink threeDMap_;
  SignalBrowser* browser_ = nullptr;
  MarginalSpectrumView* spectrum_ = nullptr;
  IcaOverlayView* overlay_ = nullptr;
  QSpinBox* overlayCount_ = nullptr;
  QCheckBox* link_ = nullptr;
  QPushButton* apply_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* currentLabel_ = nullptr;
  class IcaFlagsBar* flagsBar_ = nullptr;
  std::optional<PipelineIcaFlags> flagRecord_;
};

}  // namespace modescope
