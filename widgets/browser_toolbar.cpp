#include "widgets/browser_toolbar.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/dsp/filter_param_table.h"
#include "widgets/filter_spec_editor.h"
#include "widgets/signal_browser.h"
#include "widgets/view_state_text.h"

namespace modescope {
namespace {

constexpr int kChooser = -1;  // item data of the "Reference to channel..." and "Custom..." items

QString hz(double v) { return QString::number(v, 'g', 6); }

bool sameReference(const ReferenceSpec& a, const ReferenceSpec& b) {
  return a.kind == b.kind && (a.kind != ReferenceKind::Channel ||
                              QString::fromStdString(a.channel).compare(
                                  QString::fromStdString(b.channel), Qt::CaseInsensitive) == 0);
}

bool sameFilter(const std::optional<FilterSpec>& a, const std::optional<FilterSpec>& b) {
  if (!a || !b) return !a && !b;
  return equivalentFilters(*a, *b);
}

FilterSpec bandPass(double lo, double hi) {
  FilterSpec f;
  f.kind = FilterKind::BandPass;
  f.lowHz = lo;
  f.highHz = hi;
  return f;
}

FilterSpec notch(double f0) {
  FilterSpec f;
  f.kind = FilterKind::Notch;
  f.notchHz = f0;
  return f;
}

}  // namespace

const std::vector<double>& BrowserToolbar::pageLengths() {
  static const std::vector<double> kLengths{1, 2, 5, 10, 20, 30, 60};
  return kLengths;
}

QString BrowserToolbar::montageLabel(const ReferenceSpec& spec) {
  switch (spec.kind) {
    case ReferenceKind::AsRecorded:
      return tr("As recorded");
    case ReferenceKind::Average:
      return tr("Average");
    case ReferenceKind::LinkedMastoids:
      return tr("Linked mastoids");
    case ReferenceKind::Channel:
      return tr("Reference: %1").arg(QString::fromStdString(spec.channel));
  }
  return {};
}

QString BrowserToolbar::filterLabel(const std::optional<FilterSpec>& spec) {
  if (!spec) return tr("No filter");
  switch (spec->kind) {
    case FilterKind::BandPass:
      return tr("Band-pass %1-%2 Hz").arg(hz(spec->lowHz), hz(spec->highHz));
    case FilterKind::HighPass:
      return tr("High-pass %1 Hz").arg(hz(spec->lowHz));
    case FilterKind::LowPass:
      return tr("Low-pass %1 Hz").arg(hz(spec->highHz));
    case FilterKind::Notch:
      return tr("Notch %1 Hz").arg(hz(spec->notchHz));
  }
  return {};
}

BrowserToolbar::BrowserToolbar(QWidget* parent) : QToolBar(tr("View"), parent) {
  setObjectName(QStringLiteral("browserToolbar"));

  addWidget(new QLabel(tr(" Page ")));
  pageLength_ = new QComboBox(this);
  pageLength_->setObjectName(QStringLiteral("pageLength"));
  pageLength_->setToolTip(tr("Page length"));
  for (double s : pageLengths()) pageLength_->addItem(tr("%1 s").arg(s), s);
  connect(pageLength_, &QComboBox::activated, this, [this](int i) {
    if (browser_) browser_->setPageLength(pageLength_->itemData(i).toDouble());
  });
  addWidget(pageLength_);

  addSeparator();
  addWidget(new QLabel(tr(" Amplitude ")));
  amplitude_ = new QDoubleSpinBox(this);
  amplitude_->setObjectName(QStringLiteral("amplitude"));
  amplitude_->setToolTip(tr("Amplitude scale: microvolts per channel spacing"));
  amplitude_->setDecimals(1);
  amplitude_->setRange(0.1, 1e7);
  amplitude_->setSuffix(QStringLiteral(" uV/div"));
  amplitude_->setKeyboardTracking(false);
  amplitude_->setValue(50.0);
  connect(amplitude_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (browser_) browser_->setMicrovoltsPerDivision(v);
  });
  addWidget(amplitude_);
  QAction* ampUp = addAction(tr("Amplitude +"), this, [this] {
    if (browser_) browser_->zoomAmplitude(0.5);  // fewer uV per division: taller traces
  });
  ampUp->setToolTip(tr("Larger traces (halve uV/div)"));
  QAction* ampDown = addAction(tr("Amplitude -"), this, [this] {
    if (browser_) browser_->zoomAmplitude(2.0);
  });
  ampDown->setToolTip(tr("Smaller traces (double uV/div)"));

  addSeparator();
  montage_ = new QComboBox(this);
  montage_->setObjectName(QStringLiteral("montage"));
  montage_->setToolTip(tr("Montage (display re-reference)"));
  for (ReferenceKind k :
       {ReferenceKind::AsRecorded, ReferenceKind::Average, ReferenceKind::LinkedMastoids}) {
    ReferenceSpec spec;
    spec.kind = k;
    montages_.push_back(spec);
    montage_->addItem(montageLabel(spec), static_cast<int>(montages_.size() - 1));
  }
  montage_->addItem(tr("Reference to channel..."), kChooser);
  connect(montage_, &QComboBox::activated, this, &BrowserToolbar::onMontageActivated);
  addWidget(montage_);

  filter_ = new QComboBox(this);
  filter_->setObjectName(QStringLiteral("displayFilter"));
  filter_->setToolTip(tr("Display filter (applied to the page only, not to the data)"));
  for (const std::optional<FilterSpec>& f :
       {std::optional<FilterSpec>{}, std::optional<FilterSpec>{bandPass(1, 40)},
        std::optional<FilterSpec>{bandPass(0.5, 70)}, std::optional<FilterSpec>{notch(50)},
        std::optional<FilterSpec>{notch(60)}}) {
    filters_.push_back(f);
    filter_->addItem(filterLabel(f), static_cast<int>(filters_.size() - 1));
  }
  filter_->addItem(tr("Custom..."), kChooser);
  connect(filter_, &QComboBox::activated, this, &BrowserToolbar::onFilterActivated);
  addWidget(filter_);

  addSeparator();
  auto nav = [this](const QString& text, const QKeySequence& key, const QString& tip, auto fn) {
    QAction* a = addAction(text, this, fn);
    a->setShortcut(key);
    a->setToolTip(tip + QStringLiteral(" (") + key.toString(QKeySequence::NativeText) + ')');
    browserActions_ << a;
    return a;
  };
  nav(tr("|<"), QKeySequence(Qt::CTRL | Qt::Key_Home), tr("First page"), [this] {
    if (browser_) browser_->setPageStart(0.0);
  });
  nav(tr("<"), QKeySequence(Qt::CTRL | Qt::Key_Left), tr("Previous page"), [this] {
    if (browser_) browser_->previousPage();
  });
  nav(tr(">"), QKeySequence(Qt::CTRL | Qt::Key_Right), tr("Next page"), [this] {
    if (browser_) browser_->nextPage();
  });
  nav(tr(">|"), QKeySequence(Qt::CTRL | Qt::Key_End), tr("Last page"), [this] {
    if (!browser_ || !browser_->recording()) return;
    browser_->setPageStart(
        std::max(0.0, browser_->recording()->duration() - browser_->pageLength()));
  });
  nav(tr("Time +"), QKeySequence(Qt::CTRL | Qt::Key_Plus), tr("Shorter page (zoom in time)"),
      [this] {
        if (browser_) browser_->zoomTime(0.5);
      });
  nav(tr("Time -"), QKeySequence(Qt::CTRL | Qt::Key_Minus), tr("Longer page (zoom out time)"),
      [this] {
        if (browser_) browser_->zoomTime(2.0);
      });
  browserActions_ << ampUp << ampDown;
  setBrowser(nullptr);
}

SignalBrowser* BrowserToolbar::browser() const { return browser_.data(); }

void BrowserToolbar::setBrowser(SignalBrowser* browser) {
  if (viewConnection_) disconnect(viewConnection_);
  browser_ = browser;
  const bool on = browser != nullptr;
  for (QWidget* w : {static_cast<QWidget*>(pageLength_), static_cast<QWidget*>(amplitude_),
                     static_cast<QWidget*>(montage_), static_cast<QWidget*>(filter_)}) {
    w->setEnabled(on);
  }
  for (QAction* a : browserActions_) a->setEnabled(on);
  if (browser) {
    viewConnection_ =
        connect(browser, &SignalBrowser::viewChanged, this, &BrowserToolbar::syncFromBrowser);
    syncFromBrowser();
  }
}

void BrowserToolbar::syncFromBrowser() {
  if (!browser_) return;
  const QSignalBlocker b1(pageLength_), b2(amplitude_), b3(montage_), b4(filter_);
  const double len = browser_->pageLength();
  int idx = pageLength_->findData(len);
  if (idx < 0) {
    // A length reached by time zoom or a session: show it as its own entry, kept in order.
    int pos = 0;
    while (pos < pageLength_->count() && pageLength_->itemData(pos).toDouble() < len) ++pos;
    pageLength_->insertItem(pos, tr("%1 s").arg(len), len);
    idx = pos;
  }
  pageLength_->setCurrentIndex(idx);
  amplitude_->setValue(browser_->microvoltsPerDivision());

  // Montage and filter come back from the view state as text (the browser's spelling, e.g. from
  // a session): parse them and select, or add, the matching entry.
  const ViewState vs = browser_->viewState();
  if (const auto montage = browser::parseMontageText(vs.montage)) {
    lastMontageIndex_ = montageIndexFor(*montage);
    montage_->setCurrentIndex(lastMontageIndex_);
  }
  if (const auto filter = browser::parseFilterText(vs.displayFilter)) {
    lastFilterIndex_ = filterIndexFor(*filter);
    filter_->setCurrentIndex(lastFilterIndex_);
  } else if (browser::parseFilterChainText(vs.displayFilter)) {
    // A chain (Navigate > Display filter chain): no single entry stands for it.
    filter_->setPlaceholderText(QString::fromStdString(vs.displayFilter));
    filter_->setCurrentIndex(-1);
  }
}

int BrowserToolbar::montageIndexFor(const ReferenceSpec& spec) {
  for (int i = 0; i < montage_->count(); ++i) {
    const int k = montage_->itemData(i).toInt();
    if (k != kChooser && sameReference(montages_[static_cast<size_t>(k)], spec)) return i;
  }
  montages_.push_back(spec);
  const int pos = montage_->count() - 1;  // before the chooser, which stays last
  montage_->insertItem(pos, montageLabel(spec), static_cast<int>(montages_.size() - 1));
  return pos;
}

int BrowserToolbar::filterIndexFor(const std::optional<FilterSpec>& spec) {
  for (int i = 0; i < filter_->count(); ++i) {
    const int k = filter_->itemData(i).toInt();
    if (k != kChooser && sameFilter(filters_[static_cast<size_t>(k)], spec)) return i;
  }
  filters_.push_back(spec);
  const int pos = filter_->count() - 1;
  filter_->insertItem(pos, filterLabel(spec), static_cast<int>(filters_.size() - 1));
  return pos;
}

void BrowserToolbar::chooseMontage(const ReferenceSpec& spec) {
  const int i = montageIndexFor(spec);
  montage_->setCurrentIndex(i);
  lastMontageIndex_ = i;
  if (browser_) browser_->setMontage(spec);
}

void BrowserToolbar::chooseDisplayFilter(const std::optional<FilterSpec>& spec) {
  const int i = filterIndexFor(spec);
  filter_->setCurrentIndex(i);
  lastFilterIndex_ = i;
  if (browser_) browser_->setDisplayFilter(spec);
}

void BrowserToolbar::onMontageActivated(int index) {
  const int k = montage_->itemData(index).toInt();
  if (k != kChooser) {
    chooseMontage(montages_[static_cast<size_t>(k)]);
    return;
  }
  const QString channel = chooseReferenceChannel();
  if (channel.isEmpty()) {
    montage_->setCurrentIndex(lastMontageIndex_);
    return;
  }
  ReferenceSpec spec;
  spec.kind = ReferenceKind::Channel;
  spec.channel = channel.toStdString();
  chooseMontage(spec);
}

void BrowserToolbar::onFilterActivated(int index) {
  const int k = filter_->itemData(index).toInt();
  if (k != kChooser) {
    chooseDisplayFilter(filters_[static_cast<size_t>(k)]);
    return;
  }
  std::optional<FilterSpec> spec;
  if (!askCustomFilter(&spec)) {
    filter_->setCurrentIndex(lastFilterIndex_);
    return;
  }
  chooseDisplayFilter(spec);
}

QString BrowserToolbar::chooseReferenceChannel() {
  if (!browser_ || !browser_->recording()) return {};
  QStringList names;
  for (const auto& c : browser_->recording()->channels) {
    if (c.type == ChannelType::EEG) names << QString::fromStdString(c.name);
  }
  if (names.isEmpty()) return {};
  bool ok = false;
  const QString name = QInputDialog::getItem(
      this, tr("Reference channel"), tr("Re-reference the display to:"), names, 0, false, &ok);
  return ok ? name : QString();
}

bool BrowserToolbar::askCustomFilter(std::optional<FilterSpec>* spec) {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Custom display filter"));
  auto* editor = new FilterSpecEditor(true, &dialog);
  FilterSpec initial;
  initial.kind = FilterKind::BandPass;
  initial.lowHz = 1.0;
  initial.highHz = 30.0;
  editor->setSpec(initial);
  if (browser_ && browser_->recording()) {
    double maxRate = 0;
    for (const auto& c : browser_->recording()->channels) maxRate = std::max(maxRate, c.sampleRate);
    editor->setNyquist(maxRate / 2.0);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(tr("Applied to the displayed page only; the data are unchanged.")));
  layout->addWidget(editor);
  layout->addWidget(buttons);
  if (dialog.exec() != QDialog::Accepted) return false;
  *spec = editor->spec();
  return true;
}

}  // namespace modescope
