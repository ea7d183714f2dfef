#include "app/gui/file_filters.h"

#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>

namespace modescope {

QStringList recordingOpenFilters() {
  QStringList formats{QObject::tr("EDF / EDF+ (*.edf *.rec)"), QObject::tr("BDF / BDF+ (*.bdf)"),
                      QObject::tr("ModeScope HDF5 (*.h5 *.hdf5)")};
#ifdef MODESCOPE_HAVE_BIOSIG
  // Read through the BioSig helper process (engine/io/recording_io.h).
  formats << QObject::tr("GDF (*.gdf)") << QObject::tr("BrainVision (*.vhdr)");
#endif
  QStringList patterns;
  static const QRegularExpression kInParens(QStringLiteral("\\(([^)]*)\\)"));
  for (const QString& f : formats) {
    const auto m = kInParens.match(f);
    if (m.hasMatch()) patterns << m.captured(1);
  }
  QStringList filters{QObject::tr("Recordings (%1)").arg(patterns.join(QLatin1Char(' ')))};
  filters << formats << QObject::tr("All files (*)");
  return filters;
}

QStringList recordingExportFilters() {
  return {QObject::tr("HDF5, ModeScope schema (*.h5)"), QObject::tr("EDF+ (*.edf)"),
          QObject::tr("BDF+ (*.bdf)")};
}

QStringList pageExportFilters() {
  return {QObject::tr("PNG image (*.png)"), QObject::tr("SVG drawing (*.svg)"),
          QObject::tr("PDF document (*.pdf)")};
}

QStringList sessionFilters() {
  return {QObject::tr("ModeScope session (*.h5 *.hdf5)"), QObject::tr("All files (*)")};
}

QString withSuffixFromFilter(const QString& path, const QString& filter) {
  if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
  static const QRegularExpression kFirstSuffix(QStringLiteral("\\*(\\.[A-Za-z0-9]+)"));
  const auto m = kFirstSuffix.match(filter);
  return m.hasMatch() ? path + m.captured(1) : path;
}

}  // namespace modescope
