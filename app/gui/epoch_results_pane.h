// One run of epochs and averages (app/core/epoch_job.h) in the "Epochs and averages" dock:
//
//  - ERP: the averages of one channel per condition, each with its confidence band (mean +- z SE,
//    z from the confidence level), and the difference waves dashed;
//  - Butterfly: every channel's average of one condition (or difference) with the global field
//    power (the standard deviation over channels, Lehmann and Skrandies 1980) in black;
//  - Topography: scalp maps of one condition at times spaced over the window (or from the time
//    clicked in the ERP or butterfly plot), each map the channels' averages at that time;
//  - Epochs: the kept epochs one after another in a signal browser (each event marked with its
//    condition) and the log of every event, kept or dropped and why;
//  - Spectrum: the Welch power spectrum of the epochs, per channel and averaged, on a log scale.
//
// Thread rules: GUI thread.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "app/core/epoch_job.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace modescope {

class BrowserPane;
class CurvePlot;
class ScalpMapView;

class EpochResultsPane : public QWidget {
  Q_OBJECT

 public:
  EpochResultsPane(std::shared_ptr<const Recording> recording, EpochJobResult result,
                   QWidget* parent = nullptr);

  const EpochJobResult& result() const { return result_; }
  QTabWidget* tabs() const { return tabs_; }
  CurvePlot* erpPlot() const { return erp_; }
  CurvePlot* butterflyPlot() const { return butterfly_; }
  CurvePlot* spectrumPlot() const { return spectrum_; }
  const std::vector<ScalpMapView*>& scalpMaps() const { return maps_; }
  BrowserPane* epochBrowser() const { return epochs_; }
  QTableWidget* eventLog() const { return log_; }
  QComboBox* channelChoice() const { return channel_; }
  QComboBox* conditionChoice() const { return condition_; }

  // The times of the scalp maps start at `seconds` (relative to the event).
  void setMapTime(double seconds);

 private:
  void showErp();
  void showButterfly();
  void showMaps();
  void showSpectrum();
  QWidget* buildEpochTab();
  // The mean and SE rows of the chosen condition or difference for channel c.
  const double* meanRow(int choice, std::size_t channel) const;

  std::shared_ptr<const Recording> recording_;
  EpochJobResult result_;
  QTabWidget* tabs_ = nullptr;
  CurvePlot *erp_ = nullptr, *butterfly_ = nullptr, *spectrum_ = nullptr;
  QComboBox *channel_ = nullptr, *condition_ = nullptr, *mapCondition_ = nullptr;
  QSpinBox* mapStep_ = nullptr;
  std::vector<ScalpMapView*> maps_;
  double mapStart_ = 0.0;
  BrowserPane* epochs_ = nullptr;
  QTableWidget* log_ = nullptr;
  std::vector<double> timesMs_;
};

}  // namespace modescope
