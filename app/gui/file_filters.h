// Name filters for the file dialogs, and the suffix the chosen filter implies.
#pragma once

#include <QString>
#include <QStringList>

namespace modescope {

// "Recordings (*.edf *.bdf ...)" first, then one entry per format, then "All files (*)". Formats
// read through BioSig are listed only when this build has the BioSig fallback.
QStringList recordingOpenFilters();
// HDF5 (ModeScope), EDF+, BDF+: what writeRecording accepts (outputFormatForPath).
QStringList recordingExportFilters();
// PNG, SVG, PDF: what SignalBrowser::exportPage writes.
QStringList pageExportFilters();
QStringList sessionFilters();

// Appends the first suffix of `filter` ("EDF+ (*.edf)" -> ".edf") when `path` has no suffix.
QString withSuffixFromFilter(const QString& path, const QString& filter);

}  // namespace modescope
