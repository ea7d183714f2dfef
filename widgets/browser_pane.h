// The signal browser with its scroll bars: a horizontal time bar (the page start) and a vertical
// channel bar (the first visible channel). It also hides channels the user unticked in the
// channel table by showing the browser a channel subset (no samples are copied), and translates
// channel indices between the full recording and what the browser shows.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/recording.h"
#include "engine/io/session.h"
#include "engine/montage/derivations.h"
#include "widgets/channel_subset.h"

class QScrollBar;

namespace modescope {

class SignalBrowser;

class BrowserPane : public QWidget {
  Q_OBJECT

 public:
  // Scroll-bar resolution: the time bar counts in 10 ms steps.
  static constexpr int kTicksPerSecond = 100;

  explicit BrowserPane(QWidget* parent = nullptr);
  ~BrowserPane() override;

  // The full recording; every channel starts visible.
  void setRecording(std::shared_ptr<const Recording> recording);
  const std::shared_ptr<const Recording>& recording() const { return full_; }

  SignalBrowser* browser() const { return browser_; }
  QScrollBar* timeScrollBar() const { return timeBar_; }
  QScrollBar* channelScrollBar() const { return channelBar_; }

  // One flag per channel of the full recording; the view state (page, scale, montage, filter,
  // selection) survives the change.
  void setChannelVisibility(const std::vector<bool>& visible);
  const std::vector<bool>& channelVisibility() const { return visible_; }

  // A derivation montage (bipolar, Laplacian, a montage file) shown instead of the channels;
  // nullptr shows the channels again (with their visibility). Page and filter survive, the
  // scale is suggested anew (amplitude_autoscale.h);
  // the tool bar's re-reference is reset (derivations carry their own). Returns the rows that
  // could not be formed ("F7-T7: no channel T7"). While a montage is shown no recorded channel
  // is selected (selectedChannels() is empty: methods take the recording's channels).
  std::vector<std::string> setDerivations(std::shared_ptr<const DerivationMontage> montage);
  const std::shared_ptr<const DerivationMontage>& derivations() const { return derivations_; }

  // The browser's view state with the derivation montage in it (sessions): while a montage is
  // shown, `montage` is kDerivationsPrefix followed by the montage file's text
  // (engine/montage/derivations.h). setViewState shows such a montage again (or the channels),
  // then the rest of the state; a montage text that does not parse is reported through the
  // browser's displayProblem and the channels are shown.
  static constexpr const char* kDerivationsPrefix = "derivations:\n";
  ViewState viewState() const;
  void setViewState(const ViewState& state);

  // Selected channels as indices into the full recording.
  std::vector<int> selectedChannels() const;
  void setSelectedChannels(const std::vector<int>& fullIndices);

 signals:
  void selectionChanged();    // the browser's selection changed (user or program)
  void derivationsChanged();  // another derivation montage (or none) is shown

 private:
  void syncScrollBars();

  SignalBrowser* browser_ = nullptr;
  QScrollBar* timeBar_ = nullptr;
  QScrollBar* channelBar_ = nullptr;
  std::shared_ptr<const Recording> full_;
  ChannelSubset subset_;
  std::vector<bool> visible_;
  std::shared_ptr<const DerivationMontage> derivations_;
  bool syncing_ = false;
};

}  // namespace modescope
