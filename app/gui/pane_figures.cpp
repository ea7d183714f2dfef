#include "app/gui/pane_figures.h"

#include <QChartView>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QPainter>
#include <QRect>
#include <algorithm>

#include "app/gui/error_presenter.h"
#include "app/gui/result_dock.h"
#include "widgets/matrix_heat_map.h"

namespace modescope {

void chooseAndExportFigure(QWidget* parent, const QString& what, const FigureExporter& exporter) {
  const QString path = askFigurePath(parent, what);
  if (path.isEmpty()) return;
  QString error;
  if (!exporter(path, &error))
    showError(parent, QObject::tr("Export failed"), QObject::tr("Could not write %1.").arg(path),
              error);
}

bool exportMatrixScalpChart(const MatrixScalpChartViews& v, const QString& which,
                            const QString& title, const QString& path, QString* error) {
  // Qt Charts lays out titles, legends and axes on posted layout requests: without these an
  // export right after a change (a click, then Export) would show the chart as it was before.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  const QString figureTitle = QObject::tr("%1: %2").arg(title, which);
  QChartView* chart = v.chart;
  if (which == v.matrixName) return v.matrix->exportFigure(path, error);
  if (which == v.scalpName) return exportView(path, v.scalpSize, v.scalp, figureTitle, error);
  if (which == v.chartName)
    return exportView(
        path, chart->size(),
        [chart](QPainter& p, const QRect& a) { chart->render(&p, QRectF(a), chart->rect()); },
        figureTitle, error);
  if (which == QLatin1String("all")) {
    const QSize m = v.matrix->size(), s = v.scalpSize, c = chart->size();
    const QSize total(m.width() + std::max(s.width(), c.width()),
                      std::max(m.height(), s.height() + c.height()));
    MatrixHeatMap* matrix = v.matrix;
    const ViewRenderer scalp = v.scalp;
    return exportView(
        path, total,
        [matrix, scalp, chart, m, s, c](QPainter& p, const QRect& a) {
          p.fillRect(a, Qt::white);
          matrix->render(p, QRect(a.topLeft(), m));
          scalp(p, QRect(a.topLeft() + QPoint(m.width(), 0), s));
          chart->render(&p, QRectF(QRect(a.topLeft() + QPoint(m.width(), s.height()), c)),
                        chart->rect());
        },
        figureTitle, error);
  }
  if (error)
    *error = QObject::tr("Unknown figure \"%1\": expected %2, %3, %4 or all")
                 .arg(which, v.matrixName, v.scalpName, v.chartName);
  return false;
}

}  // namespace modescope
