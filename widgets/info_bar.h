// A bar above a view for things the user must notice but that are not errors: a reader fallback,
// non-compliant header fields, data that look damaged, a montage that did not fit. Hidden while
// empty.
//
// It shows one short line (the first sentence of the most important message, and how many more
// there are) and a "Details" button that opens the full text, so that a four-line library message
// never pushes the traces down. Warnings (yellow, "!") and information (blue, "i") are told apart:
// the bar takes the colour of the most severe message it holds.
#pragma once

#include <QFrame>
#include <QList>
#include <QStringList>

#include "engine/core/diagnostics.h"

class QLabel;
class QPushButton;
class QToolButton;

namespace modescope {

class InfoBar : public QFrame {
  Q_OBJECT

 public:
  struct Message {
    Severity severity = Severity::Info;
    QString text;  // full text, any length
  };

  explicit InfoBar(QWidget* parent = nullptr);
  // Shows the messages, warnings first; an empty list hides the bar.
  void setMessages(const QList<Message>& messages);
  // Plain lines, all warnings (display problems and the like).
  void setMessages(const QStringList& warnings);
  QList<Message> messages() const { return messages_; }
  // The full text of every message ("Warning: " before warnings), one per line: what Details
  // shows.
  QString text() const;
  // The one line on the bar.
  QString summary() const;
  Severity severity() const;  // of the most severe message (Info when empty)
  QPushButton* detailsButton() const { return details_; }

  // A recording's diagnostics as messages, in order.
  static QList<Message> fromDiagnostics(const Diagnostics& diagnostics);
  // The first sentence of `text`, cut at `maxChars` with an ellipsis.
  static QString firstSentence(const QString& text, int maxChars = 140);

 signals:
  void detailsRequested();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void showDetails();
  void elideSummary();

  QLabel* icon_ = nullptr;
  QLabel* label_ = nullptr;
  QPushButton* details_ = nullptr;
  QToolButton* close_ = nullptr;
  QList<Message> messages_;
};

}  // namespace modescope
