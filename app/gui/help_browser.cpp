#include "app/gui/help_browser.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QDialogButtonBox>
#include <QKeyEvent>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

namespace modescope {
namespace {

QPointer<HelpBrowser> theBrowser;

const char kGuideRoot[] = "qrc:/guide/";

}  // namespace

// The page and section of each dialog class (the class name is stable; its title is translated).
const std::map<QString, HelpTopic>& dialogHelpTopics() {
  static const std::map<QString, HelpTopic> topics = {
      {QStringLiteral("modescope::PreprocessDialog"), {QStringLiteral("preprocessing.md"), {}}},
      {QStringLiteral("modescope::DecomposeDialog"),
       {QStringLiteral("gui.md"), QStringLiteral("Decomposition (EMD, EEMD, CEEMDAN, ICEEMDAN)")}},
      {QStringLiteral("modescope::MemdDialog"),
       {QStringLiteral("memd.md"), QStringLiteral("In the window")}},
      {QStringLiteral("modescope::IcaDialog"),
       {QStringLiteral("gui.md"), QStringLiteral("Independent components (Infomax ICA)")}},
      {QStringLiteral("modescope::ArDialog"),
       {QStringLiteral("gui.md"), QStringLiteral("Event-related spectra (AR) and r² maps")}},
      {QStringLiteral("modescope::EntropyDialog"),
       {QStringLiteral("entropy.md"), QStringLiteral("In the window")}},
      {QStringLiteral("modescope::EpochDialog"),
       {QStringLiteral("epochs.md"), QStringLiteral("In the window")}},
      {QStringLiteral("modescope::BadChannelSuggestionsDialog"),
       {QStringLiteral("bad-channels.md"), QStringLiteral("Suggestions")}},
      {QStringLiteral("modescope::SyntheticDialog"),
       {QStringLiteral("gui.md"), QStringLiteral("Menus")}},
      {QStringLiteral("modescope::MontageEditorDialog"),
       {QStringLiteral("montages.md"), QStringLiteral("The montage editor")}},
  };
  return topics;
}

namespace {

// F1 anywhere inside a dialog opens its topic.
class DialogF1Filter : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::KeyPress) return false;
    if (static_cast<QKeyEvent*>(event)->key() != Qt::Key_F1) return false;
    auto* w = qobject_cast<QWidget*>(watched);
    QDialog* dialog = w ? qobject_cast<QDialog*>(w->window()) : nullptr;
    if (!dialog || qobject_cast<HelpBrowser*>(dialog)) return false;
    const HelpTopic topic = helpTopicFor(dialog);
    HelpBrowser::showPage(dialog, topic.page, topic.heading);
    return true;
  }
};

}  // namespace

HelpTopic helpTopicFor(const QWidget* dialog) {
  const QString property = dialog ? dialog->property("helpTopic").toString() : QString();
  if (!property.isEmpty()) {
    const int hash = property.indexOf(QLatin1Char('#'));
    if (hash < 0) return {property, {}};
    return {property.left(hash), property.mid(hash + 1)};
  }
  if (dialog) {
    const auto it = dialogHelpTopics().find(QString::fromLatin1(dialog->metaObject()->className()));
    if (it != dialogHelpTopics().end()) return it->second;
  }
  return {QStringLiteral("user-guide.md"), {}};
}

HelpBrowser::HelpBrowser(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("helpBrowser"));
  setWindowTitle(tr("ModeScope user guide"));
  setModal(false);
  view_ = new QTextBrowser(this);
  view_->setObjectName(QStringLiteral("helpView"));
  view_->setOpenExternalLinks(true);
  view_->setSearchPaths({QStringLiteral(":/guide")});
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* contents = buttons->addButton(tr("Contents"), QDialogButtonBox::ActionRole);
  QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
  connect(contents, &QPushButton::clicked, this,
          [this] { open(QStringLiteral("user-guide.md"), {}); });
  connect(back, &QPushButton::clicked, view_, &QTextBrowser::backward);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view_, 1);
  layout->addWidget(buttons);
  resize(860, 760);
}

HelpBrowser* HelpBrowser::instance() { return theBrowser; }

HelpBrowser* HelpBrowser::showPage(QWidget* parent, const QString& page, const QString& heading) {
  if (!theBrowser) theBrowser = new HelpBrowser(parent ? parent->window() : nullptr);
  theBrowser->open(page, heading);
  theBrowser->show();
  theBrowser->raise();
  theBrowser->activateWindow();
  // A window shown for the first time lays the page out at its real width only now: put the
  // heading at the top again once that is done.
  if (!heading.isEmpty()) {
    QTimer::singleShot(0, theBrowser, [heading] {
      if (theBrowser && theBrowser->heading_ == heading) theBrowser->scrollToHeading(heading);
    });
  }
  return theBrowser;
}

HelpBrowser* HelpBrowser::showShortcuts(QWidget* parent, const QList<ShortcutEntry>& shortcuts) {
  if (!theBrowser) theBrowser = new HelpBrowser(parent ? parent->window() : nullptr);
  theBrowser->view_->setHtml(shortcutsHtml(shortcuts));
  theBrowser->heading_.clear();
  theBrowser->show();
  theBrowser->raise();
  return theBrowser;
}

QString HelpBrowser::shortcutsHtml(const QList<ShortcutEntry>& shortcuts) {
  QString html = QStringLiteral("<h1>%1</h1><table cellpadding='4'>").arg(tr("Keyboard shortcuts"));
  for (const ShortcutEntry& s : shortcuts) {
    html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                .arg(s.keys.toHtmlEscaped(), s.what.toHtmlEscaped());
  }
  return html + QStringLiteral("</table>");
}

void HelpBrowser::installDialogF1() {
  static DialogF1Filter* filter = nullptr;
  if (filter) return;
  filter = new DialogF1Filter(qApp);
  qApp->installEventFilter(filter);
}

void HelpBrowser::open(const QString& page, const QString& heading) {
  view_->setSource(QUrl(QString::fromLatin1(kGuideRoot) + page), QTextDocument::MarkdownResource);
  heading_.clear();
  if (!heading.isEmpty() && scrollToHeading(heading)) heading_ = heading;
}

bool HelpBrowser::scrollToHeading(const QString& heading) {
  // Qt's Markdown reader makes no anchors for headings: find the heading block by its text.
  QTextDocument* doc = view_->document();
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
    if (b.blockFormat().headingLevel() == 0) continue;
    if (b.text().trimmed().compare(heading, Qt::CaseInsensitive) != 0) continue;
    view_->setTextCursor(QTextCursor(b));
    // The heading at the top of the view, not merely visible: its block's place in the laid-out
    // document (blockBoundingRect lays the document out up to it) is the scroll position.
    const QRectF where = doc->documentLayout()->blockBoundingRect(b);
    QScrollBar* bar = view_->verticalScrollBar();
    bar->setValue(std::min(bar->maximum(), static_cast<int>(std::floor(where.top()))));
    return true;
  }
  return false;
}

}  // namespace modescope
