#include "widgets/page_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace modescope {

namespace {

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

// Logical pixels are taken as 96 per inch, the usual desktop value, so a PDF page has the size
// the view has on screen.
constexpr int kLogicalDpi = 96;

}  // namespace

bool exportFormatForPath(const QString& path, ExportFormat* format) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == QLatin1String("png"))
    *format = ExportFormat::Png;
  else if (ext == QLatin1String("svg"))
    *format = ExportFormat::Svg;
  else if (ext == QLatin1String("pdf"))
    *format = ExportFormat::Pdf;
  else
    return false;
  return true;
}

bool exportView(const QString& path, const QSize& size, const ViewRenderer& render,
                const QString& title, QString* error) {
  ExportFormat format;
  if (!exportFormatForPath(path, &format)) {
    return fail(error, QStringLiteral("Cannot export to %1: the extension \"%2\" is not one of "
                                      ".png, .svg, .pdf; choose one of those")
                           .arg(path, QFileInfo(path).suffix()));
  }
  if (size.isEmpty()) {
    return fail(error, QStringLiteral("Cannot export to %1: the view has no size (%2 x %3 px)")
                           .arg(path)
                           .arg(size.width())
                           .arg(size.height()));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return fail(error, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
  }
  const QRect area(QPoint(0, 0), size);
  bool painted = false;
  switch (format) {
    case ExportFormat::Png: {
      QImage image(size * kPngScale, QImage::Format_ARGB32_Premultiplied);
      image.setDevicePixelRatio(kPngScale);
      image.fill(Qt::white);
      QPainter p;
      if (p.begin(&image)) {
        render(p, area);
        p.end();
        painted = image.save(&file, "PNG");
      }
      break;
    }
    case ExportFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&file);
      svg.setSize(size);
      svg.setViewBox(area);
      svg.setResolution(kLogicalDpi);
      svg.setTitle(title);
      svg.setDescription(QStringLiteral("Exported by ModeScope"));
      QPainter p;
      if (p.begin(&svg)) {
        render(p, area);
        painted = p.end();
      }
      break;
    }
    case ExportFormat::Pdf: {
      QPdfWriter pdf(&file);
      pdf.setResolution(kLogicalDpi);
      pdf.setTitle(title);
      pdf.setCreator(QStringLiteral("ModeScope"));
      const QSizeF points(size.width() * 72.0 / kLogicalDpi, size.height() * 72.0 / kLogicalDpi);
      pdf.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
      pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
      QPainter p;
      if (p.begin(&pdf)) {
        render(p, area);
        painted = p.end();
      }
      break;
    }
  }
  if (!painted) {
    file.cancelWriting();
    return fail(error, QStringLiteral("Cannot write %1: rendering or encoding failed (%2)")
                           .arg(path, file.errorString()));
  }
  if (!file.commit()) {
    return fail(error, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
  }
  return true;
}

}  // namespace modescope
