// EDF+/BDF+ writer. Files are read back with EDFlib's reader directly (not with ModeScope's
// reader), and compared with the input recording.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/core/text.h"
#include "engine/io/recording_io.h"

#ifdef MODESCOPE_HAVE_EDFLIB
#include <edflib.h>

#include "engine/io/edflib_writer.h"
#endif

namespace fs = std::filesystem;

namespace modescope {
namespace {

#ifndef MODESCOPE_HAVE_EDFLIB
TEST(EdfWriter, NeedsEdflib) { GTEST_SKIP() << "built without EDFlib: the EDF writer is absent"; }
#else

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "modescope-edfw-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  bool empty() const { return fs::directory_iterator(path_) == fs::directory_iterator(); }

 private:
  fs::path path_;
};

// EDFlib's reader, owning its handle.
class EdfReadBack {
 public:
  explicit EdfReadBack(const std::string& path) : hdr_(std::make_unique<edf_hdr_struct>()) {
    rc_ = edfopen_file_readonly(path.c_str(), hdr_.get(), EDFLIB_READ_ALL_ANNOTATIONS);
  }
  ~EdfReadBack() {
    if (rc_ == 0) edfclose_file(hdr_->handle);
  }
  bool ok() const { return rc_ == 0; }
  const edf_hdr_struct& hdr() const { return *hdr_; }
  std::vector<double> samples(int signal) const {
    const auto n = hdr_->signalparam[signal].smp_in_file;
    std::vector<double> out(static_cast<std::size_t>(n));
    edfseek(hdr_->handle, signal, 0, EDFSEEK_SET);
    const int got = edfread_physical_samples(hdr_->handle, signal, static_cast<int>(n), out.data());
    out.resize(static_cast<std::size_t>(std::max(got, 0)));
    return out;
  }
  double rate(int signal) const {
    return hdr_->signalparam[signal].smp_in_datarecord /
           (static_cast<double>(hdr_->datarecord_duration) / EDFLIB_TIME_DIMENSION);
  }
  // One quantisation step of a signal, from the header as written.
  double step(int signal) const {
    const auto& p = hdr_->signalparam[signal];
    return (p.phys_max - p.phys_min) / static_cast<double>(p.dig_max - p.dig_min);
  }
  std::vector<edf_annotation_struct> annotations() const {
    std::vector<edf_annotation_struct> out(static_cast<std::size_t>(hdr_->annotations_in_file));
    for (std::size_t i = 0; i < out.size(); ++i) {
      edf_get_annotation(hdr_->handle, static_cast<int>(i), &out[i]);
    }
    return out;
  }

 private:
  std::unique_ptr<edf_hdr_struct> hdr_;
  int rc_ = -1;
};

struct ChannelSpec {
  std::string label, name, unit;
  double rate;
  int kind;  // 0 noise+sine, 1 flat, 2 slow ramp with large offset
};

std::shared_ptr<Recording> makeRecording(const std::vector<ChannelSpec>& specs, double seconds,
                                         unsigned seed) {
  auto rec = std::make_shared<Recording>();
  rec->info.patient = "John Doe";
  rec->info.patientCode = "S001";
  rec->info.sex = "female";
  rec->info.birthdate = "1980-04-02";
  rec->info.technician = "A. Tech";
  rec->info.equipment = "BioSemi";
  rec->info.adminCode = "ADM-7";
  rec->info.recordingId = "run 1";
  rec->info.startDateTime = "2021-03-04T05:06:07.123";
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 25.0f);
  std::vector<std::vector<float> > data;
  for (const ChannelSpec& s : specs) {
    ChannelInfo c;
    c.label = s.label;
    c.name = s.name;
    c.unit = s.unit;
    c.type = ChannelType::EEG;
    c.sampleRate = s.rate;
    c.sampleCount = static_cast<int64_t>(std::llround(s.rate * seconds));
    c.prefilter = "HP:0.1Hz LP:70Hz";
    c.transducer = "AgAgCl electrode";
    std::vector<float> v(static_cast<std::size_t>(c.sampleCount));
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float t = static_cast<float>(i) / static_cast<float>(s.rate);
      v[i] = s.kind == 0   ? noise(rng) + 80.0f * std::sin(2.0f * 3.14159265f * 10.0f * t)
             : s.kind == 1 ? 5.0f
                           : 1000.0f + 3.0f * t;
    }
    data.push_back(std::move(v));
    rec->channels.push_back(c);
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

const std::vector<float>& input(const Recording& rec, std::size_t ch) {
  return dynamic_cast<const InMemorySource&>(*rec.source).channel(ch);
}

// Every value back within half a quantisation step: EDF stores integers scaled by the header's
// physical and digital range, and the writer rounds to the nearest level, so half a step is the
// format's own resolution limit. The extra 1e-6 relative covers the float32 input, and 1e-3 of a
// step covers the reader's double arithmetic.
void expectWithinOneStep(const Recording& rec, const EdfReadBack& f) {
  for (std::size_t ch = 0; ch < rec.channels.size(); ++ch) {
    const int s = static_cast<int>(ch);
    const auto got = f.samples(s);
    const auto& want = input(rec, ch);
    ASSERT_GE(got.size(), want.size()) << "signal " << s;
    const double step = f.step(s);
    const auto& p = f.hdr().signalparam[s];
    double worst = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      worst = std::max(worst, std::abs(got[k] - want[k]) - 1e-6 * std::abs(want[k]));
    }
    EXPECT_LE(worst, 0.501 * step) << "signal " << s << " step " << step;
    // No clipping: the range covers the data, and is not wastefully wide (the flat channel's
    // small range and the 8-character rounding aside).
    const auto [lo, hi] = std::minmax_element(want.begin(), want.end());
    EXPECT_LE(p.phys_min, *lo);
    EXPECT_GE(p.phys_max, *hi);
    if (*hi > *lo) {
      EXPECT_LE(p.phys_max - p.phys_min,
                (*hi - *lo) * 1.001 + 2e-5 * std::max(1.0f, std::abs(*hi)));
    }
    EXPECT_NE(p.phys_min, p.phys_max);
    // Padding after the channel's end is 0 clamped into the range.
    for (std::size_t k = want.size(); k < got.size(); ++k) {
      EXPECT_NEAR(got[k], std::clamp(0.0, p.phys_min, p.phys_max), step);
    }
  }
}

void write(const Recording& rec, const std::string& path, OutputFormat format) {
  JobContext ctx;
  writeRecording(rec, path, format, Provenance{}, ctx);
}

class EdfWriterFormats : public ::testing::TestWithParam<OutputFormat> {};

TEST_P(EdfWriterFormats, RoundTripWithinOneQuantisationStep) {
  const bool bdf = GetParam() == OutputFormat::BdfPlus;
  TempDir dir;
  auto rec = makeRecording({{"EEG Fp1-REF", "Fp1", "µV", 256, 0},
                            {"EEG Cz-REF", "Cz", "uV", 256, 0},
                            {"ECG", "ECG", "mV", 100, 0},
                            {"Flat", "Flat", "uV", 100, 1},
                            {"EEG Fpz-REF-rather-long", "Fpz", "uV", 128, 2}},
                           12.0, 1);
  rec->annotations = {{0.0, 0.0, "start"},
                      {1.23456, 2.5, "Augen zu — ÄÖÜ"},
                      {7.5, 0.0, "眼球運動"},
                      {11.9, 0.05, "end"}};
  const std::string path = dir.file(bdf ? "rt.bdf" : "rt.edf");
  write(*rec, path, GetParam());

  EdfReadBack f(path);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.hdr().filetype, bdf ? EDFLIB_FILETYPE_BDFPLUS : EDFLIB_FILETYPE_EDFPLUS);
  ASSERT_EQ(f.hdr().edfsignals, 5);
  EXPECT_EQ(f.hdr().datarecord_duration, EDFLIB_TIME_DIMENSION);  // 1 s: all rates whole
  for (int s = 0; s < 5; ++s) {
    const auto& p = f.hdr().signalparam[s];
    EXPECT_EQ(p.dig_max, bdf ? 8388607 : 32767);
    EXPECT_EQ(p.dig_min, bdf ? -8388608 : -32768);
    EXPECT_DOUBLE_EQ(f.rate(s), rec->channels[static_cast<std::size_t>(s)].sampleRate);
    EXPECT_EQ(trim(p.prefilter), "HP:0.1Hz LP:70Hz");
    EXPECT_EQ(trim(p.transducer), "AgAgCl electrode");
  }
  EXPECT_EQ(trim(f.hdr().signalparam[0].label), "EEG Fp1-REF");
  EXPECT_EQ(trim(f.hdr().signalparam[4].label), "Fpz");         // too long: the normalised name
  EXPECT_EQ(trim(f.hdr().signalparam[0].physdimension), "uV");  // µ -> u
  EXPECT_EQ(trim(f.hdr().signalparam[2].physdimension), "mV");
  expectWithinOneStep(*rec, f);

  const auto ann = f.annotations();
  ASSERT_EQ(ann.size(), rec->annotations.size());
  for (std::size_t i = 0; i < ann.size(); ++i) {
    const Annotation& a = rec->annotations[i];
    // EDFlib writes onsets and durations in units of 100 us: half a unit of rounding.
    EXPECT_NEAR(static_cast<double>(ann[i].onset) / EDFLIB_TIME_DIMENSION, a.onset, 0.5e-4 + 1e-9);
    const double dur = ann[i].duration_l < 0
                           ? 0.0
                           : static_cast<double>(ann[i].duration_l) / EDFLIB_TIME_DIMENSION;
    EXPECT_NEAR(dur, a.duration, 0.5e-4 + 1e-9);
    EXPECT_EQ(std::string(ann[i].annotation), a.text);
  }

  const auto& h = f.hdr();
  EXPECT_EQ(trim(h.patient_name), "John Doe");
  EXPECT_EQ(trim(h.patientcode), "S001");
  EXPECT_EQ(trim(h.gender), "Female");
  EXPECT_EQ(h.birthdate_year, 1980);
  EXPECT_EQ(h.birthdate_month, 4);
  EXPECT_EQ(h.birthdate_day, 2);
  EXPECT_EQ(trim(h.technician), "A. Tech");
  EXPECT_EQ(trim(h.equipment), "BioSemi");
  EXPECT_EQ(trim(h.admincode), "ADM-7");
  EXPECT_EQ(trim(h.recording_additional), "run 1");
  EXPECT_EQ(h.startdate_year, 2021);
  EXPECT_EQ(h.startdate_month, 3);
  EXPECT_EQ(h.startdate_day, 4);
  EXPECT_EQ(h.starttime_hour, 5);
  EXPECT_EQ(h.starttime_minute, 6);
  EXPECT_EQ(h.starttime_second, 7);
  EXPECT_EQ(h.starttime_subsecond, 1230000);  // 0.123 s in units of 100 ns
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(path).parent_path()), {}),
            1);  // no temporary left
}

INSTANTIATE_TEST_SUITE_P(EdfAndBdf, EdfWriterFormats,
                         ::testing::Values(OutputFormat::EdfPlus, OutputFormat::BdfPlus),
                         [](const auto& info) {
                           return info.param == OutputFormat::BdfPlus ? std::string("Bdf")
                                                                      : std::string("Edf");
                         });

TEST(EdfWriter, BdfIsFinerThanEdf) {
  // 24 bits give 256 times smaller steps than 16 bits over the same range.
  TempDir dir;
  auto rec = makeRecording({{"C3", "C3", "uV", 200, 0}}, 5.0, 2);
  write(*rec, dir.file("a.edf"), OutputFormat::EdfPlus);
  write(*rec, dir.file("a.bdf"), OutputFormat::BdfPlus);
  EdfReadBack e(dir.file("a.edf")), b(dir.file("a.bdf"));
  ASSERT_TRUE(e.ok() && b.ok());
  // Same data, so the same physical range: the step ratio is the ratio of the digital ranges.
  EXPECT_NEAR(e.step(0) / b.step(0), 16777215.0 / 65535.0, 1e-9);
}

TEST(EdfWriter, NonIntegerRatesChooseALongerRecord) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 256.5, 0}, {"B", "B", "uV", 0.5, 2}}, 20.0, 3);
  const EdfRecordLayout layout = planEdfRecords(*rec, false);
  EXPECT_EQ(layout.durationSeconds, 2.0);  // 256.5 * 2 = 513, 0.5 * 2 = 1
  EXPECT_EQ(layout.samplesPerRecord, (std::vector<int>{513, 1}));
  EXPECT_EQ(layout.recordCount, 10);

  const std::string path = dir.file("frac.edf");
  write(*rec, path, OutputFormat::EdfPlus);
  EdfReadBack f(path);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.hdr().datarecord_duration, 2 * EDFLIB_TIME_DIMENSION);
  EXPECT_DOUBLE_EQ(f.rate(0), 256.5);
  EXPECT_DOUBLE_EQ(f.rate(1), 0.5);
  expectWithinOneStep(*rec, f);
}

TEST(EdfWriter, ShortRecordsWhenOneSecondIsTooCoarse) {
  // 12.5 Hz and 10 Hz: 0.4 s is the shortest multiple of 0.1 s holding whole samples of both.
  auto rec = makeRecording({{"A", "A", "uV", 12.5, 0}, {"B", "B", "uV", 10, 0}}, 4.0, 4);
  const EdfRecordLayout layout = planEdfRecords(*rec, false);
  EXPECT_DOUBLE_EQ(layout.durationSeconds, 0.4);
  EXPECT_EQ(layout.samplesPerRecord, (std::vector<int>{5, 4}));
}

TEST(EdfWriter, UnrepresentableRateIsRefusedNamingIt) {
  TempDir dir;
  auto rec =
      makeRecording({{"A", "A", "uV", 256, 0}, {"Odd", "Odd", "uV", 3.14159265358979, 0}}, 5.0, 5);
  const std::string path = dir.file("pi.edf");
  try {
    write(*rec, path, OutputFormat::EdfPlus);
    FAIL() << "expected InvalidParameterError";
  } catch (const InvalidParameterError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3.14159"), std::string::npos) << m;
    EXPECT_NE(m.find("Odd"), std::string::npos) << m;
    EXPECT_NE(m.find("HDF5"), std::string::npos) << m;  // the remedy
  }
  EXPECT_TRUE(dir.empty());
}

TEST(EdfWriter, TenThousandAnnotationsOverAnHourAreAllKept) {
  TempDir dir;
  auto rec = makeRecording({{"EEG Cz", "Cz", "uV", 10, 0}}, 3600.0, 6);
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> when(0.0, 3599.0);
  for (int i = 0; i < 10000; ++i) {
    rec->annotations.push_back(
        {std::round(when(rng) * 1e4) / 1e4, i % 3 == 0 ? 0.5 : 0.0, "ev" + std::to_string(i)});
  }
  std::stable_sort(rec->annotations.begin(), rec->annotations.end(),
                   [](const Annotation& a, const Annotation& b) { return a.onset < b.onset; });
  const EdfRecordLayout layout = planEdfRecords(*rec, false);
  EXPECT_EQ(layout.recordCount, 3600);
  EXPECT_EQ(layout.annotationSignals, 3);  // one annotation per signal per record: ceil(10000/3600)

  const std::string path = dir.file("many.edf");
  write(*rec, path, OutputFormat::EdfPlus);
  EdfReadBack f(path);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f.hdr().annotations_in_file, 10000);
  // EDFlib returns them by onset; compare as multisets of (onset, text).
  std::vector<std::pair<long long, std::string> > got, want;
  for (const auto& a : f.annotations()) got.emplace_back(a.onset / 1000, a.annotation);
  for (const auto& a : rec->annotations) {
    want.emplace_back(std::llround(a.onset * 1e4), a.text);
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST(EdfWriter, TooManyAnnotationsForTheRecordsAreRefused) {
  // 1 Hz for 2 s: records can only be whole seconds, so at most 2 records x 64 annotation
  // signals = 128 annotations fit. At 100 Hz records can be shorter and 200 fit.
  auto rec = makeRecording({{"A", "A", "uV", 1, 0}}, 2.0, 9);
  for (int i = 0; i < 200; ++i) rec->annotations.push_back({0.001 * i, 0, "x"});
  EXPECT_THROW(planEdfRecords(*rec, false), InvalidParameterError);
  auto rec2 = makeRecording({{"A", "A", "uV", 100, 0}}, 2.0, 9);
  rec2->annotations = rec->annotations;
  const EdfRecordLayout layout = planEdfRecords(*rec2, false);
  EXPECT_GE(layout.recordCount * layout.annotationSignals, 200);
}

TEST(EdfWriter, LongAnnotationTextIsCutAtACharacterBoundary) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 50, 0}}, 3.0, 10);
  std::string longText;
  for (int i = 0; i < 30; ++i) longText += "é";  // 60 bytes
  rec->annotations = {{1.0, 0.0, longText}};
  const std::string path = dir.file("long.edf");
  write(*rec, path, OutputFormat::EdfPlus);
  EdfReadBack f(path);
  ASSERT_TRUE(f.ok());
  const auto ann = f.annotations();
  ASSERT_EQ(ann.size(), 1u);
  const std::string got = ann[0].annotation;
  EXPECT_EQ(got, longText.substr(0, kEdfAnnotationTextBytes));  // 20 whole characters
  EXPECT_EQ(sanitizeUtf8(got), got);
}

TEST(EdfWriter, HeaderNumbersFitEightCharactersAndRoundOutward) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> exp10(-7, 7);
  for (int i = 0; i < 20000; ++i) {
    const double v = mant(rng) * std::pow(10.0, exp10(rng));
    for (bool up : {true, false}) {
      const double r = edfHeaderNumber(v, up, "test");
      if (up) {
        ASSERT_GE(r, v);
      } else {
        ASSERT_LE(r, v);
      }
      // Some decimal text of at most 8 characters denotes r exactly (an independent search).
      bool fits = false;
      for (int d = 0; d <= 7 && !fits; ++d) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", d, r);
        std::string s = buf;
        if (s.find('.') != std::string::npos) {
          while (s.back() == '0') s.pop_back();
          if (s.back() == '.') s.pop_back();
        }
        fits = s.size() <= 8 && std::strtod(s.c_str(), nullptr) == r;
      }
      ASSERT_TRUE(fits) << v << " -> " << r;
      // Tight: no more than one unit in the last place that 8 characters allow.
      ASSERT_LE(std::abs(r - v), 1e-5 * std::max(1.0, std::abs(v)) * 1.0001) << v;
    }
  }
  EXPECT_EQ(edfHeaderNumber(100.0, true, "x"), 100.0);
  EXPECT_EQ(edfHeaderNumber(-3276.8, false, "x"), -3276.8);
  EXPECT_THROW(edfHeaderNumber(2e8, true, "x"), InvalidParameterError);
}

TEST(EdfWriter, CancelledWriteLeavesNoFileBehind) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 256, 0}, {"B", "B", "uV", 256, 0}}, 600.0, 13);
  const std::string path = dir.file("cancel.edf");
  std::stop_source stop;
  int calls = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++calls == 5) stop.request_stop();
  });
  EXPECT_THROW(writeRecording(*rec, path, OutputFormat::EdfPlus, Provenance{}, ctx), Cancelled);
  EXPECT_EQ(calls, 5);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(dir.empty());
}

TEST(EdfWriter, UnwritableDestinationIsOutputError) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 100, 0}}, 2.0, 14);
  EXPECT_THROW(write(*rec, dir.file("missing/x.edf"), OutputFormat::EdfPlus), OutputError);
  EXPECT_THROW(write(*rec, dir.file("missing/x.bdf"), OutputFormat::BdfPlus), OutputError);
}

TEST(EdfWriter, EmptyOrSignallessRecordingsAreRefused) {
  Recording none;
  none.source = std::make_shared<InMemorySource>(std::vector<std::vector<float> >{});
  EXPECT_THROW(planEdfRecords(none, false), InvalidParameterError);
  auto empty = makeRecording({{"A", "A", "uV", 100, 0}}, 0.0, 15);
  EXPECT_THROW(planEdfRecords(*empty, false), InvalidParameterError);
}

TEST(EdfWriter, NegativeOnsetIsAParameterError) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 100, 0}}, 2.0, 16);
  rec->annotations = {{-0.5, 0, "before"}};
  EXPECT_THROW(write(*rec, dir.file("neg.edf"), OutputFormat::EdfPlus), InvalidParameterError);
  EXPECT_TRUE(dir.empty());
}

TEST(EdfWriter, UnknownStartIsTheAnonymisationDate) {
  TempDir dir;
  auto rec = makeRecording({{"A", "A", "uV", 100, 0}}, 2.0, 17);
  rec->info.startDateTime = "";
  write(*rec, dir.file("anon.edf"), OutputFormat::EdfPlus);
  EdfReadBack f(dir.file("anon.edf"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.hdr().startdate_year, 1985);
  EXPECT_EQ(f.hdr().startdate_month, 1);
  EXPECT_EQ(f.hdr().startdate_day, 1);
}

#endif  // MODESCOPE_HAVE_EDFLIB

}  // namespace
}  // namespace modescope
