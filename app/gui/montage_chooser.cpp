#include "app/gui/montage_chooser.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include "app/gui/montage_editor_dialog.h"
#include "engine/core/error.h"
#include "widgets/browser_pane.h"
#include "widgets/signal_browser.h"

namespace modescope {

MontageChooser::MontageChooser(QWidget* parent, std::function<BrowserPane*()> currentPane)
    : QWidget(parent), currentPane_(std::move(currentPane)) {
  setObjectName(QStringLiteral("montageChooser"));
  combo_ = new QComboBox(this);
  combo_->setObjectName(QStringLiteral("derivationCombo"));
  combo_->setToolTip(
      tr("Derivations: the channels as recorded, bipolar chains, Laplacian, or a "
         "montage of your own"));
  montages_ = {nullptr, std::make_shared<const DerivationMontage>(longitudinalBipolar1020()),
               std::make_shared<const DerivationMontage>(transverseBipolar1020()), nullptr};
  combo_->addItem(tr("Channels"));
  combo_->addItem(tr("Double banana"));
  combo_->addItem(tr("Transverse bipolar"));
  combo_->addItem(tr("Laplacian (Hjorth)"));  // made per recording when chosen
  combo_->addItem(tr("Edit..."));
  editIndex_ = combo_->count() - 1;
  editor_ = new QAction(tr("&Montage editor..."), this);
  editor_->setObjectName(QStringLiteral("montageEditorAction"));
  editor_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  connect(editor_, &QAction::triggered, this, &MontageChooser::edit);
  connect(combo_, &QComboBox::activated, this, [this](int index) {
    BrowserPane* pane = currentPane_();
    if (!pane || !pane->recording()) return syncFromPane();
    if (index == editIndex_) return edit();
    if (index == 3) {
      try {
        apply(
            std::make_shared<const DerivationMontage>(laplacianDerivations(*pane->recording(), 4)));
      } catch (const Error& e) {
        emit pane->browser()->displayProblem(QString::fromUtf8(e.what()));
      }
      return;
    }
    apply(montages_[static_cast<std::size_t>(index)]);
  });
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 0, 4, 0);
  layout->addWidget(new QLabel(tr("Derivation:"), this));
  layout->addWidget(combo_);
}

int MontageChooser::indexOf(const std::shared_ptr<const DerivationMontage>& montage) const {
  for (std::size_t i = 0; i < montages_.size(); ++i) {
    if (montages_[i] == montage || (montages_[i] && montage && *montages_[i] == *montage))
      return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> MontageChooser::apply(std::shared_ptr<const DerivationMontage> montage) {
  BrowserPane* pane = currentPane_();
  if (!pane) return {};
  const std::vector<std::string> skipped = pane->setDerivations(montage);
  if (montage && indexOf(montage) < 0 &&
      montage->name.rfind("Laplacian", 0) != 0) {  // the Laplacian item makes its own
    montages_.insert(montages_.begin() + editIndex_, montage);
    combo_->insertItem(editIndex_, QString::fromStdString(montage->name));
    ++editIndex_;
  }
  if (!skipped.empty()) {
    QStringList rows;
    for (const auto& s : skipped) rows << QString::fromStdString(s);
    emit pane->browser()->displayProblem(
        tr("%1 of the montage's rows cannot be formed on this recording (%2)")
            .arg(skipped.size())
            .arg(rows.join(QStringLiteral("; "))));
  }
  syncFromPane();
  return skipped;
}

void MontageChooser::edit() {
  BrowserPane* pane = currentPane_();
  MontageEditorDialog dialog(pane ? pane->recording() : nullptr, window());
  if (pane && pane->derivations()) dialog.setMontage(*pane->derivations());
  if (dialog.exec() == QDialog::Accepted) {
    DerivationMontage m;
    if (dialog.montage(&m)) apply(std::make_shared<const DerivationMontage>(std::move(m)));
  } else {
    syncFromPane();
  }
}

void MontageChooser::syncFromPane() {
  BrowserPane* pane = currentPane_();
  // Follow the current pane's montage changes (a session loaded, another part of the window).
  disconnect(paneConnection_);
  if (pane) {
    paneConnection_ = connect(pane, &BrowserPane::derivationsChanged, this,
                              &MontageChooser::syncFromPane, Qt::UniqueConnection);
  }
  const QSignalBlocker block(combo_);
  setEnabled(pane != nullptr);
  const auto current = pane ? pane->derivations() : nullptr;
  int index = indexOf(current);
  if (index < 0 && current && current->name.rfind("Laplacian", 0) == 0) index = 3;
  combo_->setCurrentIndex(std::max(0, index));
}

}  // namespace modescope
