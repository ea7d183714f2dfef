// EDF+ and BDF+ output through EDFlib (writeRecording dispatches here for .edf and .bdf).
// Built only when EDFlib is found (MODESCOPE_HAVE_EDFLIB).
//
// What the format forces, and what this writer does about it:
// - Every signal has a whole number of samples per data record. The record lasts 1 s when every
//   rate is a whole number of Hz; otherwise the shortest multiple of 0.1 s, then of 0.01 s, then
//   of 0.001 s (up to 60 s) that makes every rate whole (0.5 Hz -> 2 s; 256.5 Hz -> 2 s). A rate
//   no such duration fits is refused with InvalidParameterError naming the channel.
// - Samples are integers (16-bit EDF, 24-bit BDF) scaled by the physical range, which is taken
//   from the data (EDF+ forbids physical min == max, so a flat channel gets a small range around
//   its value) and rounded outward to the 8 characters the header field holds. Samples are
//   rounded to the nearest digital level, so read back they agree within half a quantisation
//   step (physical range / digital range).
// - Channels that end early are padded to the last data record with 0 (clamped into the
//   channel's range); NaN samples are written as 0 the same way, +-Inf as the range limits.
// - Labels: the original label when it is ASCII and fits 16 characters, else the normalised
//   name (cut to 16). Units (8 characters), prefilter and transducer (80) are cut to fit;
//   non-ASCII characters become '_' ("µV" becomes "uV").
// - Annotations (UTF-8, onset and duration at EDFlib's 100 us resolution): EDFlib keeps at most
//   kEdfAnnotationTextBytes bytes of each text and stores one annotation per annotation signal
//   per data record, so the writer asks for ceil(annotations / records) annotation signals
//   (EDFlib allows 64). 10,000 annotations over one hour of 1 s records need 3.
// - The start date and time come from RecordingInfo::startDateTime ("YYYY-MM-DDTHH:MM:SS[.f]");
//   when it is empty, unparseable or outside EDFlib's 1985-2084, the EDF+ anonymisation date
//   1985-01-01 00:00:00 is written (EDFlib would otherwise stamp today's date).
// - The file is written under AtomicOutput's temporary name and renamed on success; progress is
//   reported and cancellation honoured between batches of data records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/job_context.h"
#include "engine/core/recording.h"

namespace modescope {

// EDFlib 1.23 keeps this many bytes of an annotation's text (measured; longer texts are cut at
// a UTF-8 character boundary by the writer).
inline constexpr std::size_t kEdfAnnotationTextBytes = 40;
// EDFlib's limits: annotation signals per file, signals in total (including annotation
// signals, or EDFlib cannot read the file back), bytes per data record.
inline constexpr int kEdfMaxAnnotationSignals = 64;
inline constexpr int kEdfMaxSignals = 640;
inline constexpr int64_t kEdfMaxRecordBytes = 10 * 1024 * 1024;

// How a recording is laid out in data records.
struct EdfRecordLayout {
  int durationUnits = 100000;  // data-record duration in EDFlib's units of 10 us
  double durationSeconds = 1.0;
  std::vector<int> samplesPerRecord;  // per channel
  int64_t recordCount = 0;
  int annotationSignals = 1;
};

// Picks the layout described above. Throws InvalidParameterError for an empty recording, too
// many channels, a rate no record duration fits, records over EDFlib's size limit, or more
// annotations than 64 annotation signals can hold.
EdfRecordLayout planEdfRecords(const Recording& rec, bool bdf);

// `v` as the 8-character decimal an EDF header field holds, rounded up (`roundUp`) or down so
// that a physical range never shrinks. Throws InvalidParameterError (naming `what`) when |v| is
// too large for 8 characters.
double edfHeaderNumber(double v, bool roundUp, const std::string& what);

// Writes all channels and annotations of `rec` as EDF+ (bdf = false) or BDF+ (bdf = true).
// Throws InvalidParameterError (layout), OutputError (file system, EDFlib), Cancelled.
void writeEdfPlus(const Recording& rec, const std::string& path, bool bdf, JobContext& ctx);

}  // namespace modescope
