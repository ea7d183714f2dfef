#include "app/gui/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace modescope {
namespace {

const char kKey[] = "recentFiles";

void store(const QStringList& paths) {
  QSettings settings;
  settings.setValue(QLatin1String(kKey), paths);
}

}  // namespace

QStringList RecentFiles::list() {
  QSettings settings;
  return settings.value(QLatin1String(kKey)).toStringList();
}

void RecentFiles::add(const QString& path) {
  // Absolute paths, so one file opened through two relative paths is one entry.
  const QString abs = QFileInfo(path).absoluteFilePath();
  QStringList paths = list();
  paths.removeAll(abs);
  paths.prepend(abs);
  while (paths.size() > kMaxEntries) paths.removeLast();
  store(paths);
}

void RecentFiles::remove(const QString& path) {
  QStringList paths = list();
  paths.removeAll(QFileInfo(path).absoluteFilePath());
  paths.removeAll(path);
  store(paths);
}

void RecentFiles::clear() { store({}); }

}  // namespace modescope
