// Help > About: version, build, backend, supported formats, third-party licences and the demo
// recording's attribution (kDemoAttribution).
#pragma once

#include <QDialog>

namespace modescope {

class AboutDialog : public QDialog {
  Q_OBJECT

 public:
  // backendDescription: the status bar's text ("CPU, 2 threads").
  explicit AboutDialog(const QString& backendDescription, QWidget* parent = nullptr);
  // The dialog's text as HTML (shown in a read-only browser; tests read it).
  static QString html(const QString& backendDescription);
};

}  // namespace modescope
