// How errors reach the user: a message box naming what failed (the file) with the engine's
// message (which already names the field, the value found, the value expected and a remedy).
// Boxes are window-modal but non-blocking (open(), not exec()), so a job finishing behind them
// and the tests that close them both keep working; they delete themselves on close.
#pragma once

#include <QString>

class QMessageBox;
class QWidget;

namespace modescope {

// objectName of every error box, for tests and for finding them in the widget tree.
inline constexpr const char* kErrorBoxName = "modescopeErrorBox";

// title: the window title ("Cannot open recording"); summary: one sentence naming the subject
// ("Could not open /data/x.edf."); details: the engine's message.
QMessageBox* showError(QWidget* parent, const QString& title, const QString& summary,
                       const QString& details);

// Same box for a file that failed to open; the summary names the file.
QMessageBox* showOpenError(QWidget* parent, const QString& path, const QString& message);

}  // namespace modescope
