// A channels x modes grid of small traces: row c is a decomposed channel, column k its IMF k
// (the last column the residue). For multivariate EMD (MEMD) every channel has the same rows and
// IMF k is one scale on all of them (mode alignment, Rehman and Mandic 2010), so a column reads
// as "this scale across the scalp". Each cell draws the min/max envelope of its trace over the
// whole block; the cells of a column share one amplitude scale, so channels compare within an
// IMF. Column headers carry the IMF's name and a note (its mean frequency).
//
// Interaction: a click on a cell or a header selects that column (columnClicked, with the row
// of the cell or -1); Ctrl+click or a double click on a cell toggles that channel's IMF for
// removal (cellToggled), on a header the IMF on every channel (columnToggled). The grid does not
// change marks by itself: their owner calls setDropped. Dropped cells are drawn crossed out in
// red on a pink ground.
//
// Thread rules: GUI thread only.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/emd/emd_result.h"

namespace modescope {

class ModeGridView : public QWidget {
  Q_OBJECT

 public:
  explicit ModeGridView(QWidget* parent = nullptr);

  // One row per channel of `modes` (all with the same row count, else the grid shows the rows
  // of the first channel and leaves the rest empty), labelled by `channelNames`; `notes` go
  // under the column headers ("38.2 Hz"; may be shorter than the columns). Marks and the
  // current column are reset.
  void setModes(const EmdResult& modes, const QStringList& channelNames, const QStringList& notes);
  void clear();

  int rowCount() const { return rows_; }
  int columnCount() const { return columns_; }
  QString columnTitle(int column) const;

  void setDropped(int row, int column, bool dropped);
  bool isDropped(int row, int column) const;
  void setCurrentColumn(int column);  // highlighted (-1: none)
  int currentColumn() const { return current_; }

  // Geometry, in widget pixels: the cell (row >= 0) or the header (row == -1) of a column.
  QRect cellRect(int row, int column) const;
  // {row, column} under `pos` (row -1: the header row); {-2, -1} outside every cell.
  std::pair<int, int> cellAt(const QPoint& pos) const;

  void render(QPainter& painter, const QRect& area) const;  // the whole grid, for exports
  // Cells grow with the widget (in a resizable scroll area: with the view) from their smallest
  // size, which is the minimum size; their height stops at twice the smallest.
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {200, 80}; }

 signals:
  void columnClicked(int column, int row);
  void cellToggled(int row, int column);
  void columnToggled(int column);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Per cell, kEnvelopePoints (low, high) pairs of the trace, scaled to [-1, 1] by the column's
  // largest |value|.
  struct Cell {
    std::vector<float> low, high;
  };
  const Cell* cell(int row, int column) const;

  int rows_ = 0;
  int columns_ = 0;
  QStringList names_;
  QStringList notes_;
  std::vector<Cell> cells_;    // rows x columns
  std::vector<char> dropped_;  // rows x columns
  int current_ = -1;
  int cellWidth_ = 0, cellHeight_ = 0;  // as laid out (resizeEvent)
};

}  // namespace modescope
