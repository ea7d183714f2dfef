// One channel's EMD modes stacked as traces (IMF 1, the fastest, on top; the residue last), each
// labelled "IMF 1 · 23.4 Hz" with its mean frequency when a Hilbert-Huang result is given, on a
// common time axis in recording seconds that can follow the signal browser and the Hilbert
// spectrum (setTimeWindow / timeWindowChanged).
//
// - Each row is scaled to its own range over the whole decomposed block (IMFs symmetric about
//   zero, the residue about its middle), so panning does not change a row's scale and rows of
//   very different power are all readable.
// - On demand, each IMF gets its instantaneous frequency (engine/hht/hht.h) as a second trace
//   under it, with its own 0..f Hz scale written at the right.
// - Marking: a click on a row's label (or its box) marks the row for removal; marked rows are
//   drawn grey with a red label and a crossed box. marksChanged() reports every change.
// - Preview: an optional top row with the original signal (grey) and the reconstruction from the
//   kept rows (colour) on one scale.
// - Mouse: wheel pans (one notch = a tenth of the window), ctrl+wheel zooms about the cursor,
//   dragging pans, double-click shows the whole block. Keys: Left/Right pan, +/- zoom, Home
//   shows all.
//
// Thread rules: a GUI-thread widget; the result is shared read-only.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/emd/emd_result.h"
#include "engine/hht/hht.h"

namespace modescope {

class ImfStackView : public QWidget {
  Q_OBJECT

 public:
  static constexpr double kWheelPanFraction = 0.1;
  static constexpr double kZoomStep = 1.25;
  static constexpr int kMinVisibleSamples = 8;

  explicit ImfStackView(QWidget* parent = nullptr);

  // Shows channel `resultChannel` (index into result->channels) of `result`; `hht` (optional)
  // gives mean frequencies and instantaneous frequencies for the same channel index. `unit` is the
  // signal's unit for the axis note. Clears marks and preview; shows the whole block.
  void setModes(std::shared_ptr<const EmdResult> result, int resultChannel,
                std::shared_ptr<const HhtResult> hht = nullptr, const QString& unit = {},
                const QString& channelName = {});
  int rowCount() const;  // IMFs + residue (0 when empty)
  QString rowLabel(int row) const;
  // Polylines drawn: one per row, plus two for the preview, plus one per IMF with an
  // instantaneous frequency while that is shown.
  int traceCount() const;

  void setShowInstantaneousFrequency(bool show);
  bool showsInstantaneousFrequency() const { return showFrequency_; }
  bool hasInstantaneousFrequency() const;  // the HHT result kept per-sample frequencies

  void setMarked(int row, bool marked);  // emits marksChanged() when it changes
  void setMarkedRows(const std::vector<int>& rows);
  bool isMarked(int row) const;
  std::vector<int> markedRows() const;  // ascending

  // Both in the block's samples (as reconstructKeptRows gives them); empty vectors clear it.
  void setPreview(std::vector<float> original, std::vector<float> reconstruction);
  void clearPreview();
  bool hasPreview() const { return !previewOriginal_.empty(); }

  double windowStart() const { return windowStart_; }      // s, recording time
  double windowSeconds() const { return windowSeconds_; }  // s
  double blockStart() const;                               // s
  double blockSeconds() const;                             // s

  // Geometry for tests and hit tests: the label box of a row, and the row under a point (-1 for
  // none or the preview row).
  QRect labelRect(int row) const;
  int rowAt(const QPoint& pos) const;

  void renderTo(QPainter& painter, const QRect& area) const;
  bool exportImage(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {700, 520}; }
  QSize minimumSizeHint() const override { return {300, 200}; }

 public slots:
  // Shows [startSeconds, startSeconds + seconds] clipped to the block. Emits nothing (so two
  // linked views do not echo each other).
  void setTimeWindow(double startSeconds, double seconds);
  void showWholeBlock();

 signals:
  void timeWindowChanged(double startSeconds, double seconds);  // user pan/zoom only
  void marksChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct Layout;
  Layout layoutIn(const QRect& area) const;
  const EmdChannelModes* modes() const;
  const HhtImf* hhtImf(int row) const;
  void userSetWindow(double start, double seconds);
  void clampWindow();

  std::shared_ptr<const EmdResult> result_;
  std::shared_ptr<const HhtResult> hht_;
  int channel_ = -1;
  QString unit_, channelName_;
  std::vector<bool> marked_;
  std::vector<float> previewOriginal_, previewReconstruction_;
  bool showFrequency_ = false;
  double windowStart_ = 0.0, windowSeconds_ = 1.0;
  bool panning_ = false;
  QPointF panStart_;
  double panWindowStart_ = 0.0;
};

}  // namespace modescope
