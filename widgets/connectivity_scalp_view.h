// Channel-pair connectivity on the 2-D head: the K channel pairs with the lowest (or highest)
// values of a channel x channel matrix (Cross-ApEn, cross-SampEn, their differences) drawn as
// lines between the electrodes, on the head outline of widgets/scalp_map_view.h and the
// projection of engine/montage/scalp_interpolation.h (projectToDisc, scalpLayout). Line colour
// (viridis up to its 0.85 point, so thin lines stay visible on white, or blue-white-red for a
// signed matrix on a symmetric scale) and width follow the value; a colour bar legend gives the
// values of the drawn lines and what was chosen ("10 lowest of 28 pairs"). Channels without a
// position are listed under the head ("Not shown (no position): X1"), never silently dropped; pairs
// involving them are not ranked.
//
// A pair {u, v} is ranked by the mean of its two directed entries ([u][v] + [v][u]) / 2 (the
// undirected strength; Cross-ApEn is not symmetric, the matrix view shows both directions);
// a pair with only one finite direction uses that one; the diagonal is never drawn. Ties keep the
// lower (u, v) first, so the choice is deterministic.
//
// Thread rules: a GUI-thread widget. No engine computation beyond the projection.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/core/recording.h"

class QPainter;
class QPainterPath;

namespace modescope {

class ConnectivityScalpView : public QWidget {
  Q_OBJECT

 public:
  enum class Pick {
    Lowest,   // the K smallest values (for Cross-ApEn: the most synchronous pairs)
    Highest,  // the K largest values (the most asynchronous / irregular pairs)
  };

  // One drawn line.
  struct Line {
    std::size_t u = 0, v = 0;  // indices into the channel list given (u < v)
    double value = 0.0;        // the pair's ranking value
  };

  explicit ConnectivityScalpView(QWidget* parent = nullptr);

  // channels: the matrix's channels in matrix order (positions from the montage); values:
  // C x C row-major. A size mismatch clears the view and message() says why; nothing throws.
  // `signedScale`: colours on a symmetric scale about 0 (differences), else viridis over the
  // drawn values.
  void setMatrix(const std::vector<ChannelInfo>& channels, const std::vector<double>& values,
                 const QString& title, const QString& valueName, bool signedScale = false);
  void clear();
  void setPick(Pick pick);
  Pick pick() const { return pick_; }
  void setLineCount(int k);  // K >= 1
  int lineCount() const { return k_; }

  const std::vector<Line>& lines() const { return lines_; }
  int rankedPairCount() const { return ranked_; }  // pairs with both positions and a value
  QStringList unmappedChannels() const { return unmapped_; }
  QString message() const { return message_; }
  QString title() const { return title_; }
  QString legendText() const;  // "10 lowest of 28 pairs (mean of both directions)"
  // Where channel i's electrode is drawn when the figure fills `area` (rect() when left out);
  // (NaN, NaN) for a channel without a position.
  QPointF electrodePixel(std::size_t i, const QRect& area = {}) const;
  // The middle of line i as drawn (lines are shallow arcs, so pairs along one row of electrodes
  // stay apart); (NaN, NaN) when there is no such line.
  QPointF lineMidpoint(std::size_t i, const QRect& area = {}) const;
  // The colour a line of value v is drawn in.
  QColor colourFor(double v) const;

  void render(QPainter& painter, const QRect& area) const;
  QSize sizeHint() const override { return {420, 420}; }
  QSize minimumSizeHint() const override { return {200, 200}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void rebuild();
  struct Geometry;
  Geometry geometry(const QRect& area) const;
  QPainterPath linePath(const Line& line, const Geometry& g) const;

  std::vector<ChannelInfo> channels_;
  std::vector<double> values_;
  std::vector<QPointF> disc_;  // per channel, NaN without a position
  QString title_, valueName_, message_;
  QStringList names_, unmapped_;
  bool signed_ = false;
  Pick pick_ = Pick::Lowest;
  int k_ = 10;
  int ranked_ = 0;
  std::vector<Line> lines_;
  double low_ = 0.0, high_ = 1.0;  // colour scale
};

}  // namespace modescope
