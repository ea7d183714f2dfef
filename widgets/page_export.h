// Figure export for any view: PNG (raster, twice the on-screen size for sharpness), SVG
// (QSvgGenerator, vector) and PDF (QPdfWriter, vector, one page the size of the view). The format
// follows the file extension. Files are written through QSaveFile, so a failed export leaves
// neither a partial file nor a damaged older one.
#pragma once

#include <QRect>
#include <QSize>
#include <QString>
#include <functional>

class QPainter;

namespace modescope {

// Paints the view into `painter` over `area` (logical pixels of the view).
using ViewRenderer = std::function<void(QPainter& painter, const QRect& area)>;

enum class ExportFormat { Png, Svg, Pdf };

// From the extension (case-insensitive); false for anything else.
bool exportFormatForPath(const QString& path, ExportFormat* format);

// Renders `render` at `size` logical pixels into `path`. PNG is written at kPngScale x size.
// Returns false and sets *error (the path and the reason) when the format is unknown, the size
// is empty or writing fails.
bool exportView(const QString& path, const QSize& size, const ViewRenderer& render,
                const QString& title = {}, QString* error = nullptr);

constexpr int kPngScale = 2;

}  // namespace modescope
