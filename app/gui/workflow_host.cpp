#include "app/gui/workflow_host.h"

#include "widgets/browser_pane.h"

namespace modescope {

SignalBrowser* browserAt(const WorkflowHost& host, int documentIndex) {
  BrowserPane* pane = host.paneAt(documentIndex);
  return pane ? pane->browser() : nullptr;
}

std::vector<int> selectedChannels(const WorkflowHost& host, int documentIndex) {
  const BrowserPane* pane = host.paneAt(documentIndex);
  return pane ? pane->selectedChannels() : std::vector<int>{};
}

std::vector<int> severalSelectedChannels(const WorkflowHost& host, int documentIndex) {
  std::vector<int> selected = selectedChannels(host, documentIndex);
  if (selected.size() < 2) selected.clear();
  return selected;
}

}  // namespace modescope
