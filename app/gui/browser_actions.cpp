#include "app/gui/browser_actions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

#include "app/gui/filter_chain_dialog.h"
#include "widgets/signal_browser.h"
#include "widgets/time_format.h"
#include "widgets/trace_measure_overlay.h"
#include "widgets/trace_renderer.h"

namespace modescope {

std::optional<double> parseTimeText(const QString& text) {
  QString t = text.trimmed();
  if (t.endsWith(QLatin1Char('s'), Qt::CaseInsensitive)) t.chop(1);
  t = t.trimmed();
  static const QRegularExpression clock(
      QStringLiteral("^(?:(\\d+):)?(\\d{1,2}):(\\d{1,2}(?:\\.\\d*)?)$"));
  if (const auto m = clock.match(t); m.hasMatch()) {
    const double h = m.captured(1).isEmpty() ? 0.0 : m.captured(1).toDouble();
    const double min = m.captured(2).toDouble();
    const double sec = m.captured(3).toDouble();
    if (sec >= 60.0 || (!m.captured(1).isEmpty() && min >= 60.0)) return std::nullopt;
    return h * 3600.0 + min * 60.0 + sec;
  }
  bool ok = false;
  const double s = t.toDouble(&ok);
  if (!ok || !std::isfinite(s) || s < 0) return std::nullopt;
  return s;
}

QList<ShortcutEntry> browserKeyShortcuts() {
  return {
      {QStringLiteral("Left / Right"), QObject::tr("Move a tenth of a page back / forward")},
      {QStringLiteral("Page Up / Page Down"), QObject::tr("Previous / next page")},
      {QStringLiteral("Home / End"), QObject::tr("Start / end of the recording")},
      {QStringLiteral("Up / Down"), QObject::tr("Scroll the channels by one")},
      {QStringLiteral("+ / -"), QObject::tr("Larger / smaller traces (uV per division)")},
      {QObject::tr("Wheel"), QObject::tr("Scroll in time")},
      {QObject::tr("Shift+Wheel"), QObject::tr("Scroll the channels")},
      {QObject::tr("Ctrl+Wheel"), QObject::tr("Trace amplitude")},
      {QObject::tr("Click a label"), QObject::tr("Select the channel (Ctrl+click: add)")},
      {QObject::tr("Middle-drag on the traces"),
       QObject::tr("Ruler: delta t, delta amplitude, 1/dt")},
      {QStringLiteral("Esc"), QObject::tr("Remove the ruler")},
      {QObject::tr("Right-click"), QObject::tr("Context menu of a label or of the traces")},
  };
}

namespace {
void collectShortcuts(const QMenu* menu, const QString& path, QList<ShortcutEntry>& out) {
  for (QAction* a : menu->actions()) {
    const QString text = a->text().remove(QLatin1Char('&'));
    if (a->menu()) {
      collectShortcuts(a->menu(), path + text + QStringLiteral(" > "), out);
    } else if (!a->shortcut().isEmpty()) {
      out.append({a->shortcut().toString(QKeySequence::NativeText), path + text});
    }
  }
}
}  // namespace

QList<ShortcutEntry> shortcutTable(const QList<QMenu*>& menus) {
  QList<ShortcutEntry> out;
  for (const QMenu* m : menus) {
    collectShortcuts(m, m->title().remove(QLatin1Char('&')) + QStringLiteral(" > "), out);
  }
  out += browserKeyShortcuts();
  return out;
}

BrowserActions::BrowserActions(QWidget* window, std::function<SignalBrowser*()> current)
    : QObject(window), window_(window), current_(std::move(current)) {
  auto make = [this](const QString& text, const QKeySequence& key, const char* name,
                     std::function<void(SignalBrowser*)> act) {
    auto* a = new QAction(text, window_);
    a->setShortcut(key);
    a->setObjectName(QString::fromLatin1(name));
    a->setShortcutContext(Qt::WindowShortcut);
    window_->addAction(a);
    connect(a, &QAction::triggered, this, [this, act] {
      if (SignalBrowser* b = current_()) act(b);
    });
    return a;
  };
  goToTime_ = make(tr("&Go to time..."), QKeySequence(Qt::CTRL | Qt::Key_G), "goToTime",
                   [this](SignalBrowser*) { goToTime(); });
  fitAll_ = make(tr("&Fit all channels"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                 "fitAllChannels", &BrowserActions::fitAllChannels);
  // Channels per page doubled or halved (at least one; at most every channel).
  moreChannels_ =
      make(tr("&More channels per page"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down),
           "moreChannels", [](SignalBrowser* b) {
             b->setVisibleChannelCount(std::max(2, b->visibleChannelCount() * 2));
           });
  fewerChannels_ =
      make(tr("Fe&wer channels per page"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Up),
           "fewerChannels",
           [](SignalBrowser* b) { b->setVisibleChannelCount(std::max(1, b->rowCount() / 2)); });
  zoomIn_ = make(tr("Zoom &in (time)"), QKeySequence(Qt::CTRL | Qt::Key_Equal), "zoomInTime",
                 [](SignalBrowser* b) { b->zoomTime(0.5); });
  zoomOut_ = make(tr("Zoom &out (time)"), QKeySequence(Qt::CTRL | Qt::Key_Minus), "zoomOutTime",
                  [](SignalBrowser* b) { b->zoomTime(2.0); });
  ruler_ = make(tr("&Ruler (two clicks)"), QKeySequence(Qt::Key_R), "ruler", [](SignalBrowser* b) {
    if (TraceMeasureOverlay* o = overlayOf(b)) o->startRuler();
  });
  readout_ = make(tr("&Cursor read-out"), QKeySequence(Qt::Key_C), "cursorReadout",
                  [this](SignalBrowser*) {});
  readout_->setCheckable(true);
  readout_->setChecked(true);
  connect(readout_, &QAction::toggled, this, [this](bool on) {
    for (TraceMeasureOverlay* o : window_->findChildren<TraceMeasureOverlay*>())
      o->setReadoutEnabled(on);
  });
  filterChain_ = make(tr("Display &filter chain..."), QKeySequence(Qt::CTRL | Qt::Key_L),
                      "displayFilterChain", [this](SignalBrowser* b) {
                        // The response is drawn at the rate of the first EEG channel (else the
                        // first channel): what most traces are.
                        double rate = 0.0;
                        for (const ChannelInfo& c : b->recording()->channels) {
                          if (rate == 0.0 || c.type == ChannelType::EEG) rate = c.sampleRate;
                          if (c.type == ChannelType::EEG) break;
                        }
                        FilterChainDialog dialog(b->displayFilters(), rate, window_);
                        if (dialog.exec() == QDialog::Accepted)
                          b->setDisplayFilters(dialog.chain());
                      });
  goToTime_->setStatusTip(tr("Centre the page on a time (seconds or h:mm:ss)"));
  fitAll_->setStatusTip(tr("Show every channel on one page"));
}

QList<QAction*> BrowserActions::actions() const {
  return {goToTime_, fitAll_, moreChannels_, fewerChannels_, zoomIn_,
          zoomOut_,  ruler_,  readout_,      filterChain_};
}

void BrowserActions::attach(SignalBrowser* browser) {
  auto* overlay = new TraceMeasureOverlay(browser);
  overlay->setReadoutEnabled(readout_->isChecked());
  browser->installEventFilter(this);
}

TraceMeasureOverlay* BrowserActions::overlayOf(const SignalBrowser* browser) {
  return browser ? browser->findChild<TraceMeasureOverlay*>(QString(), Qt::FindDirectChildrenOnly)
                 : nullptr;
}

void BrowserActions::fitAllChannels(SignalBrowser* browser) {
  if (!browser || !browser->recording()) return;
  browser->setVisibleChannelCount(static_cast<int>(browser->recording()->channelCount()));
  browser->setFirstVisibleChannel(0);
}

void BrowserActions::goToTime() {
  SignalBrowser* b = current_();
  if (!b || !b->recording()) return;
  const double centre = b->pageStart() + b->pageLength() / 2;
  const QString now = formatClock(centre);
  std::optional<QString> text;
  if (ask_) {
    text = ask_(now);
  } else {
    bool ok = false;
    const QString typed = QInputDialog::getText(
        window_, tr("Go to time"),
        tr("Time from the start (seconds, or h:mm:ss.mmm; the recording lasts %1):")
            .arg(formatClock(b->recording()->duration())),
        QLineEdit::Normal, now, &ok);
    if (ok) text = typed;
  }
  if (!text) return;
  const auto t = parseTimeText(*text);
  if (!t) {
    QWidget* w = window_;
    QMetaObject::invokeMethod(
        w,
        [w, typed = *text] {
          QMessageBox::warning(w, tr("Go to time"),
                               tr("\"%1\" is not a time. Type seconds (125.5) or h:mm:ss "
                                  "(0:02:05.5).")
                                   .arg(typed));
        },
        Qt::QueuedConnection);
    return;
  }
  b->jumpTo(std::min(*t, b->recording()->duration()));
}

QMenu* BrowserActions::contextMenuFor(SignalBrowser* b, QPointF pos) {
  if (!b || !b->recording()) return nullptr;
  const auto layout =
      browser::BrowserLayout::compute(QRectF(b->rect()), b->rowCount(), QFontMetricsF(b->font()));
  const int row = layout.rowAt(pos.y());
  auto* menu = new QMenu(b);
  menu->setObjectName(QStringLiteral("browserContextMenu"));
  if (row >= 0 && pos.x() >= layout.labels.left() && pos.x() < layout.labels.right()) {
    const int channel = b->firstVisibleChannel() + row;
    const QString name = b->rowLabel(row);
    menu->setTitle(name);
    menu->addSection(name);
    menu->addAction(tr("Select %1").arg(name), b,
                    [b, channel] { b->setSelectedChannels({channel}); });
    std::vector<int> sel = b->selectedChannels();
    const bool selected = std::find(sel.begin(), sel.end(), channel) != sel.end();
    menu->addAction(selected ? tr("Remove from the selection") : tr("Add to the selection"), b,
                    [b, channel, selected] {
                      std::vector<int> s = b->selectedChannels();
                      if (selected)
                        s.erase(std::remove(s.begin(), s.end(), channel), s.end());
                      else
                        s.push_back(channel);
                      b->setSelectedChannels(s);
                    });
    menu->addAction(tr("Show this channel alone"), b, [b, channel] {
      b->setVisibleChannelCount(1);
      b->setFirstVisibleChannel(channel);
    });
    menu->addSeparator();
    menu->addAction(fitAll_);
    emit labelMenuAboutToShow(menu, b, row);
    return menu;
  }
  if (!layout.traces.contains(pos)) {
    delete menu;
    return nullptr;
  }
  const double t =
      b->pageStart() + (pos.x() - layout.traces.left()) / layout.traces.width() * b->pageLength();
  menu->addSection(QStringLiteral("%1 (%2 s)").arg(formatClock(t)).arg(t, 0, 'f', 3));
  menu->addAction(tr("Centre the page here"), b, [b, t] { b->jumpTo(t); });
  menu->addAction(tr("Zoom in here"), b, [b, t] {
    b->zoomTime(0.5);
    b->jumpTo(t);
  });
  menu->addAction(tr("Copy the time"), b, [t] {
    QApplication::clipboard()->setText(QStringLiteral("%1").arg(t, 0, 'f', 3));
  });
  menu->addSeparator();
  menu->addAction(ruler_);
  menu->addAction(readout_);
  menu->addAction(goToTime_);
  menu->addAction(fitAll_);
  emit traceMenuAboutToShow(menu, b, t);
  return menu;
}

bool BrowserActions::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ContextMenu) return false;
  auto* b = qobject_cast<SignalBrowser*>(watched);
  if (!b) return false;
  auto* e = static_cast<QContextMenuEvent*>(event);
  QMenu* menu = contextMenuFor(b, e->pos());
  if (!menu) return false;
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(e->globalPos());
  return true;
}

}  // namespace modescope
