// Unit tests of the EDF/BDF header checker on headers synthesised here (one field at a time
// broken), on the real files in tests/data, and against EDFlib itself: every finding the checker
// marks as "refusedByEdflib" must make EDFlib 1.23 refuse the file, and a file EDFlib refuses
// must carry such a finding. EDFlib is the independent oracle for those marks.
#include "engine/io/edf_header.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/error.h"

#ifdef MODESCOPE_HAVE_EDFLIB
#include <edflib.h>
#endif

namespace modescope {
namespace {

namespace fs = std::filesystem;

struct SignalSpec {
  std::string label = "EEG Fp1-Ref", transducer = "AgAgCl electrode", dimension = "uV",
              physicalMin = "-3200", physicalMax = "3200", digitalMin = "-32768",
              digitalMax = "32767", prefilter = "HP:0.1Hz LP:75Hz", samples = "100", reserved = "";
};

// A small, valid EDF/EDF+/BDF/BDF+ file; tests break one field at a time.
struct FileSpec {
  bool bdf = false;
  bool plus = true;
  std::string version;  // "" = the right magic
  std::string patient = "X X X X";
  std::string recording = "Startdate 02-MAR-2002 X X X";
  std::string date = "02.03.02", time = "10.11.12";
  std::string headerBytes;  // "" = 256 * (ns + 1)
  std::string reserved;     // "" = "EDF+C"/"BDF+C" for plus files, spaces otherwise
  std::string records = "3";
  std::string duration = "1";
  std::string signalCount;  // "" = the number of signals written
  std::vector<SignalSpec> signals = {SignalSpec{}, [] {
                                       SignalSpec s;
                                       s.label = "EEG Cz-Ref";
                                       s.samples = "50";
                                       return s;
                                     }()};
  bool annotationSignal = true;  // appended for plus files
  SignalSpec annotation = [] {
    SignalSpec s;
    s.label = "EDF Annotations";
    s.transducer = s.dimension = s.prefilter = "";
    s.physicalMin = "-1";
    s.physicalMax = "1";
    s.samples = "30";
    return s;
  }();
  int recordsWritten = 3;
  double recordSeconds = 1.0;                  // for the time-keeping TALs
  std::function<std::string(int record)> tal;  // overrides the TAL bytes of a record
  std::string trailing;                        // bytes appended after the last record
};

std::string pad(std::string s, std::size_t width) {
  s.resize(width, ' ');
  return s;
}

long long toInt(const std::string& s) {
  try {
    return std::stoll(s);
  } catch (...) {
    return 1;
  }
}

std::string buildFile(FileSpec spec) {
  if (spec.bdf && spec.annotation.label == "EDF Annotations") {
    spec.annotation.label = "BDF Annotations";
    spec.annotation.digitalMin = "-8388608";
    spec.annotation.digitalMax = "8388607";
  }
  if (spec.bdf) {
    for (auto& s : spec.signals) {
      if (s.digitalMin == "-32768") s.digitalMin = "-8388608";
      if (s.digitalMax == "32767") s.digitalMax = "8388607";
    }
  }
  std::vector<SignalSpec> sig = spec.signals;
  if (spec.plus && spec.annotationSignal) sig.push_back(spec.annotation);
  const std::size_t ns = sig.size();
  std::string h;
  h += spec.version.empty() ? (spec.bdf ? std::string("\377BIOSEMI", 8) : pad("0", 8))
                            : pad(spec.version, 8);
  h += pad(spec.patient, 80) + pad(spec.recording, 80) + pad(spec.date, 8) + pad(spec.time, 8);
  h += pad(spec.headerBytes.empty() ? std::to_string(256 * (ns + 1)) : spec.headerBytes, 8);
  std::string reserved = spec.reserved;
  if (reserved.empty() && spec.plus) reserved = spec.bdf ? "BDF+C" : "EDF+C";
  h += pad(reserved, 44) + pad(spec.records, 8) + pad(spec.duration, 8);
  h += pad(spec.signalCount.empty() ? std::to_string(ns) : spec.signalCount, 4);
  for (const auto& s : sig) h += pad(s.label, 16);
  for (const auto& s : sig) h += pad(s.transducer, 80);
  for (const auto& s : sig) h += pad(s.dimension, 8);
  for (const auto& s : sig) h += pad(s.physicalMin, 8);
  for (const auto& s : sig) h += pad(s.physicalMax, 8);
  for (const auto& s : sig) h += pad(s.digitalMin, 8);
  for (const auto& s : sig) h += pad(s.digitalMax, 8);
  for (const auto& s : sig) h += pad(s.prefilter, 80);
  for (const auto& s : sig) h += pad(s.samples, 8);
  for (const auto& s : sig) h += pad(s.reserved, 32);
  const int bps = spec.bdf ? 3 : 2;
  for (const auto& s : sig) {
    if (toInt(s.samples) > 1'000'000) return h + "short data";  // absurd: the header is the test
  }
  for (int r = 0; r < spec.recordsWritten; ++r) {
    for (std::size_t k = 0; k < ns; ++k) {
      const long long n = std::max(0LL, toInt(sig[k].samples));
      std::string bytes(static_cast<std::size_t>(n * bps), '\0');
      const bool annotation = spec.plus && spec.annotationSignal && k + 1 == ns;
      if (annotation) {
        std::string tal = spec.tal
                              ? spec.tal(r)
                              : "+" + std::to_string(static_cast<int>(r * spec.recordSeconds)) +
                                    std::string("\x14\x14\0", 3);
        std::copy_n(tal.begin(), std::min(tal.size(), bytes.size()), bytes.begin());
      } else {
        for (long long i = 0; i < n; ++i) {
          const int v = static_cast<int>((i * 37 + r * 11 + k * 5) % 2001) - 1000;
          for (int b = 0; b < bps; ++b)
            bytes[i * bps + b] = static_cast<char>((v >> (8 * b)) & 0xff);
        }
      }
      h += bytes;
    }
  }
  return h + spec.trailing;
}

class TempFiles {
 public:
  TempFiles() {
    std::string t = (fs::temp_directory_path() / "modescope-edfhdr-XXXXXX").string();
    dir_ = ::mkdtemp(t.data()) ? t : "";
  }
  ~TempFiles() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& bytes, const std::string& ext = ".edf") {
    const std::string p = dir_ + "/f" + std::to_string(n_++) + ext;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  std::string dir_;
  int n_ = 0;
};

const EdfFinding* findField(const EdfCheck& c, const std::string& fieldPart, bool fatal) {
  for (const auto& f : c.findings) {
    if (f.fatal == fatal && f.field.find(fieldPart) != std::string::npos) return &f;
  }
  return nullptr;
}

std::string listFindings(const EdfCheck& c) {
  std::string s;
  for (const auto& f : c.findings) {
    s += std::string(f.fatal ? "[fatal] " : "") + (f.refusedByEdflib ? "[edflib] " : "") +
         describeFinding(f) + "\n";
  }
  return s;
}

bool predictsEdflibRefusal(const EdfCheck& c) {
  for (const auto& f : c.findings) {
    if (f.fatal || f.refusedByEdflib) return true;
  }
  return false;
}

#ifdef MODESCOPE_HAVE_EDFLIB
bool edflibOpens(const std::string& path) {
  auto hdr = std::make_unique<edf_hdr_struct>();
  if (edfopen_file_readonly(path.c_str(), hdr.get(), EDFLIB_READ_ALL_ANNOTATIONS) != 0) {
    return false;
  }
  edfclose_file(hdr->handle);
  return true;
}
#endif

TEST(EdfHeader, ValidFilesHaveNoFindings) {
  TempFiles tmp;
  for (bool bdf : {false, true}) {
    for (bool plus : {false, true}) {
      FileSpec spec;
      spec.bdf = bdf;
      spec.plus = plus;
      const std::string p = tmp.write(buildFile(spec), bdf ? ".bdf" : ".edf");
      const EdfCheck c = checkEdfHeader(p);
      EXPECT_TRUE(c.looksLikeEdf);
      EXPECT_TRUE(c.readable());
      EXPECT_TRUE(c.findings.empty()) << "bdf=" << bdf << " plus=" << plus << "\n"
                                      << listFindings(c);
      EXPECT_EQ(c.header.isBdf, bdf);
      EXPECT_EQ(c.header.isPlus, plus);
      EXPECT_EQ(c.header.recordCount, 3);
      EXPECT_EQ(c.header.recordsInFile, 3);
      ASSERT_EQ(c.header.signals.size(), plus ? 3u : 2u);
      EXPECT_EQ(c.header.signals[1].samplesPerRecord, 50);
      EXPECT_EQ(c.header.recordBytes, (plus ? 180 : 150) * (bdf ? 3 : 2));
#ifdef MODESCOPE_HAVE_EDFLIB
      EXPECT_TRUE(edflibOpens(p)) << "the synthesised base file must be valid for EDFlib too";
#endif
    }
  }
}

// Each fatal case: the file cannot be read safely, and the finding names the broken field.
struct FatalCase {
  const char* name;
  std::function<void(FileSpec&)> mutate;
  const char* field;
};

TEST(EdfHeader, FatalFindingsNameTheField) {
  const std::vector<FatalCase> cases = {
      {"wrong magic", [](FileSpec& s) { s.version = "1"; }, "version"},
      {"header bytes", [](FileSpec& s) { s.headerBytes = "2048"; }, "number of bytes in header"},
      {"header bytes text", [](FileSpec& s) { s.headerBytes = "abc"; },
       "number of bytes in header"},
      {"no signals", [](FileSpec& s) { s.signalCount = "0"; }, "number of signals"},
      {"negative signals", [](FileSpec& s) { s.signalCount = "-3"; }, "number of signals"},
      {"absurd signals", [](FileSpec& s) { s.signalCount = "5000"; }, "number of signals"},
      {"signals not a number", [](FileSpec& s) { s.signalCount = "x1"; }, "number of signals"},
      {"zero duration", [](FileSpec& s) { s.duration = "0"; }, "duration of a data record"},
      {"negative duration", [](FileSpec& s) { s.duration = "-1"; }, "duration of a data record"},
      {"absurd duration", [](FileSpec& s) { s.duration = "99999999"; },
       "duration of a data record"},
      {"duration text", [](FileSpec& s) { s.duration = "one"; }, "duration of a data record"},
      {"zero samples", [](FileSpec& s) { s.signals[0].samples = "0"; },
       "number of samples in each data record"},
      {"negative samples", [](FileSpec& s) { s.signals[1].samples = "-5"; },
       "number of samples in each data record"},
      {"absurd samples", [](FileSpec& s) { s.signals[0].samples = "99999999"; },
       "number of samples in each data record"},
      {"digital min = max", [](FileSpec& s) { s.signals[0].digitalMin = "32767"; },
       "digital minimum/maximum"},
      {"digital min > max",
       [](FileSpec& s) {
         s.signals[1].digitalMin = "100";
         s.signals[1].digitalMax = "-100";
       },
       "digital minimum/maximum"},
      {"physical min text", [](FileSpec& s) { s.signals[0].physicalMin = "low"; },
       "physical minimum"},
      {"records text", [](FileSpec& s) { s.records = "many"; }, "number of data records"},
      {"records -5", [](FileSpec& s) { s.records = "-5"; }, "number of data records"},
      {"no complete record", [](FileSpec& s) { s.recordsWritten = 0; }, "data records"},
  };
  TempFiles tmp;
  for (const auto& fc : cases) {
    FileSpec spec;
    fc.mutate(spec);
    const EdfCheck c = checkEdfHeader(tmp.write(buildFile(spec)));
    EXPECT_FALSE(c.readable()) << fc.name;
    const EdfFinding* f = findField(c, fc.field, true);
    ASSERT_NE(f, nullptr) << fc.name << ": no fatal finding for '" << fc.field << "'\n"
                          << listFindings(c);
    EXPECT_FALSE(f->found.empty()) << fc.name;
    EXPECT_FALSE(f->expected.empty()) << fc.name;
  }
}

TEST(EdfHeader, TruncatedFilesAreFatalOnlyWithoutACompleteRecord) {
  TempFiles tmp;
  const std::string good = buildFile(FileSpec{});
  const long long headerBytes = 256 * 4, recordBytes = 180 * 2;
  // Shorter than the fixed header, shorter than the signal headers, a partial first record.
  for (long long len : {0LL, 7LL, 100LL, 255LL, 256LL, headerBytes - 1, headerBytes,
                        headerBytes + recordBytes - 1}) {
    const EdfCheck c = checkEdfHeader(tmp.write(good.substr(0, static_cast<std::size_t>(len))));
    EXPECT_FALSE(c.readable()) << "length " << len << "\n" << listFindings(c);
  }
  // One and a half records of three: readable, the complete record is used, EDFlib refuses.
  const EdfCheck c = checkEdfHeader(
      tmp.write(good.substr(0, static_cast<std::size_t>(headerBytes + recordBytes * 3 / 2))));
  EXPECT_TRUE(c.readable()) << listFindings(c);
  EXPECT_EQ(c.header.recordsInFile, 1);
  const EdfFinding* f = findField(c, "file size", false);
  ASSERT_NE(f, nullptr) << listFindings(c);
  EXPECT_TRUE(f->refusedByEdflib);
}

TEST(EdfHeader, UnknownRecordCountIsInferredFromTheFileSize) {
  TempFiles tmp;
  FileSpec spec;
  spec.records = "-1";
  const EdfCheck c = checkEdfHeader(tmp.write(buildFile(spec)));
  EXPECT_TRUE(c.readable()) << listFindings(c);
  EXPECT_EQ(c.header.recordCount, -1);
  EXPECT_EQ(c.header.recordsInFile, 3);
  const EdfFinding* f = findField(c, "number of data records", false);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->refusedByEdflib);
}

// Non-fatal findings: readable, but outside the spec; the mark says whether EDFlib refuses.
struct SoftCase {
  const char* name;
  std::function<void(FileSpec&)> mutate;
  const char* field;
  bool refusedByEdflib;
};

std::vector<SoftCase> softCases() {
  return {
      {"records right-justified", [](FileSpec& s) { s.records = "       3"; },
       "number of data records", true},
      {"annotation prefilter", [](FileSpec& s) { s.annotation.prefilter = "HP:0Hz LP:0Hz N:0Hz"; },
       "prefiltering", true},
      {"annotation transducer", [](FileSpec& s) { s.annotation.transducer = "none"; },
       "transducer type", true},
      {"annotation dimension", [](FileSpec& s) { s.annotation.dimension = "-"; },
       "physical dimension", false},
      {"annotation digital range", [](FileSpec& s) { s.annotation.digitalMin = "-100"; },
       "digital minimum/maximum", true},
      {"date format", [](FileSpec& s) { s.date = "2002-3-2"; }, "start date", true},
      {"month 13", [](FileSpec& s) { s.date = "02.13.02"; }, "start date", true},
      {"time format", [](FileSpec& s) { s.time = "10:11:12"; }, "start time", true},
      {"hour 24", [](FileSpec& s) { s.time = "24.00.00"; }, "start time", true},
      {"physical min = max", [](FileSpec& s) { s.signals[0].physicalMax = "-3200"; },
       "physical minimum/maximum", true},
      {"digital range beyond 16 bit", [](FileSpec& s) { s.signals[1].digitalMin = "-40000"; },
       "digital minimum/maximum", true},
      {"non-ASCII patient", [](FileSpec& s) { s.patient = "X X X M\xfcller"; },
       "patient identification", true},
      {"non-ASCII label", [](FileSpec& s) { s.signals[0].label = "EEG \xc3\xa9t\xc3\xa9"; },
       "label", true},
      {"EDF+ patient with 3 subfields", [](FileSpec& s) { s.patient = "X X X"; },
       "patient identification (EDF+)", true},
      {"EDF+ patient sex", [](FileSpec& s) { s.patient = "X male X X"; },
       "patient identification (EDF+)", true},
      {"EDF+ patient birthdate", [](FileSpec& s) { s.patient = "X M 1951-05-02 X"; },
       "patient identification (EDF+)", true},
      {"EDF+ recording without Startdate", [](FileSpec& s) { s.recording = "PSG X X X"; },
       "recording identification (EDF+)", true},
      {"EDF+ recording lower-case month",
       [](FileSpec& s) { s.recording = "Startdate 02-mar-2002 X X X"; },
       "recording identification (EDF+)", true},
      {"EDF+ recording date mismatch",
       [](FileSpec& s) { s.recording = "Startdate 03-MAR-2002 X X X"; }, "start date", true},
      {"EDF+ without annotation signal", [](FileSpec& s) { s.annotationSignal = false; },
       "annotation signal", true},
      {"EDF+D", [](FileSpec& s) { s.reserved = "EDF+D"; }, "reserved", true},
      {"trailing bytes", [](FileSpec& s) { s.trailing = std::string(10, '\0'); }, "file size",
       true},
      {"fewer records than the file holds", [](FileSpec& s) { s.records = "2"; }, "file size",
       true},
      {"TAL onsets not one record apart",
       [](FileSpec& s) {
         s.tal = [](int r) { return "+" + std::to_string(r * 2) + std::string("\x14\x14\0", 3); };
       },
       "annotation signal", true},
      {"TAL without time keeping",
       [](FileSpec& s) {
         s.tal = [](int r) { return "+" + std::to_string(r) + std::string("\x14note\x14\0", 7); };
       },
       "annotation signal", true},
      {"first record onset beyond 1 s",
       [](FileSpec& s) {
         s.tal = [](int r) { return "+" + std::to_string(r + 5) + std::string("\x14\x14\0", 3); };
       },
       "annotation signal", true},
      {"signal reserved field", [](FileSpec& s) { s.signals[0].reserved = "MON"; }, "reserved",
       false},
      {"duplicate label", [](FileSpec& s) { s.signals[1].label = "EEG Fp1-Ref"; }, "label", false},
      {"label without type", [](FileSpec& s) { s.signals[0].label = "Fc5."; }, "signal labels",
       false},
      {"number with leading spaces", [](FileSpec& s) { s.signals[0].samples = " 100"; },
       "number of samples in each data record", true},
  };
}

TEST(EdfHeader, NonFatalFindingsAreReportedWithTheirEdflibMark) {
  TempFiles tmp;
  for (const auto& sc : softCases()) {
    FileSpec spec;
    sc.mutate(spec);
    const EdfCheck c = checkEdfHeader(tmp.write(buildFile(spec)));
    EXPECT_TRUE(c.readable()) << sc.name << "\n" << listFindings(c);
    const EdfFinding* f = findField(c, sc.field, false);
    ASSERT_NE(f, nullptr) << sc.name << ": no finding for '" << sc.field << "'\n"
                          << listFindings(c);
    EXPECT_EQ(f->refusedByEdflib, sc.refusedByEdflib) << sc.name << ": " << describeFinding(*f);
  }
}

#ifdef MODESCOPE_HAVE_EDFLIB
// The oracle: EDFlib refuses exactly the files for which the checker predicts a refusal.
TEST(EdfHeader, EdflibRefusalMarksAgreeWithEdflib) {
  TempFiles tmp;
  int checked = 0;
  auto agree = [&](const std::string& name, const std::string& path) {
    const EdfCheck c = checkEdfHeader(path);
    EXPECT_EQ(predictsEdflibRefusal(c), !edflibOpens(path))
        << name << ": checker and EDFlib disagree\n"
        << listFindings(c);
    ++checked;
  };
  for (const auto& sc : softCases()) {
    FileSpec spec;
    sc.mutate(spec);
    agree(sc.name, tmp.write(buildFile(spec)));
    spec.bdf = true;  // the same flaw in a BDF+ file
    agree(std::string(sc.name) + " (BDF+)", tmp.write(buildFile(spec), ".bdf"));
  }
  for (bool bdf : {false, true}) {
    FileSpec spec;
    spec.plus = false;
    spec.bdf = bdf;
    agree(bdf ? "plain BDF" : "plain EDF", tmp.write(buildFile(spec)));
    spec.patient = "anything goes in plain EDF";
    agree("plain EDF free patient field", tmp.write(buildFile(spec)));
  }
  EXPECT_GE(checked, 60);
}

TEST(EdfHeader, RealFilesEdflibAcceptsHaveNoRefusalFinding) {
  for (const char* name :
       {"mne_test.edf", "mne_test_uneven_samp.edf", "pyedflib_test_generator.edf",
        "pyedflib_test_generator.bdf", "pyedflib_test_subsecond.edf"}) {
    const std::string p = std::string(MODESCOPE_TEST_DATA) + "/" + name;
    const EdfCheck c = checkEdfHeader(p);
    EXPECT_TRUE(c.readable()) << name;
    EXPECT_TRUE(edflibOpens(p)) << name;
    EXPECT_FALSE(predictsEdflibRefusal(c)) << name << "\n" << listFindings(c);
  }
}
#endif

// Why EDFlib 1.23 refuses the two real files that MNE and BioSig read (docs/readers.md).
TEST(EdfHeader, PhysionetFileAnnotationSignalPrefilterIsNotBlank) {
  const std::string p = std::string(MODESCOPE_TEST_DATA) + "/physionet_eegmmidb_S001R03.edf";
  const EdfCheck c = checkEdfHeader(p);
  EXPECT_TRUE(c.readable()) << listFindings(c);
  std::vector<const EdfFinding*> refused;
  for (const auto& f : c.findings) {
    if (f.refusedByEdflib) refused.push_back(&f);
  }
  ASSERT_EQ(refused.size(), 1u) << listFindings(c);
  EXPECT_EQ(refused[0]->field, "signal 65 ('EDF Annotations') prefiltering");
  EXPECT_EQ(refused[0]->found, "'HP:0Hz LP:0Hz N:0Hz'");
  // EDF+ also asks for a blank physical dimension there ('-' is written); EDFlib tolerates it.
  const EdfFinding* dim = findField(c, "physical dimension", false);
  ASSERT_NE(dim, nullptr);
  EXPECT_FALSE(dim->refusedByEdflib);
#ifdef MODESCOPE_HAVE_EDFLIB
  EXPECT_FALSE(edflibOpens(p));
#endif
}

TEST(EdfHeader, BiosemiFileRecordCountIsNotLeftJustified) {
  const std::string p = std::string(MODESCOPE_TEST_DATA) + "/mne_test.bdf";
  const EdfCheck c = checkEdfHeader(p);
  EXPECT_TRUE(c.readable()) << listFindings(c);
  EXPECT_TRUE(c.header.isBdf);
  EXPECT_EQ(c.header.recordCount, 1);
  std::vector<const EdfFinding*> refused;
  for (const auto& f : c.findings) {
    if (f.refusedByEdflib) refused.push_back(&f);
  }
  ASSERT_EQ(refused.size(), 1u) << listFindings(c);
  EXPECT_EQ(refused[0]->field, "number of data records");
  EXPECT_EQ(refused[0]->found, "'  1     '");
#ifdef MODESCOPE_HAVE_EDFLIB
  EXPECT_FALSE(edflibOpens(p));
#endif
}

TEST(EdfHeader, SummaryPutsEdflibRefusalsFirstAndCaps) {
  std::vector<EdfFinding> f = {
      {false, "a", "1", "2", false}, {false, "b", "3", "4", true}, {false, "c", "5", "6", false}};
  EXPECT_EQ(summariseFindings(f),
            "b: found 3, expected 4; a: found 1, expected 2; c: found 5, "
            "expected 6");
  EXPECT_EQ(summariseFindings(f, 1), "b: found 3, expected 4; and 2 more");
}

TEST(EdfHeader, UnopenableFileThrows) {
  EXPECT_THROW(checkEdfHeader("/nonexistent/modescope/file.edf"), InvalidInputError);
}

}  // namespace
}  // namespace modescope
