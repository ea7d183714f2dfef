// The component browser's preview of cleaning: original (grey) and cleaned (coloured) channels
// over one page, one row per channel, both traces of a row on the row's own scale. The pane
// fills it with the channels the current marks change most (app/gui/ica_results_pane.h).
//
// Thread rules: a GUI-thread widget holding copies of the page's samples.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

namespace modescope {

struct IcaOverlayRow {
  QString label;
  std::vector<float> original, cleaned;  // same length: the page's samples
};

class IcaOverlayView : public QWidget {
  Q_OBJECT

 public:
  static inline const QColor kOriginalColour{0xa0, 0xa0, 0xa0};
  static inline const QColor kCleanedColour{0x1f, 0x4e, 0x9a};

  explicit IcaOverlayView(QWidget* parent = nullptr);

  // `startSeconds`: time of the first sample; `note`: one line above the traces.
  void setRows(std::vector<IcaOverlayRow> rows, double sampleRate, double startSeconds,
               const QString& note);
  const std::vector<IcaOverlayRow>& rows() const { return rows_; }

  void renderTo(QPainter& painter, const QRect& area) const;
  bool exportImage(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {500, 300}; }
  QSize minimumSizeHint() const override { return {200, 120}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<IcaOverlayRow> rows_;
  double rate_ = 1.0;
  double start_ = 0.0;
  QString note_;
};

}  // namespace modescope
