// The recording information panel: format, reader, diagnostics (reader fallbacks and what was
// non-compliant, in a yellow bar at the top), patient and recording fields, start time,
// duration, channel types and sample rates.
#pragma once

#include <QMap>
#include <QWidget>
#include <memory>

#include "engine/core/recording.h"

class QFormLayout;
class QLabel;

namespace modescope {

class InfoBar;

class RecordingInfoWidget : public QWidget {
  Q_OBJECT

 public:
  explicit RecordingInfoWidget(QWidget* parent = nullptr);

  // origin: one line about where the recording came from ("derived from X: band-pass 1-40 Hz"),
  // shown first; empty for a file opened as is. A null recording clears the panel.
  void setRecording(const std::shared_ptr<const Recording>& recording, const QString& origin = {});

  // The value shown for a field ("Format", "Reader", "Duration", ...), for tests.
  QString fieldText(const QString& field) const;
  const InfoBar* diagnosticsBar() const { return bar_; }

  // Diagnostics as one line each, warnings first ("Warning: ..."); shared with the main window's
  // info bar.
  static QStringList diagnosticLines(const Diagnostics& diagnostics);

 private:
  void addField(const QString& name, const QString& value);

  InfoBar* bar_ = nullptr;
  QFormLayout* form_ = nullptr;
  QMap<QString, QString> values_;
};

}  // namespace modescope
