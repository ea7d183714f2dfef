// Figure export pieces the result panes share (AR r^2, Cross-ApEn, ICA): the "choose a file,
// export, report a failure" step behind each Export menu entry, and the three-view export of a
// pane built from a matrix heat map, a scalp view and a chart.
//
// Thread rules: GUI thread.
#pragma once

#include <QSize>
#include <QString>
#include <functional>

#include "widgets/page_export.h"

class QChartView;
class QWidget;

namespace modescope {

class MatrixHeatMap;

// Writes the figure to `path`; false with *error (may be null) set on failure.
using FigureExporter = std::function<bool(const QString& path, QString* error)>;

// Asks for the file (askFigurePath, `what` names the figure in the dialog), runs `exporter` and
// shows "Export failed" over `parent` when it returns false. Does nothing when cancelled.
void chooseAndExportFigure(QWidget* parent, const QString& what, const FigureExporter& exporter);

// The views of a matrix / scalp / chart pane and the names a caller uses for them.
struct MatrixScalpChartViews {
  MatrixHeatMap* matrix = nullptr;
  QString matrixName;  // e.g. "map" or "matrix"
  QSize scalpSize;     // the scalp view's on-screen size
  ViewRenderer scalp;  // paints the scalp view
  QString scalpName;   // e.g. "scalp"
  QChartView* chart = nullptr;
  QString chartName;  // e.g. "spectra" or "signals"
};

// Exports `which` (one of the three names, or "all": the matrix on the left, the scalp view above
// the chart on its right, tops aligned, at their on-screen sizes) to `path`; the SVG/PDF title is
// "`title`: `which`". Unknown `which`: false with *error listing the names.
bool exportMatrixScalpChart(const MatrixScalpChartViews& views, const QString& which,
                            const QString& title, const QString& path, QString* error);

}  // namespace modescope
