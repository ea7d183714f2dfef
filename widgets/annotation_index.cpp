#include "widgets/annotation_index.h"

#include <algorithm>

namespace modescope::browser {

void AnnotationIndex::build(const std::vector<Annotation>* fileAnnotations,
                            const std::vector<Annotation>* userAnnotations) {
  items_.clear();
  for (const auto* list : {fileAnnotations, userAnnotations}) {
    if (!list) continue;
    for (const auto& a : *list) items_.push_back({&a, list == userAnnotations});
  }
  // Stable: readers already deliver onsets sorted, so this is one linear pass in practice.
  std::stable_sort(items_.begin(), items_.end(), [](const auto& a, const auto& b) {
    return a.annotation->onset < b.annotation->onset;
  });
  onsets_.resize(items_.size());
  maxEnd_.resize(items_.size());
  double m = -1e300;
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const Annotation& a = *items_[i].annotation;
    onsets_[i] = a.onset;
    m = std::max(m, a.onset + std::max(0.0, a.duration));
    maxEnd_[i] = m;
  }
}

std::vector<IndexedAnnotation> AnnotationIndex::query(double t0, double t1) const {
  std::vector<IndexedAnnotation> out;
  // maxEnd_ is non-decreasing: everything before `first` ends before t0.
  const auto first = static_cast<std::size_t>(std::lower_bound(maxEnd_.begin(), maxEnd_.end(), t0) -
                                              maxEnd_.begin());
  const auto last = static_cast<std::size_t>(std::lower_bound(onsets_.begin(), onsets_.end(), t1) -
                                             onsets_.begin());
  for (std::size_t i = first; i < last; ++i) {
    const Annotation& a = *items_[i].annotation;
    if (a.onset + std::max(0.0, a.duration) >= t0) out.push_back(items_[i]);
  }
  return out;
}

}  // namespace modescope::browser
