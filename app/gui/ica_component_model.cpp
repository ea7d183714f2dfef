#include "app/gui/ica_component_model.h"

#include <QColor>

namespace modescope {

IcaComponentModel::IcaComponentModel(IcaComponentSummary summary, QStringList eogNames,
                                     QStringList ecgNames, QObject* parent)
    : QAbstractTableModel(parent),
      summary_(std::move(summary)),
      eogNames_(std::move(eogNames)),
      ecgNames_(std::move(ecgNames)),
      marked_(summary_.components.size(), false) {}

int IcaComponentModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(summary_.components.size());
}

int IcaComponentModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant IcaComponentModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const int k = index.row();
  const IcaComponentMetrics& m = summary_.components[static_cast<std::size_t>(k)];
  const bool marked = marked_[static_cast<std::size_t>(k)];
  auto number = [&](double v, int decimals) -> QVariant {
    if (role == kSortRole) return v;
    if (role == Qt::DisplayRole)
      return v < 0 ? QStringLiteral("-") : QString::number(v, 'f', decimals);
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  };
  if (role == Qt::BackgroundRole && marked) return QColor(255, 220, 220);
  switch (index.column()) {
    case kMarkColumn:
      if (role == Qt::CheckStateRole) return marked ? Qt::Checked : Qt::Unchecked;
      if (role == kSortRole) return marked ? 1 : 0;
      if (role == Qt::ToolTipRole) return tr("Marked as an artifact (click, M or space)");
      return {};
    case kComponentColumn:
      if (role == Qt::DisplayRole) return tr("IC %1").arg(k + 1);
      if (role == kSortRole) return k;
      return {};
    case kVarianceColumn:
      return number(m.variancePercent, 1);
    case kKurtosisColumn:
      if (role == Qt::ForegroundRole && m.kurtosis > 5) return QColor(0xc0, 0x1c, 0x1c);
      return number(m.kurtosis, 2);
    case kEogColumn:
      if (role == Qt::ForegroundRole && m.eogCorrelation > 0.5) return QColor(0xc0, 0x1c, 0x1c);
      return number(m.eogCorrelation, 2);
    case kEcgColumn:
      if (role == Qt::ForegroundRole && m.ecgCorrelation > 0.5) return QColor(0xc0, 0x1c, 0x1c);
      return number(m.ecgCorrelation, 2);
    case kLabelColumn:
      return labelData(k, role);
    default:
      return {};
  }
}

QVariant IcaComponentModel::labelData(int k, int role) const {
  if (static_cast<std::size_t>(k) >= summary_.flags.components.size())
    return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  const IcaComponentFlags& f = summary_.flags.components[static_cast<std::size_t>(k)];
  const bool artifact = f.label != IcaFlagLabel::BrainOrOther;
  const QString name = QString::fromUtf8(icaFlagLabelName(f.label));
  switch (role) {
    case Qt::DisplayRole:
      return artifact ? QStringLiteral("%1 %2").arg(name).arg(f.confidence, 0, 'f', 2) : name;
    case kLabelRole:
      return name;
    case kSortRole:  // artifacts first when descending, the most confident first
      return artifact ? 1.0 + f.confidence : 1.0 - f.confidence;
    case Qt::ForegroundRole:
      return artifact ? QVariant(QColor(0xc0, 0x1c, 0x1c)) : QVariant();
    case Qt::ToolTipRole: {
      QString tip = artifact ? tr("Flagged %1 (confidence %2):\n%3")
                                   .arg(name)
                                   .arg(f.confidence, 0, 'f', 2)
                                   .arg(QString::fromStdString(f.reasons()))
                             : tr("No rule flagged it (brain or other; confidence %1)")
                                   .arg(f.confidence, 0, 'f', 2);
      for (const std::string& note : summary_.flags.notes)
        tip += QStringLiteral("\n") + tr("Note: %1").arg(QString::fromStdString(note));
      return tip;
    }
    default:
      return {};
  }
}

std::vector<int> IcaComponentModel::flaggedComponents(double minConfidence,
                                                      const QString& label) const {
  std::vector<int> out;
  const auto& comps = summary_.flags.components;
  for (std::size_t k = 0; k < comps.size(); ++k) {
    const IcaComponentFlags& f = comps[k];
    if (f.label == IcaFlagLabel::BrainOrOther || f.confidence < minConfidence) continue;
    if (!label.isEmpty() && label != QString::fromUtf8(icaFlagLabelName(f.label))) continue;
    out.push_back(static_cast<int>(k));
  }
  return out;
}

void IcaComponentModel::setFlags(IcaFlags flags) {
  summary_.flags = std::move(flags);
  if (rowCount() > 0) emit dataChanged(index(0, kLabelColumn), index(rowCount() - 1, kLabelColumn));
}

QVariant IcaComponentModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  const bool proxy = summary_.references.eogIsFrontalProxy;
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kMarkColumn:
        return tr("Mark");
      case kComponentColumn:
        return tr("IC");
      case kVarianceColumn:
        return tr("Var. %");
      case kKurtosisColumn:
        return tr("Kurtosis");
      case kEogColumn:
        return proxy ? tr("|r| Fp") : tr("|r| EOG");
      case kEcgColumn:
        return tr("|r| ECG");
      case kLabelColumn:
        return tr("Label");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    const QString none = tr("none");
    switch (section) {
      case kMarkColumn:
        return tr("Artifact mark: marked components are removed by Apply and in the overlay");
      case kComponentColumn:
        return tr("Component number, in runica's order (descending back-projected variance)");
      case kVarianceColumn:
        return tr("Share of the decomposed channels' power that this component back-projects, %");
      case kKurtosisColumn:
        return tr(
            "Excess kurtosis of the activation over the decomposed range (0 Gaussian; "
            "blinks and other spiky artifacts are far above 0)");
      case kEogColumn:
        return proxy ? tr("EOG proxy: the largest |Pearson correlation| of the activation with "
                          "the frontal channels %1. The recording has no EOG channel, so these "
                          "sites, where blinks are largest, stand in for it. Sort descending to "
                          "find blinks.")
                           .arg(eogNames_.join(QStringLiteral(", ")))
                     : tr("Largest |Pearson correlation| of the activation with the EOG channels "
                          "(%1). Sort descending to find blinks and eye movements.")
                           .arg(eogNames_.isEmpty() ? none : eogNames_.join(QStringLiteral(", ")));
      case kEcgColumn:
        return ecgNames_.isEmpty()
                   ? tr("Largest |Pearson correlation| with the ECG channels: the recording has "
                        "none ('-')")
                   : tr("Largest |Pearson correlation| of the activation with the ECG channels "
                        "(%1). Sort descending to find the heartbeat.")
                         .arg(ecgNames_.join(QStringLiteral(", ")));
      case kLabelColumn:
        return tr(
            "Automatic label and its confidence from published detectors (MNE "
            "find_bads_eog/ecg/muscle, ADJUST; docs/ica.md, \"Automatic flags\"); hover "
            "a cell for the rules that flagged it");
      default:
        return {};
    }
  }
  return {};
}

Qt::ItemFlags IcaComponentModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.column() == kMarkColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

bool IcaComponentModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != kMarkColumn || role != Qt::CheckStateRole) return false;
  const bool on = value.toInt() == Qt::Checked;
  if (isMarked(index.row()) == on) return true;
  setMarked(index.row(), on);
  emit markToggled(index.row(), on);
  return true;
}

bool IcaComponentModel::isMarked(int component) const {
  return component >= 0 && component < rowCount() && marked_[static_cast<std::size_t>(component)];
}

void IcaComponentModel::setMarked(int component, bool marked) {
  if (component < 0 || component >= rowCount()) return;
  marked_[static_cast<std::size_t>(component)] = marked;
  emit dataChanged(index(component, 0), index(component, kColumnCount - 1));
}

std::vector<int> IcaComponentModel::markedComponents() const {
  std::vector<int> out;
  for (std::size_t k = 0; k < marked_.size(); ++k)
    if (marked_[k]) out.push_back(static_cast<int>(k));
  return out;
}

}  // namespace modescope
