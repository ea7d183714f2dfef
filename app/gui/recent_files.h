// The "Open Recent" list: the last 10 files opened, newest first, kept in QSettings
// (key "recentFiles") so it survives restarts.
#pragma once

#include <QStringList>

namespace modescope {

class RecentFiles {
 public:
  static constexpr int kMaxEntries = 10;

  // Current list, newest first; entries whose file no longer exists are kept (the user sees
  // the error on opening and the entry is then removed with remove()).
  static QStringList list();
  // Moves (or inserts) path to the front and trims the list to kMaxEntries.
  static void add(const QString& path);
  static void remove(const QString& path);
  static void clear();
};

}  // namespace modescope
