// Our own EDF/EDF+/BDF/BDF+ header parser and checker. It never trusts a field: every number is
// parsed with bounds, and the data size implied by the header is compared with the file size.
// Used (1) before any library sees a file, so absurd headers are refused with a precise message,
// and (2) to tell the user what was non-compliant when EDFlib refuses a file that other readers
// accept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace modescope {

struct EdfSignalHeader {
  std::string label, transducer, physicalDimension, prefilter, reserved;
  double physicalMin = 0, physicalMax = 0;
  long long digitalMin = 0, digitalMax = 0;
  long long samplesPerRecord = 0;
  bool isAnnotation = false;  // "EDF Annotations" / "BDF Annotations" in an EDF+/BDF+ file
};

struct EdfHeader {
  bool isBdf = false;   // 24-bit BioSemi variant
  bool isPlus = false;  // EDF+ / BDF+ (reserved field starts with "EDF+" / "BDF+")
  bool isDiscontinuous = false;
  std::string version, patient, recording, startDate, startTime, reserved;
  long long headerBytes = 0;
  long long recordCount = 0;  // -1 in the file means unknown (during recording)
  double recordDuration = 0;  // s
  std::vector<EdfSignalHeader> signals;
  long long fileBytes = 0;
  long long recordBytes = 0;  // bytes of one data record (2 or 3 bytes per sample)
  // Complete data records present in the file: what a tolerant reader uses. Equals recordCount
  // for a compliant file; smaller for a truncated file; inferred from the size for -1.
  long long recordsInFile = 0;
  // s: onset of the first data record from its time-keeping TAL (EDF+/BDF+ sub-second start,
  // 0 <= offset < 1); 0 for EDF/BDF or when the annotation signals were not scanned.
  double startOffset = 0;
};

struct EdfFinding {
  bool fatal = false;  // the file cannot be read safely by any reader
  std::string field;   // "number of data records", "signal 3 label", ...
  std::string found;
  std::string expected;
  // Non-fatal findings only: EDFlib 1.23 refuses a file with this finding (edfopen_file_readonly
  // error -3, or -10 for EDF+D) while MNE and BioSig read it. Tells the user why EDFlib refused.
  bool refusedByEdflib = false;
};

struct EdfCheck {
  EdfHeader header;
  std::vector<EdfFinding> findings;  // empty: compliant as far as we check
  bool looksLikeEdf = false;         // the magic bytes matched EDF or BDF
  bool readable() const;             // looksLikeEdf and no fatal finding
};

// Reads and checks the header of `path`. Never throws for a damaged file (the findings say what is
// wrong); throws InvalidInputError only when the file cannot be opened at all.
// scanAnnotations: also check the annotation signals of every data record of an EDF+/BDF+ file
// (one small read per record); false checks the header alone.
EdfCheck checkEdfHeader(const std::string& path, bool scanAnnotations = true);

// ISO 8601 start "2009-08-12T16:15:00[.fraction]" from the header's dd.mm.yy hh.mm.ss (years
// 85-99 are 19xx, 00-84 20xx, as the EDF spec says) plus startOffset; "" if the fields are
// malformed.
std::string edfStartDateTimeIso(const EdfHeader& h);

// "signal 65 ('EDF Annotations') prefiltering: found 'HP:0Hz LP:0Hz N:0Hz', expected spaces".
std::string describeFinding(const EdfFinding& f);
// The findings as one text, those EDFlib refuses first, at most `maxCount` (then "and N more").
std::string summariseFindings(const std::vector<EdfFinding>& findings, std::size_t maxCount = 6);

}  // namespace modescope
