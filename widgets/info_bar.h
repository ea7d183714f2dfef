// A yellow bar above a view for things the user must notice but that are not errors: a reader
// fallback, non-compliant header fields, a montage that did not fit. Hidden while empty.
#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QToolButton;

namespace modescope {

class InfoBar : public QFrame {
  Q_OBJECT

 public:
  explicit InfoBar(QWidget* parent = nullptr);
  // Shows the lines (one bullet each); an empty list hides the bar.
  void setMessages(const QStringList& lines);
  QStringList messages() const { return lines_; }
  QString text() const;

 private:
  QLabel* label_ = nullptr;
  QToolButton* close_ = nullptr;
  QStringList lines_;
};

}  // namespace modescope
