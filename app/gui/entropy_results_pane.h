// One entropy-matrix result in the "Entropy matrices" dock (issue 6, item 3): what a researcher
// studying EEG/MEG complexity and connectivity looks at, linked by one chosen cell (u, v):
//
//  - the C x C matrix as a heat map (widgets/matrix_heat_map.h): rows "template channel (u)",
//    columns "target channel (v)", entry [u][v] = Cross-ApEn(v||u) (or cross-SampEn), channel
//    labels, colour bar, cursor read-out; "Mask diagonal" hides ApEn/SampEn on the diagonal (ApEn
//    is lower there: self-matches) so the colour scale shows the pairs;
//  - the epoch average or one epoch, stepped with the spin box, the slider or PageUp/PageDown;
//  - clicking a cell (or the arrow keys in the map) shows the two channels' z-scored signals in
//    the chosen epoch (the series the statistic sees) with the value;
//  - a scalp view of the K lowest (or highest) pairs as lines between electrodes
//    (widgets/connectivity_scalp_view.h);
//  - a difference view A - B against another result of this session or an HDF5 file of
//    `modescope-cli xapen` / this pane's export (engine/io/hdf5_entropy.h), on a diverging
//    symmetric scale; results with other channels or parameters are refused with the reason;
//  - exports: each figure as PNG/SVG/PDF, the matrices as HDF5 (the CLI's schema) and the shown
//    matrix as CSV (engine/entropy/entropy_csv.h).
//
// Thread rules: a GUI-thread widget; the recording and the result are shared read-only.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "app/core/entropy_job.h"
#include "engine/core/recording.h"
#include "engine/io/hdf5_entropy.h"

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineSeries;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class QValueAxis;

namespace modescope {

class ConnectivityScalpView;
class MatrixHeatMap;

// Another result to compare with: a label and the recording's run.
using EntropyComparison = std::pair<QString, std::shared_ptr<const EntropyFileRecording>>;

// "" when `b` can be subtracted from `a` (same channel names in the same order, same measure,
// m, r, SD convention, epoch length, and bias for ApEn), else the reason with both values and
// what to do.
QString entropyComparisonProblem(const EntropyFileRecording& a, const EntropyFileRecording& b);

class EntropyResultsPane : public QWidget {
  Q_OBJECT

 public:
  // `recording` may be null for a result read from a file (no signal view then).
  EntropyResultsPane(std::shared_ptr<const Recording> recording, EntropyJobResult job,
                     const QString& title, QWidget* parent = nullptr);
  ~EntropyResultsPane() override;

  const EntropyMatrixResult& result() const { return job_.run->result; }
  const EntropyJobResult& job() const { return job_; }
  const QString& title() const { return title_; }

  // -1: the epoch average; 0..E-1: that epoch's matrix. The signal view always shows
  // signalEpoch() (the chosen epoch, also while the average is shown).
  void setEpoch(int epoch);
  int epoch() const;
  int signalEpoch() const { return signalEpoch_; }
  void setMaskDiagonal(bool on);
  bool maskDiagonal() const;
  void setCurrentCell(int u, int v);
  int currentRow() const { return row_; }
  int currentColumn() const { return col_; }
  // The matrix shown now (C x C, before masking): the average, an epoch, or A - B.
  const std::vector<double>& shownMatrix() const { return shown_; }

  // Sources offered by "Compare with..." besides a file (the workflow's other results).
  void setComparisonSources(std::function<std::vector<EntropyComparison>()> sources);
  // What "Compare with..." offers besides a file: the sources' results other than this one.
  std::vector<EntropyComparison> comparisonSources() const;
  // Sets B of the difference view; false and *error (entropyComparisonProblem or the reader's
  // message) when it cannot be used; on success the difference is shown.
  bool setComparison(const EntropyComparison& other, QString* error = nullptr);
  bool loadComparisonFile(const QString& path, QString* error = nullptr);  // recording 0000
  void setShowDifference(bool on);
  bool showsDifference() const;
  QString comparisonLabel() const { return comparison_.first; }

  MatrixHeatMap* heatMap() const { return map_; }
  ConnectivityScalpView* scalpView() const { return scalp_; }
  QChartView* signalView() const { return chartView_; }
  QLineSeries* templateSeries() const { return seriesU_; }
  QLineSeries* targetSeries() const { return seriesV_; }
  QLabel* cellLabel() const { return cellLabel_; }
  QLabel* summaryLabel() const { return summary_; }
  QListWidget* diagnosticsList() const { return diagnostics_; }
  QSpinBox* epochSpin() const { return epochSpin_; }
  QSlider* epochSlider() const { return epochSlider_; }

  // Figures "matrix", "scalp", "signals", "all" as PNG/SVG/PDF by extension.
  bool exportFigure(const QString& which, const QString& path, QString* error = nullptr) const;
  // The result as an HDF5 file of schema modescope-entropy/1 (one recording).
  bool exportHdf5(const QString& path, QString* error = nullptr) const;
  // The shown matrix (average, epoch or difference) as CSV.
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 signals:
  void currentCellChanged(int u, int v);
  void epochChanged(int epoch);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void showMatrix();
  void showCell();
  void showScalp();
  void askComparison();
  void chooseAndExport(const QString& which, const QString& what);

  std::shared_ptr<const Recording> recording_;
  EntropyJobResult job_;
  QString title_;
  QStringList names_;
  std::vector<ChannelInfo> mapChannels_;
  std::vector<double> shown_;
  int row_ = -1, col_ = -1;
  int signalEpoch_ = 0;
  bool filling_ = false;
  EntropyComparison comparison_;
  std::function<std::vector<EntropyComparison>()> sources_;

  MatrixHeatMap* map_ = nullptr;
  ConnectivityScalpView* scalp_ = nullptr;
  QChartView* chartView_ = nullptr;
  QChart* chart_ = nullptr;
  QLineSeries* seriesU_ = nullptr;
  QLineSeries* seriesV_ = nullptr;
  QValueAxis* axisX_ = nullptr;
  QValueAxis* axisY_ = nullptr;
  QCheckBox* average_ = nullptr;
  QSpinBox* epochSpin_ = nullptr;
  QSlider* epochSlider_ = nullptr;
  QCheckBox* mask_ = nullptr;
  QCheckBox* difference_ = nullptr;
  QPushButton* compare_ = nullptr;
  QSpinBox* lineCount_ = nullptr;
  QComboBox* pick_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* cellLabel_ = nullptr;
  QListWidget* diagnostics_ = nullptr;
};

}  // namespace modescope
