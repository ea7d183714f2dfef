// One MEMD / NA-MEMD result in the "Multivariate EMD" dock (issue 17, item 4). Views, as tabs:
//   Grid         channels x IMFs thumbnails (widgets/mode_grid_view.h); a click opens that IMF
//                across all channels, Ctrl+click / double-click marks it for removal (a header:
//                on every channel)
//   IMF across channels   the chosen IMF of every channel in a signal browser, on the
//                recording's time axis (memd_view_data.h: modeAcrossChannels); the workflow
//                makes it follow the recording's page while the time link is on
//   Scalp maps   per IMF, a scalp map of its energy and one of its mean instantaneous frequency
//   Hilbert spectra       summed across channels, or one channel, with the marginal spectrum
//   Alignment    the mean instantaneous frequency of each IMF on each channel, with the mean and
//                spread per IMF (mode alignment: the same scale on every channel)
//   Channels     the EMD results pane on the modes (per channel: the IMF stack, its Hilbert
//                spectrum, marks on chosen channels and the preview of the kept rows over the
//                original)
// plus "Apply as cleaned recording" (the kept IMFs summed, as a derived recording the File menu
// exports to EDF+/BDF+/HDF5 with its provenance) and figure export of every view.
//
// The marks are the embedded EMD pane's (DroppedRows per recording channel); the grid shows them.
//
// Thread rules: a GUI-thread widget; the recording and results are shared read-only.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "app/core/imf_reconstruction.h"
#include "app/core/memd_job.h"
#include "app/gui/memd_view_data.h"
#include "engine/core/recording.h"
#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace modescope {

class BrowserPane;
class EmdResultsPane;
class HilbertSpectrumView;
class MarginalSpectrumView;
class ModeGridView;
class ScalpMapGrid;

class MemdResultsPane : public QWidget {
  Q_OBJECT

 public:
  // Tabs, in order.
  enum View { kGridView, kImfView, kScalpView, kSpectrumView, kAlignmentView, kChannelsView };

  // `modes`: the MEMD result as the EMD family's value type (memdModesAsEmd); `hht` its
  // Hilbert-Huang transform (may be null: no spectra, maps or alignment).
  MemdResultsPane(std::shared_ptr<const Recording> recording,
                  std::shared_ptr<const MemdResult> result, std::shared_ptr<const EmdResult> modes,
                  std::shared_ptr<const HhtResult> hht, const QString& title,
                  QWidget* parent = nullptr);

  const std::shared_ptr<const Recording>& recording() const { return recording_; }
  const std::shared_ptr<const MemdResult>& result() const { return result_; }
  const std::shared_ptr<const EmdResult>& modes() const { return modes_; }
  const std::shared_ptr<const HhtResult>& hht() const { return hht_; }
  const MemdAlignment& alignment() const { return alignment_; }
  const QString& title() const { return title_; }

  // IMF row `row` (0-based; the last is the residue) of every channel in the browser tab, which
  // becomes current.
  void openModeAcrossChannels(int row);
  int openedMode() const { return openedRow_; }  // -1 before any

  // Marks (the embedded EMD pane's): one channel (index into the result's channels), or every
  // channel.
  void setDropped(int resultChannel, int row, bool drop);
  void setDroppedOnAllChannels(int row, bool drop);
  const DroppedRows& droppedRows() const;

  // Figures by name: "grid", "imf" (the browser page), "energy", "frequency" (scalp maps),
  // "spectrum", "marginal", "alignment"; PNG/SVG/PDF by extension. False with *error set when
  // the name is unknown or the file cannot be written.
  bool exportFigure(const QString& which, const QString& path, QString* error = nullptr);

  QTabWidget* views() const { return views_; }
  ModeGridView* grid() const { return grid_; }
  BrowserPane* modeBrowser() const { return modeBrowser_; }
  ScalpMapGrid* energyMaps() const { return energyMaps_; }
  ScalpMapGrid* frequencyMaps() const { return frequencyMaps_; }
  QComboBox* spectrumChannel() const { return spectrumChannel_; }  // 0: sum across channels
  HilbertSpectrumView* spectrum() const { return spectrum_; }
  QTableWidget* alignmentTable() const { return alignmentTable_; }
  EmdResultsPane* channelsPane() const { return channels_; }
  QPushButton* applyButton() const { return apply_; }

 signals:
  void applyRequested();  // "Apply as cleaned recording"
  void marksChanged();

 private:
  QWidget* buildGridTab();
  QWidget* buildImfTab();
  QWidget* buildScalpTab();
  QWidget* buildSpectrumTab();
  QWidget* buildAlignmentTab();
  void showSpectrum(int comboIndex);
  void syncGridMarks();
  void toggleCell(int resultChannel, int row);
  void chooseFigure(const QString& which, const QString& what);
  QString channelName(int resultChannel) const;
  QString unit() const;

  std::shared_ptr<const Recording> recording_;
  std::shared_ptr<const MemdResult> result_;
  std::shared_ptr<const EmdResult> modes_;
  std::shared_ptr<const HhtResult> hht_;
  HhtResult summed_;
  MemdAlignment alignment_;
  QString title_;
  int openedRow_ = -1;

  QTabWidget* views_ = nullptr;
  ModeGridView* grid_ = nullptr;
  QLabel* imfTitle_ = nullptr;
  BrowserPane* modeBrowser_ = nullptr;
  ScalpMapGrid* energyMaps_ = nullptr;
  ScalpMapGrid* frequencyMaps_ = nullptr;
  QComboBox* spectrumChannel_ = nullptr;
  HilbertSpectrumView* spectrum_ = nullptr;
  MarginalSpectrumView* marginal_ = nullptr;
  QTableWidget* alignmentTable_ = nullptr;
  EmdResultsPane* channels_ = nullptr;
  QPushButton* apply_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace modescope
