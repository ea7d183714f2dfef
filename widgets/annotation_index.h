// Finds the annotations that touch a time range without scanning them all: binary search on the
// sorted onsets plus a running maximum of the end times (so a long span that began before the
// page is still found). 10,000 annotations cost O(log n + k) per page.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/core/recording.h"

namespace modescope::browser {

struct IndexedAnnotation {
  const Annotation* annotation = nullptr;
  bool user = false;  // a user mark rather than one of the file's annotations
};

class AnnotationIndex {
 public:
  // Both lists must outlive the index (it keeps pointers); neither needs to be sorted.
  void build(const std::vector<Annotation>* fileAnnotations,
             const std::vector<Annotation>* userAnnotations);
  // Annotations whose span [onset, onset + duration] meets [t0, t1), in onset order.
  std::vector<IndexedAnnotation> query(double t0, double t1) const;
  std::size_t size() const { return items_.size(); }

 private:
  std::vector<IndexedAnnotation> items_;  // by onset
  std::vector<double> onsets_;            // items_[i].annotation->onset
  std::vector<double> maxEnd_;            // max end time over items_[0..i]
};

}  // namespace modescope::browser
