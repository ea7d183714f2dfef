#include "widgets/browser_pane.h"

#include <QGridLayout>
#include <QScrollBar>
#include <QSignalBlocker>
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "widgets/signal_browser.h"

namespace modescope {

BrowserPane::BrowserPane(QWidget* parent) : QWidget(parent) {
  browser_ = new SignalBrowser(this);
  timeBar_ = new QScrollBar(Qt::Horizontal, this);
  timeBar_->setObjectName(QStringLiteral("timeScrollBar"));
  timeBar_->setToolTip(tr("Page start"));
  channelBar_ = new QScrollBar(Qt::Vertical, this);
  channelBar_->setObjectName(QStringLiteral("channelScrollBar"));
  channelBar_->setToolTip(tr("First visible channel"));

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(0);
  grid->addWidget(browser_, 0, 0);
  grid->addWidget(channelBar_, 0, 1);
  grid->addWidget(timeBar_, 1, 0);

  connect(browser_, &SignalBrowser::viewChanged, this, &BrowserPane::syncScrollBars);
  connect(browser_, &SignalBrowser::selectionChanged, this, &BrowserPane::selectionChanged);
  connect(timeBar_, &QScrollBar::valueChanged, this, [this](int v) {
    if (!syncing_) browser_->setPageStart(static_cast<double>(v) / kTicksPerSecond);
  });
  connect(channelBar_, &QScrollBar::valueChanged, this, [this](int v) {
    if (!syncing_) browser_->setFirstVisibleChannel(v);
  });
  syncScrollBars();
}

BrowserPane::~BrowserPane() = default;

void BrowserPane::setRecording(std::shared_ptr<const Recording> recording) {
  full_ = std::move(recording);
  derivations_.reset();
  visible_.assign(full_ ? full_->channelCount() : 0, true);
  subset_ = makeChannelSubset(full_, visible_);
  browser_->setRecording(subset_.recording);
  syncScrollBars();
}

std::vector<std::string> BrowserPane::setDerivations(
    std::shared_ptr<const DerivationMontage> montage) {
  std::vector<std::string> skipped;
  if (!full_ || montage == derivations_) return skipped;
  ViewState state = browser_->viewState();
  derivations_ = std::move(montage);
  if (derivations_) {
    subset_ = ChannelSubset{derivedRecording(full_, *derivations_, &skipped), {}};
    state.montage = "as recorded";  // a derivation is its own reference
    state.selectedChannels.clear();
  } else {
    subset_ = makeChannelSubset(full_, visible_);
  }
  browser_->setRecording(subset_.recording);
  // The scale suggested for what is now shown (bipolar traces are larger than referential ones).
  state.microvoltsPerDivision = browser_->microvoltsPerDivision();
  state.firstVisibleChannel = 0;
  browser_->setViewState(state);
  syncScrollBars();
  emit derivationsChanged();
  return skipped;
}

ViewState BrowserPane::viewState() const {
  ViewState v = browser_->viewState();
  if (derivations_) v.montage = kDerivationsPrefix + formatMontageText(*derivations_);
  return v;
}

void BrowserPane::setViewState(const ViewState& state) {
  ViewState rest = state;
  std::shared_ptr<const DerivationMontage> montage;
  const std::string prefix = kDerivationsPrefix;
  if (state.montage.rfind(prefix, 0) == 0) {
    rest.montage = "as recorded";
    try {
      montage = std::make_shared<const DerivationMontage>(
          parseMontageText(state.montage.substr(prefix.size()), "the session's montage"));
    } catch (const Error& e) {
      emit browser_->displayProblem(QString::fromUtf8(e.what()));
    }
  }
  const std::vector<std::string> skipped = setDerivations(montage);
  browser_->setViewState(rest);
  if (!skipped.empty()) {
    emit browser_->displayProblem(
        tr("%1 of the session montage's rows cannot be formed on this recording")
            .arg(skipped.size()));
  }
  syncScrollBars();
}

void BrowserPane::setChannelVisibility(const std::vector<bool>& visible) {
  if (!full_ || visible.size() != full_->channelCount() || visible == visible_) return;
  if (derivations_) {
    visible_ = visible;  // applies when the channels are shown again
    return;
  }
  // Selection is kept by name in the view state, page and scale by value: both survive the swap.
  const ViewState state = browser_->viewState();
  visible_ = visible;
  subset_ = makeChannelSubset(full_, visible_);
  browser_->setRecording(subset_.recording);
  ViewState restored = state;
  const int shown = static_cast<int>(subset_.toFull.size());
  restored.firstVisibleChannel = std::clamp(state.firstVisibleChannel, 0, std::max(0, shown - 1));
  browser_->setViewState(restored);
  syncScrollBars();
}

std::vector<int> BrowserPane::selectedChannels() const {
  std::vector<int> out;
  for (int i : browser_->selectedChannels()) {
    if (i >= 0 && static_cast<size_t>(i) < subset_.toFull.size()) {
      out.push_back(subset_.toFull[static_cast<size_t>(i)]);
    }
  }
  return out;
}

void BrowserPane::setSelectedChannels(const std::vector<int>& fullIndices) {
  std::vector<int> shown;
  for (int f : fullIndices) {
    const int s = subset_.toSubset(f);
    if (s >= 0) shown.push_back(s);
  }
  browser_->setSelectedChannels(shown);
}

void BrowserPane::syncScrollBars() {
  syncing_ = true;
  const QSignalBlocker blockTime(timeBar_);
  const QSignalBlocker blockChannels(channelBar_);
  const auto& rec = browser_->recording();
  const double duration = rec ? rec->duration() : 0.0;
  const double page = browser_->pageLength();
  const int maxStart =
      static_cast<int>(std::ceil(std::max(0.0, duration - page) * kTicksPerSecond));
  timeBar_->setRange(0, maxStart);
  timeBar_->setPageStep(std::max(1, static_cast<int>(page * kTicksPerSecond)));
  timeBar_->setSingleStep(std::max(1, static_cast<int>(page * kTicksPerSecond / 10)));
  timeBar_->setValue(static_cast<int>(std::lround(browser_->pageStart() * kTicksPerSecond)));
  timeBar_->setEnabled(rec != nullptr);

  const int channels = rec ? static_cast<int>(rec->channelCount()) : 0;
  const int shown = std::max(1, browser_->visibleChannelCount());
  channelBar_->setRange(0, std::max(0, channels - shown));
  channelBar_->setPageStep(shown);
  channelBar_->setSingleStep(1);
  channelBar_->setValue(browser_->firstVisibleChannel());
  channelBar_->setEnabled(channels > shown);
  syncing_ = false;
}

}  // namespace modescope
