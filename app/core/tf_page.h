// What the time-frequency view shows for one page of the signal browser (docs/time-frequency.md,
// "The time-frequency view"): one channel over [start, start + seconds), transformed with the
// samples half a window either side of the page read as well (so the columns at the page's edges
// see real signal, not the zeros the transform assumes outside its block), the columns cropped
// back to the page, and the images as power grids ready for a spectrum view: the spectrogram
// |F|^2 and, for an order >= 1, the synchrosqueezed |T|^2, plus the ridges of the latter.
// No Qt: the view, the frames-per-second benchmark and the headless EGL benchmark share it.
//
// Thread rules: plain values and re-entrant functions; computeTfPage may run on any thread with a
// backend no other job uses at the same time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/tf/tf_analysis.h"
#include "engine/tf/tf_params.h"
#include "engine/tf/tf_readout_params.h"

namespace modescope {

struct TfPageRequest {
  std::size_t channel = 0;  // recording channel index
  double startSeconds = 0.0;
  double seconds = 10.0;    // the page length
  TfParams params;          // rows ignored; hop as given (tfDisplayHop for one column per pixel)
  bool spectrogram = true;  // compute the order-0 image
  bool squeezed = true;     // compute the params.order image (ignored for order 0)
  // Ridges to extract from the squeezed image (else the spectrogram): count, penalty and
  // half-width (reconstruct and complexValues are not read).
  TfReadoutParams readout;
};

struct TfPage {
  TfPageRequest request;
  double sampleRate = 0.0;
  int64_t firstSample = 0;  // of column 0, in the recording
  int hop = 1;              // samples between columns
  int cols = 0;             // columns on the page
  int rows = 0;             // frequency bins
  double firstHz = 0.0;     // of row 0
  double binHz = 0.0;       // between rows
  // rows x cols, row-major, row 0 = firstHz: |F|^2 and |T|^2 (empty when not computed).
  std::vector<float> spectrogram;
  std::vector<float> squeezed;
  // Per ridge, the image row of each page column (strongest ridge first).
  std::vector<std::vector<int>> ridgeRows;
  double computeSeconds = 0.0;  // transform, power grids and ridges
  std::string backend;          // BackendInfo::describe()

  double columnSeconds(int col) const {
    return static_cast<double>(firstSample + static_cast<int64_t>(col) * hop) / sampleRate;
  }
  double rowHz(int row) const { return firstHz + row * binHz; }
};

// The hop that gives about one column per screen pixel: ceil(samples / pixels), at least 1.
int tfDisplayHop(double sampleRate, double seconds, int pixels);

// Reads the page plus the margins, transforms it on `backend` (what planTf refuses is thrown
// with its message: a window longer than the recording, a frequency range above Nyquist), crops
// the columns to the page and fills the grids and ridges. Throws InvalidParameterError for a
// channel out of range or a page outside the recording, and what the backend throws.
TfPage computeTfPage(const Recording& rec, const TfPageRequest& request, ComputeBackend& backend,
                     JobContext& ctx);

}  // namespace modescope
