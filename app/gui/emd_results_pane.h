// One decomposition result in the "Decomposition" dock: a channel picker; the IMF stack with
// marking and the reconstruction preview; the Hilbert spectrum with its colour scale, zoom,
// cursor read-out and a note on how it is drawn (CUDA-OpenGL interop, installed here, or host
// memory); the marginal spectrum; a table of the IMFs (mean frequency, energy, sifts,
// drop box); figure export; and "Apply as cleaned recording", which asks the main window for a
// new recording with the marked rows left out (app/core/imf_reconstruction.h).
//
// Marks are kept per channel (DroppedRows) while the pane lives; they are the user's, not the
// result's (DESIGN.md: marks belong to the session).
//
// Thread rules: a GUI-thread widget; the recording and results are shared read-only.
#pragma once

#include <QWidget>
#include <memory>

#include "app/core/imf_reconstruction.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace modescope {

class HilbertSpectrumView;
class ImfStackView;
class MarginalSpectrumView;

class EmdResultsPane : public QWidget {
  Q_OBJECT

 public:
  // Table columns.
  enum Column { kDropColumn, kRowColumn, kFrequencyColumn, kEnergyColumn, kSiftsColumn };

  // `recording` is the one the result was computed from (its samples give the preview's
  // original); `hht` may be null (no spectrum, no mean frequencies).
  EmdResultsPane(std::shared_ptr<const Recording> recording,
                 std::shared_ptr<const EmdResult> result, std::shared_ptr<const HhtResult> hht,
                 const QString& title, QWidget* parent = nullptr);

  const std::shared_ptr<const Recording>& recording() const { return recording_; }
  const std::shared_ptr<const EmdResult>& result() const { return result_; }
  const std::shared_ptr<const HhtResult>& hht() const { return hht_; }
  const QString& title() const { return title_; }

  int currentChannel() const { return channel_; }  // index into result()->channels
  void setCurrentChannel(int resultChannel);
  // Rows marked for removal, per recording channel (only channels with marks).
  const DroppedRows& droppedRows() const { return dropped_; }
  void setDropped(int resultChannel, int row, bool drop);
  void setPreviewEnabled(bool on);
  bool previewEnabled() const;
  bool timeLinked() const;  // follow and drive the signal browser's page

  ImfStackView* imfStack() const { return stack_; }
  HilbertSpectrumView* spectrum() const { return spectrum_; }
  MarginalSpectrumView* marginal() const { return marginal_; }
  QTableWidget* imfTable() const { return table_; }
  QLabel* readoutLabel() const { return readout_; }
  QLabel* drawingPathLabel() const { return drawingPath_; }  // how the spectrum is drawn
  QPushButton* applyButton() const { return apply_; }
  QComboBox* channelCombo() const { return channelCombo_; }

 public slots:
  // From the signal browser (when linked): shows that time range in the stack and spectrum.
  void setTimeWindow(double startSeconds, double seconds);

 signals:
  void timeWindowChanged(double startSeconds, double seconds);  // user pan/zoom, when linked
  void applyRequested();                                        // "Apply as cleaned recording"
  void marksChanged();

 private:
  void showChannel();
  void fillTable();
  void syncMarksFromStack();
  void updatePreview();
  void exportFigure(QWidget* view, const QString& what);
  QString channelName(int resultChannel) const;
  QString unit(int resultChannel) const;

  std::shared_ptr<const Recording> recording_;
  std::shared_ptr<const EmdResult> result_;
  std::shared_ptr<const HhtResult> hht_;
  QString title_;
  int channel_ = 0;
  DroppedRows dropped_;
  bool syncing_ = false;

  QComboBox* channelCombo_ = nullptr;
  QCheckBox* frequency_ = nullptr;
  QCheckBox* preview_ = nullptr;
  QCheckBox* link_ = nullptr;
  QComboBox* colourScale_ = nullptr;
  QCheckBox* logMarginal_ = nullptr;
  QPushButton* apply_ = nullptr;
  ImfStackView* stack_ = nullptr;
  HilbertSpectrumView* spectrum_ = nullptr;
  MarginalSpectrumView* marginal_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* readout_ = nullptr;
  QLabel* drawingPath_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace modescope
