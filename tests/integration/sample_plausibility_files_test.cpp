// The plausibility check of samples at open (engine/io/sample_plausibility.h) on real files: the
// files of tests/data open without its warnings, and the PhysioNet recording with its data
// section shifted by one byte from a chosen record is reported as damaged from that record.
// (EDFlib refuses the PhysioNet file; BioSig reads it through modescope-cli, hence here.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/io/recording_io.h"
#include "engine/io/sample_plausibility.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

const fs::path kData = MODESCOPE_TEST_DATA;

OpenOptions withHelper(bool checkSamples = true) {
  OpenOptions o;
  o.helperExecutable = MODESCOPE_CLI;
  o.checkSamples = checkSamples;
  return o;
}

std::vector<char> readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

long long headerNumber(const std::vector<char>& bytes, std::size_t offset, std::size_t width) {
  return std::stoll(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
                                bytes.begin() + static_cast<std::ptrdiff_t>(offset + width)));
}

// A copy of the EDF file `source` in which one byte is lost at the start of data record
// `record` (0-based) and a zero byte is appended, so the size still matches the header: every
// sample from that record on is made of two halves of neighbouring samples.
fs::path shiftedCopy(const fs::path& source, long long record, const std::string& name) {
  std::vector<char> bytes = readBytes(source);
  const long long headerBytes = headerNumber(bytes, 184, 8);
  const long long signals = headerNumber(bytes, 252, 4);
  long long recordBytes = 0;
  for (long long s = 0; s < signals; ++s) {
    recordBytes +=
        2 * headerNumber(bytes, static_cast<std::size_t>(256 + signals * 216 + s * 8), 8);
  }
  const long long at = headerBytes + record * recordBytes;
  bytes.erase(bytes.begin() + at);
  bytes.push_back('\0');
  const fs::path out = fs::temp_directory_path() / name;
  std::ofstream(out, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out;
}

bool hasCode(const Recording& rec, const std::string& code) {
  for (const auto& d : rec.diagnostics) {
    if (d.code == code) return true;
  }
  return false;
}

TEST(SamplePlausibilityFiles, RealFilesOpenWithoutWarnings) {
  for (const char* name :
       {"physionet_eegmmidb_S001R03.edf", "mne_test.bdf", "pyedflib_test_generator.edf",
        "pyedflib_test_generator.bdf", "pyedflib_test_subsecond.edf", "physionet_S001R03_64ch.h5",
        "physionet_S001R03_3ch_30s.h5"}) {
    SCOPED_TRACE(name);
    const auto rec = openRecording((kData / name).string(), withHelper());
    EXPECT_FALSE(hasCode(*rec, "data.damaged"));
    EXPECT_FALSE(hasCode(*rec, "data.implausibleChannels"));
  }
}

// MNE's test file declares a digital and physical range of 0..100 (uV) for its EEG channels,
// but its samples span about -200..70 (MNE reads them unclipped: read_raw_edf). EDFlib clips
// them to the declared range, so most of what would be drawn sits on 0: the check says so,
// naming the reason, rather than drawing a flat line as data.
TEST(SamplePlausibilityFiles, SamplesOutsideTheDeclaredRangeArePinned) {
  const auto rec = openRecording((kData / "mne_test.edf").string(), withHelper());
  ASSERT_EQ(rec->channels[0].digitalMin, 0);
  ASSERT_EQ(rec->channels[0].digitalMax, 100);
  bool warned = false;
  for (const auto& d : rec->diagnostics) {
    if (d.code != "data.damaged") continue;
    warned = true;
    EXPECT_NE(d.message.find("values pinned at the digital limit"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("outside the digital range the header declares"), std::string::npos);
  }
  EXPECT_TRUE(warned);
}

TEST(SamplePlausibilityFiles, ShiftedPhysionetFileIsDamagedFromTheShiftedRecord) {
  // 64 EEG channels, 1 s records of 160 samples; the shift starts at record 21 (index 20).
  const fs::path damaged =
      shiftedCopy(kData / "physionet_eegmmidb_S001R03.edf", 20, "modescope_shifted_physionet.edf");
  const auto rec = openRecording(damaged.string(), withHelper());
  const PlausibilityReport report = checkSamplePlausibility(*rec, {1.0, int64_t{16} << 20});
  EXPECT_EQ(report.damagedFromRecord, 20);
  EXPECT_DOUBLE_EQ(report.damagedFromSeconds, 20.0);
  EXPECT_EQ(report.recordStride, 1);
  EXPECT_EQ(report.channelsChecked, 64);
  // Every record from the shift on, and none before it.
  EXPECT_EQ(report.damagedRecords, report.recordsChecked - 20);
  bool warned = false;
  for (const auto& d : rec->diagnostics) {
    if (d.code != "data.damaged") continue;
    warned = true;
    EXPECT_EQ(d.severity, Severity::Warning);
    EXPECT_NE(d.message.find("look damaged from record 21 (20 s)"), std::string::npos) << d.message;
  }
  EXPECT_TRUE(warned);
  fs::remove(damaged);
}

TEST(SamplePlausibilityFiles, ShiftedFileCheckedOnSpacedRecordsSaysAbout) {
  const fs::path damaged =
      shiftedCopy(kData / "physionet_eegmmidb_S001R03.edf", 60, "modescope_shifted_spaced.edf");
  const auto rec = openRecording(damaged.string(), withHelper(false));
  EXPECT_FALSE(hasCode(*rec, "data.damaged"));  // the check was switched off
  // Budget for about 30 of the 125 records: every 5th is read.
  const PlausibilityReport report = checkSamplePlausibility(*rec, {1.0, 30 * 64 * 160});
  EXPECT_EQ(report.recordStride, 5);
  EXPECT_EQ(report.damagedFromRecord, 60);
  Diagnostics d;
  addPlausibilityDiagnostics(report, d);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("from about record 61"), std::string::npos) << d[0].message;
  fs::remove(damaged);
}

}  // namespace
}  // namespace modescope
