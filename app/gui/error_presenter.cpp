#include "app/gui/error_presenter.h"

#include <QFileInfo>
#include <QMessageBox>

namespace modescope {

QMessageBox* showError(QWidget* parent, const QString& title, const QString& summary,
                       const QString& details) {
  auto* box = new QMessageBox(QMessageBox::Critical, title, summary, QMessageBox::Ok, parent);
  box->setObjectName(QLatin1String(kErrorBoxName));
  box->setInformativeText(details);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  box->open();
  return box;
}

QMessageBox* showOpenError(QWidget* parent, const QString& path, const QString& message) {
  const QString name = QFileInfo(path).fileName();
  return showError(parent, QObject::tr("Cannot open %1").arg(name),
                   QObject::tr("Could not open %1.").arg(path), message);
}

}  // namespace modescope
