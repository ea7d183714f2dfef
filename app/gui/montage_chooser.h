// The tool bar's derivation-montage control: the channels as recorded (with the re-reference
// chosen beside it), the 10-20 double banana, the transverse bipolar chains, the Hjorth
// Laplacian, montages made in the editor or loaded from files, and "Edit...", which opens the
// montage editor on the current one. It acts on the current tab's BrowserPane; rows a montage
// cannot form on the recording are reported through the browser's displayProblem (the bar above
// the traces).
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "engine/montage/derivations.h"

class QAction;
class QComboBox;

namespace modescope {

class BrowserPane;

class MontageChooser : public QWidget {
  Q_OBJECT

 public:
  MontageChooser(QWidget* parent, std::function<BrowserPane*()> currentPane);

  QComboBox* combo() const { return combo_; }
  QAction* editorAction() const { return editor_; }
  // Shows `montage` on the current pane (nullptr: the channels); adds it to the list when new.
  // Returns the rows that could not be formed.
  std::vector<std::string> apply(std::shared_ptr<const DerivationMontage> montage);
  // Opens the editor (modal) on the current montage; applies what it returns.
  void edit();

 public slots:
  // Follows the current tab (its pane's montage).
  void syncFromPane();

 private:
  int indexOf(const std::shared_ptr<const DerivationMontage>& montage) const;

  std::function<BrowserPane*()> currentPane_;
  QMetaObject::Connection paneConnection_;  // the current pane's derivationsChanged
  QComboBox* combo_ = nullptr;
  QAction* editor_ = nullptr;
  std::vector<std::shared_ptr<const DerivationMontage>> montages_;  // parallel to the items
  int editIndex_ = -1;
};

}  // namespace modescope
