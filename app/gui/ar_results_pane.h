// One event-related AR result in the "Event-related spectra" dock (issue 5, items 3 and 5): what
// BCI2000's offline analysis shows, linked so that one click answers "where and at which
// frequency do the classes differ, and how do their spectra look there":
//
//  - the channel x frequency r^2 map (widgets/matrix_heat_map.h; rows = the result's rowNames,
//    columns = bin centres in Hz), r^2 on a sequential scale from 0 or signed r^2 (positive where
//    class A is larger) on a diverging symmetric one;
//  - clicking a cell (or moving with the arrow keys) chooses the channel and the bin: a scalp map
//    of (signed) r^2 at that bin (widgets/scalp_map_view.h; positions from the recording's
//    montage by row name, rows without a position listed under the map) and the spectra of the
//    two classes for that channel (Qt Charts: mean over trials with a +-1 standard-error band, in
//    arValueUnit(output, channel unit), on a log axis by default for power), the chosen bin
//    marked by a vertical line;
//  - a summary line (classes, trial counts, preset/order/window, spatial filter, backend, time)
//    and the diagnostics (skipped trials, flat windows, reduced orders) listed, never hidden;
//  - every view exportable as PNG/SVG/PDF (the Export button or each view's context menu).
//
// The first cell chosen is the one with the largest r^2.
//
// Thread rules: a GUI-thread widget; the recording and the result are shared read-only.
#pragma once

#include <QWidget>
#include <memory>
#include <string>

#include "app/core/ar_job.h"
#include "engine/ar/event_features.h"
#include "engine/core/recording.h"

class QCheckBox;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QListWidget;
class QAreaSeries;
class QLogValueAxis;
class QValueAxis;

namespace modescope {

class MatrixHeatMap;
class ScalpMapView;

class ArResultsPane : public QWidget {
  Q_OBJECT

 public:
  ArResultsPane(std::shared_ptr<const Recording> recording, ArJobResult job, ArJobSpec spec,
                const QString& title, QWidget* parent = nullptr);
  ~ArResultsPane() override;

  const std::shared_ptr<const Recording>& recording() const { return recording_; }
  const EventR2Result& result() const { return *job_.result; }
  const ArJobResult& job() const { return job_; }
  const QString& title() const { return title_; }

  // The chosen cell (feature row, bin). setCurrentCell moves the map's selection too.
  int currentRow() const { return row_; }
  int currentBin() const { return bin_; }
  void setCurrentCell(int row, int bin);
  // Signed r^2 (diverging, symmetric scale) instead of r^2.
  void setSigned(bool on);
  bool isSigned() const;
  // The spectra's value axis logarithmic (the default for power) or linear.
  void setLogScale(bool on);
  bool isLogScale() const;

  MatrixHeatMap* heatMap() const { return map_; }
  ScalpMapView* scalpMap() const { return scalp_; }
  QChartView* spectraView() const { return chartView_; }
  QLineSeries* classASeries() const { return meanA_; }
  QLineSeries* classBSeries() const { return meanB_; }
  QAreaSeries* classABand() const { return bandA_; }
  QAreaSeries* classBBand() const { return bandB_; }
  QLineSeries* binMarker() const { return marker_; }
  QLabel* summaryLabel() const { return summary_; }
  QListWidget* diagnosticsList() const { return diagnostics_; }
  // The unit of the spectra's values ("uV^2/Hz").
  QString valueUnit() const { return unit_; }
  // The standard error of class A (a = true) or B at (row, bin): sample SD / sqrt(trials).
  double standardError(bool classA, int row, int bin) const;

  // Figures: "map" (r^2 map), "scalp", "spectra", "all" (the three side by side), PNG/SVG/PDF by
  // extension. False and *error set on failure.
  bool exportFigure(const QString& which, const QString& path, QString* error = nullptr) const;

 signals:
  void currentCellChanged(int row, int bin);

 private:
  void showMap();
  void showCell();
  void chooseAndExport(const QString& which, const QString& what);
  void addExportMenu(QWidget* view, const QString& which, const QString& what);

  std::shared_ptr<const Recording> recording_;
  ArJobResult job_;
  ArJobSpec spec_;
  QString title_;
  QString unit_;
  int row_ = -1, bin_ = -1;
  std::vector<ChannelInfo> mapChannels_;  // one per result row, positions by name

  MatrixHeatMap* map_ = nullptr;
  ScalpMapView* scalp_ = nullptr;
  QChartView* chartView_ = nullptr;
  QChart* chart_ = nullptr;
  QLineSeries* meanA_ = nullptr;
  QLineSeries* meanB_ = nullptr;
  QAreaSeries* bandA_ = nullptr;
  QAreaSeries* bandB_ = nullptr;
  QLineSeries* marker_ = nullptr;
  QValueAxis* axisX_ = nullptr;
  QValueAxis* axisY_ = nullptr;
  QLogValueAxis* logY_ = nullptr;
  QCheckBox* logScale_ = nullptr;
  QComboBox* quantity_ = nullptr;
  QCheckBox* bands_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* cellLabel_ = nullptr;
  QListWidget* diagnostics_ = nullptr;
};

}  // namespace modescope
