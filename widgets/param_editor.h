// Dialog editors produced from a method's parameter declarations (engine/method/param_table.h):
// the widget kind, range, special value ("automatic"), unit suffix, decimals and the tooltip
// (help, allowed values, the variants it applies to) all come from the ParamDecl, so a dialog
// accepts exactly the values the engine and the CLI accept. Dialogs keep only their layout and
// what is special to them (channel checklists, previews).
//
// Editors per kind: Flag -> QCheckBox, Integer -> QSpinBox, Real -> QDoubleSpinBox, Choice ->
// QComboBox (item data: the choice's position in the declaration, which follows the engine
// enum's order; the choice name under kChoiceNameRole), Seed -> QLineEdit taking 0..2^64-1.
//
// Thread rules: GUI thread.
#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <map>
#include <string>

#include "engine/method/param_table.h"

namespace modescope {

inline constexpr int kChoiceNameRole = Qt::UserRole + 1;

// "stop.threshold1" -> "stopThreshold1": the editor's objectName (tests and screenshots find
// editors by it).
QString paramObjectName(const ParamDecl& d, const QString& prefix = {});

// A new editor for d (objectName from paramObjectName, keyboard tracking off).
QWidget* makeParamEditor(const ParamDecl& d, QWidget* parent, const QString& prefix = {});
void setParamEditorValue(QWidget* editor, const ParamDecl& d, const ParamValue& v);
// The value the editor shows. A seed field left empty reads as 0.
ParamValue paramEditorValue(const QWidget* editor, const ParamDecl& d);
// What the editor holds that is not a value of d ("the seed is empty", a seed above 2^64 - 1), in
// a sentence naming the field; "" when it holds a value. Spin boxes and combos always do.
QString paramEditorProblem(const QWidget* editor, const ParamDecl& d);
// Calls `changed` whenever the user (or code) changes the editor's value.
void onParamEditorChanged(QWidget* editor, QObject* context, std::function<void()> changed);
// The tooltip text: help, allowed values, default and the variants it applies to.
QString paramToolTip(const ParamDecl& d, const QString& defaultText = {});

// Every field of a table as editors, keyed by the field's key: fill from and read into P.
template <class P>
class ParamEditors {
 public:
  // One editor per field; `prefix` is put before every objectName ("ica" -> "icaMaxSteps").
  void build(const ParamTable<P>& table, QWidget* parent, const QString& prefix = {}) {
    table_ = &table;
    const P defaults{};
    for (const auto& f : table.fields()) {
      QWidget* w = makeParamEditor(f.decl, parent, prefix);
      w->setToolTip(
          paramToolTip(f.decl, QString::fromStdString(describeValue(f.decl, f.get(defaults)))));
      editors_[f.decl.key] = w;
    }
  }
  QWidget* editor(const std::string& key) const {
    const auto it = editors_.find(key);
    return it == editors_.end() ? nullptr : it->second;
  }
  template <class W>
  W* editorAs(const std::string& key) const {
    return qobject_cast<W*>(editor(key));
  }
  void set(const P& p) {
    for (const auto& f : table_->fields())
      setParamEditorValue(editor(f.decl.key), f.decl, f.get(p));
  }
  // `base` with every field the editors show written over it.
  P get(P base = P{}) const {
    for (const auto& f : table_->fields())
      f.set(base, paramEditorValue(editor(f.decl.key), f.decl));
    return base;
  }
  // Enables the editors of the fields that apply to p (the method variant, the stop rule).
  void enableApplicable(const P& p) {
    for (const auto& f : table_->fields()) editor(f.decl.key)->setEnabled(f.appliesTo(p));
  }
  // The first editor's problem (paramEditorProblem) among the fields that apply to p; "" if none.
  QString problem(const P& p) const {
    for (const auto& f : table_->fields()) {
      if (!f.appliesTo(p)) continue;
      const QString m = paramEditorProblem(editor(f.decl.key), f.decl);
      if (!m.isEmpty()) return m;
    }
    return {};
  }
  void onChanged(QObject* context, const std::function<void()>& changed) {
    for (auto& [key, w] : editors_) onParamEditorChanged(w, context, changed);
  }

 private:
  const ParamTable<P>* table_ = nullptr;
  std::map<std::string, QWidget*> editors_;
};

}  // namespace modescope
