// A rows x cols matrix of doubles drawn as a heat map: the channel x frequency r^2 map of BCI
// offline analysis (BCI2000's "r^2 map"), and any other labelled matrix (channel x channel entropy
// matrices). Row labels on the left (row 0 at the top), column labels below, thinned to every k-th
// when they would overlap; axis titles; a colour bar with the value unit on the right.
//
// Colours: a sequential map (viridis, low..high) or a diverging one (blue-white-red) on a scale
// symmetric about zero (-max|v| .. +max|v|), so a signed quantity's zero is white. The scale fits
// the finite values unless a fixed range is set. NaN (and infinite) cells are drawn grey and read
// out as "no value".
//
// Interaction: hovering shows "row label, col label: value unit" in the read-out line under the
// plot (and as a tooltip); a click selects a cell (a frame marks it) and emits cellSelected; the
// arrow keys move the selection (Home/End: first/last column). exportFigure writes the whole
// figure as PNG/SVG/PDF (widgets/page_export.h; the format follows the extension).
//
// Thread rules: a GUI-thread widget. No engine types: plain vectors and strings in.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

class QPainter;

namespace modescope {

class MatrixHeatMap : public QWidget {
  Q_OBJECT

 public:
  enum class ColourMode {
    Sequential,  // viridis from the low to the high end of the scale (r^2, power, entropy)
    Diverging,   // blue-white-red, symmetric scale about 0 (signed r^2, differences)
  };

  explicit MatrixHeatMap(QWidget* parent = nullptr);

  // values: rows x cols, row-major (values[r * cols + c]). rowLabels / colLabels: one per row /
  // column (missing ones read as the 1-based index). An inconsistent size clears the map and
  // message() says why; nothing throws. The selection is kept when it still fits, else cleared.
  void setMatrix(int rows, int cols, std::vector<double> values, const QStringList& rowLabels,
                 const QStringList& colLabels);
  void clear();
  // Plot title above the map, axis titles ("Channel", "Frequency (Hz)") and the value unit shown
  // on the colour bar and in the read-out ("" for dimensionless values such as r^2).
  void setTitle(const QString& title);
  void setAxisTitles(const QString& rowTitle, const QString& colTitle);
  void setValueName(const QString& name);  // colour-bar title, e.g. "r\u00b2" (default "value")
  void setUnit(const QString& unit);
  // Appended to the column label in the read-out ("12" -> "12 Hz"); "" by default.
  void setColumnUnit(const QString& unit);
  void setColourMode(ColourMode mode);
  // Fixed colour range [low, high] (low < high, both finite; else ignored). In diverging mode the
  // range is used as given. clearFixedRange() goes back to fitting the values.
  void setFixedRange(double low, double high);
  void clearFixedRange();

  int rowCount() const { return rows_; }
  int columnCount() const { return cols_; }
  double value(int row, int col) const;  // NaN outside the matrix
  QString title() const { return title_; }
  QString message() const { return message_; }
  ColourMode colourMode() const { return mode_; }
  double scaleLow() const;  // the colour scale's ends as drawn
  double scaleHigh() const;
  // The colour a value is drawn in (grey for NaN), for legends and tests.
  QRgb colourFor(double value) const;

  // Selection (-1, -1 when none). setSelectedCell emits cellSelected when it changes the cell.
  int selectedRow() const { return selRow_; }
  int selectedColumn() const { return selCol_; }
  void setSelectedCell(int row, int col);
  void clearSelection();

  // The read-out line for a cell ("C3, 12 Hz: 0.412 uV^2/Hz"); "" outside the matrix.
  QString readoutText(int row, int col) const;
  // What the read-out line shows now (the hovered cell, else the selected one).
  QString readout() const;
  // Geometry for hit tests and tests: where cell (row, col) is drawn when the figure fills
  // `area` (the widget's rect() when left out), and the cell under a widget point.
  QRectF cellRect(int row, int col, const QRect& area = {}) const;
  bool cellAt(const QPointF& pos, int* row, int* col) const;
  // The labels drawn (after thinning) for the widget's current size: indices of the rows and
  // columns that get a label.
  std::vector<int> shownRowLabels() const;
  std::vector<int> shownColumnLabels() const;

  // Paints the whole figure into `painter` over `area` (the widget, export).
  void render(QPainter& painter, const QRect& area) const;
  // PNG/SVG/PDF at the widget's size (by extension). False and *error set on failure.
  bool exportFigure(const QString& path, QString* error = nullptr) const;

  QSize sizeHint() const override { return {560, 420}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 signals:
  void cellSelected(int row, int col);
  void cellHovered(int row, int col);  // (-1, -1) when the pointer leaves the matrix

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct Layout;
  Layout layoutFor(const QRect& area, const QFontMetrics& fm) const;
  void refit();
  QString labelOfRow(int r) const;
  QString labelOfColumn(int c) const;
  void setHovered(int row, int col);

  int rows_ = 0, cols_ = 0;
  std::vector<double> values_;
  QStringList rowLabels_, colLabels_;
  QString title_, rowTitle_, colTitle_, colUnit_, valueName_ = QStringLiteral("value"), unit_,
                                                  message_;
  ColourMode mode_ = ColourMode::Sequential;
  std::optional<std::pair<double, double>> fixed_;
  double low_ = 0.0, high_ = 1.0;  // fitted (or fixed) scale
  int selRow_ = -1, selCol_ = -1;
  int hoverRow_ = -1, hoverCol_ = -1;
};

}  // namespace modescope
