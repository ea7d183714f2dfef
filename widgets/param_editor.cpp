#include "widgets/param_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <climits>
#include <cmath>

namespace modescope {
namespace {

// A spin box shows `decimals` digits, so an open bound moves in by one step of the last digit:
// (0, 100] with 3 decimals accepts 0.001 to 100, the values a user can type.
double openBoundStep(int decimals) { return std::pow(10.0, -decimals); }

QString suffixFor(const ParamDecl& d) {
  return d.unit.empty() ? QString() : QStringLiteral(" ") + QString::fromStdString(d.unit);
}

// The spin box's range: the declared interval, widened down to the special value when it sits
// just below the interval (0 = automatic under [1, 64] or (0, 0.1]).
std::pair<double, double> spinRange(const ParamDecl& d, double openStep, double hugeLimit) {
  double lo = d.min ? (d.minInclusive ? *d.min : *d.min + openStep) : -hugeLimit;
  double hi = d.max ? (d.maxInclusive ? *d.max : *d.max - openStep) : hugeLimit;
  lo = std::max(lo, -hugeLimit);
  hi = std::min(hi, hugeLimit);
  if (d.special && *d.special < lo) lo = *d.special;
  return {lo, hi};
}

}  // namespace

QString paramObjectName(const ParamDecl& d, const QString& prefix) {
  QString name = prefix;
  bool upper = !prefix.isEmpty();
  for (char c : d.key) {
    if (c == '.') {
      upper = true;
      continue;
    }
    name += upper ? QChar(c).toUpper() : QChar(c);
    upper = false;
  }
  return name;
}

QString paramToolTip(const ParamDecl& d, const QString& defaultText) {
  QString tip = QString::fromStdString(d.help);
  if (!tip.isEmpty()) tip[0] = tip[0].toUpper();
  tip += QStringLiteral(".\nAllowed: ") + QString::fromStdString(expectedText(d)) +
         QStringLiteral(".");
  if (!defaultText.isEmpty())
    tip += QStringLiteral(" Default: ") + defaultText + QStringLiteral(".");
  if (!d.appliesTo.empty())
    tip += QStringLiteral("\nApplies to: ") + QString::fromStdString(d.appliesTo) +
           QStringLiteral(".");
  return tip;
}

QWidget* makeParamEditor(const ParamDecl& d, QWidget* parent, const QString& prefix) {
  QWidget* w = nullptr;
  switch (d.kind) {
    case ParamKind::Flag:
      w = new QCheckBox(QString::fromStdString(d.label), parent);
      break;
    case ParamKind::Integer: {
      auto* s = new QSpinBox(parent);
      const auto [lo, hi] = spinRange(d, 1.0, static_cast<double>(INT_MAX));
      s->setRange(static_cast<int>(lo), static_cast<int>(hi));
      s->setSuffix(suffixFor(d));
      if (d.special && !d.specialText.empty() && *d.special == lo)
        s->setSpecialValueText(QString::fromStdString(d.specialText));
      s->setKeyboardTracking(false);
      w = s;
      break;
    }
    case ParamKind::Real: {
      auto* s = new QDoubleSpinBox(parent);
      s->setDecimals(d.decimals);
      const auto [lo, hi] = spinRange(d, openBoundStep(d.decimals), 1e300);
      s->setRange(lo, hi);
      s->setSingleStep(d.step > 0 ? d.step : openBoundStep(std::min(d.decimals, 2)));
      s->setSuffix(suffixFor(d));
      if (d.special && !d.specialText.empty() && *d.special == lo)
        s->setSpecialValueText(QString::fromStdString(d.specialText));
      s->setKeyboardTracking(false);
      w = s;
      break;
    }
    case ParamKind::Choice: {
      auto* c = new QComboBox(parent);
      for (std::size_t i = 0; i < d.choices.size(); ++i) {
        const ParamChoice& choice = d.choices[i];
        c->addItem(QString::fromStdString(choice.label.empty() ? choice.name : choice.label),
                   static_cast<int>(i));
        c->setItemData(c->count() - 1, QString::fromStdString(choice.name), kChoiceNameRole);
        c->setItemData(c->count() - 1, QString::fromStdString(choice.help), Qt::ToolTipRole);
      }
      w = c;
      break;
    }
    case ParamKind::Seed: {
      auto* e = new QLineEdit(parent);
      e->setValidator(
          new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), e));
      w = e;
      break;
    }
  }
  w->setObjectName(paramObjectName(d, prefix));
  w->setToolTip(paramToolTip(d));
  return w;
}

void setParamEditorValue(QWidget* editor, const ParamDecl& d, const ParamValue& v) {
  switch (d.kind) {
    case ParamKind::Flag:
      static_cast<QCheckBox*>(editor)->setChecked(std::get<bool>(v));
      break;
    case ParamKind::Integer:
      static_cast<QSpinBox*>(editor)->setValue(static_cast<int>(std::get<int64_t>(v)));
      break;
    case ParamKind::Real:
      static_cast<QDoubleSpinBox*>(editor)->setValue(std::get<double>(v));
      break;
    case ParamKind::Choice: {
      auto* c = static_cast<QComboBox*>(editor);
      const int i = c->findData(QString::fromStdString(std::get<std::string>(v)), kChoiceNameRole);
      if (i >= 0) c->setCurrentIndex(i);
      break;
    }
    case ParamKind::Seed:
      static_cast<QLineEdit*>(editor)->setText(QString::number(std::get<uint64_t>(v)));
      break;
  }
}

ParamValue paramEditorValue(const QWidget* editor, const ParamDecl& d) {
  switch (d.kind) {
    case ParamKind::Flag:
      return static_cast<const QCheckBox*>(editor)->isChecked();
    case ParamKind::Integer:
      return static_cast<int64_t>(static_cast<const QSpinBox*>(editor)->value());
    case ParamKind::Real:
      return static_cast<const QDoubleSpinBox*>(editor)->value();
    case ParamKind::Choice:
      return static_cast<const QComboBox*>(editor)
          ->currentData(kChoiceNameRole)
          .toString()
          .toStdString();
    case ParamKind::Seed: {
      bool ok = false;
      const qulonglong v = static_cast<const QLineEdit*>(editor)->text().toULongLong(&ok);
      return static_cast<uint64_t>(ok ? v : 0);
    }
  }
  return false;
}

QString paramEditorProblem(const QWidget* editor, const ParamDecl& d) {
  if (d.kind != ParamKind::Seed) return {};
  const QString text = static_cast<const QLineEdit*>(editor)->text();
  bool ok = false;
  text.toULongLong(&ok);
  if (ok) return {};
  return QObject::tr("%1: enter %2.")
      .arg(QString::fromStdString(d.label), QString::fromStdString(expectedText(d)));
}

void onParamEditorChanged(QWidget* editor, QObject* context, std::function<void()> changed) {
  if (auto* c = qobject_cast<QCheckBox*>(editor)) {
    QObject::connect(c, &QCheckBox::toggled, context, [changed] { changed(); });
  } else if (auto* s = qobject_cast<QSpinBox*>(editor)) {
    QObject::connect(s, &QSpinBox::valueChanged, context, [changed] { changed(); });
  } else if (auto* ds = qobject_cast<QDoubleSpinBox*>(editor)) {
    QObject::connect(ds, &QDoubleSpinBox::valueChanged, context, [changed] { changed(); });
  } else if (auto* cb = qobject_cast<QComboBox*>(editor)) {
    QObject::connect(cb, &QComboBox::currentIndexChanged, context, [changed] { changed(); });
  } else if (auto* e = qobject_cast<QLineEdit*>(editor)) {
    QObject::connect(e, &QLineEdit::textChanged, context, [changed] { changed(); });
  }
}

}  // namespace modescope
