#include "engine/core/corrected_annotations.h"

#include <algorithm>

namespace modescope {

std::shared_ptr<const Recording> withFileAnnotations(
    const Recording& rec, const std::optional<std::vector<Annotation>>& corrected) {
  auto out = std::make_shared<Recording>(rec);
  if (corrected) {
    out->annotations = *corrected;
    std::stable_sort(out->annotations.begin(), out->annotations.end(),
                     [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
  }
  return out;
}

}  // namespace modescope
