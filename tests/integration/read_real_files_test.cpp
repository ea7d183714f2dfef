// Every real file in tests/data opens through openRecording (EDFlib, or BioSig in the child
// process for the two EDFlib refuses), pages read consistently from several threads, and the
// two readers agree sample by sample where both can read a file. The fallback's failure modes
// (crash, hang, missing helper) are driven with stand-in helper scripts.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>
#include <tuple>

#include "engine/core/error.h"
#include "engine/io/child_process.h"
#include "engine/io/hdf5_recording.h"
#include "engine/io/recording_io.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

// These tests name the reader each file must go to: they need both libraries in the build.
#if defined(MODESCOPE_HAVE_EDFLIB) && defined(MODESCOPE_HAVE_BIOSIG)
#define REQUIRE_BOTH_READERS() (void)0
#else
#define REQUIRE_BOTH_READERS()                                                                 \
  GTEST_SKIP() << "this build lacks EDFlib or BioSig (libedf-dev, libbiosig-dev): the reader " \
                  "checks did NOT run"
#endif

struct RealFile {
  const char* name;
  const char* reader;  // who must read it
  const char* format;
  const char* refusal;  // the finding EDFlib refuses it for ("" when EDFlib reads it)
};

const RealFile kRealFiles[] = {
    {"mne_test.bdf", "BioSig", "BDF", "number of data records: found '  1     '"},
    {"mne_test.edf", "EDFlib", "EDF+", ""},
    {"mne_test_uneven_samp.edf", "EDFlib", "EDF", ""},
    {"physionet_eegmmidb_S001R03.edf", "BioSig", "EDF+",
     "signal 65 ('EDF Annotations') prefiltering: found 'HP:0Hz LP:0Hz N:0Hz'"},
    {"pyedflib_test_generator.bdf", "EDFlib", "BDF+", ""},
    {"pyedflib_test_generator.edf", "EDFlib", "EDF+", ""},
    {"pyedflib_test_subsecond.edf", "EDFlib", "EDF+", ""},
};

std::string dataPath(const std::string& name) {
  return std::string(MODESCOPE_TEST_DATA) + "/" + name;
}

OpenOptions withHelper() {
  OpenOptions o;
  o.helperExecutable = MODESCOPE_CLI;
  return o;
}

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "modescope-read-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string script(const std::string& name, const std::string& body) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    ::chmod(p.c_str(), 0755);
    return p;
  }

 private:
  std::string path_;
};

TEST(ReadRealFiles, TestDataHoldsTheExpectedFiles) {
  // A new file in tests/data must be added to kRealFiles (and so to every test below).
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(MODESCOPE_TEST_DATA)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".edf" || ext == ".bdf") found.push_back(e.path().filename().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> expected;
  for (const auto& f : kRealFiles) expected.push_back(f.name);
  EXPECT_EQ(found, expected);
}

TEST(ReadRealFiles, EveryFileOpensAndEveryChannelReadsAtBothEnds) {
  REQUIRE_BOTH_READERS();
  for (const auto& f : kRealFiles) {
    SCOPED_TRACE(f.name);
    std::shared_ptr<const Recording> rec;
    ASSERT_NO_THROW(rec = openRecording(dataPath(f.name), withHelper()));
    EXPECT_EQ(rec->info.reader, f.reader);
    EXPECT_EQ(rec->info.format, f.format);
    EXPECT_EQ(rec->sourcePath, dataPath(f.name));
    EXPECT_GT(rec->channelCount(), 0u);
    EXPECT_FALSE(rec->info.startDateTime.empty());
    const Diagnostic* refused = nullptr;
    for (const auto& d : rec->diagnostics) {
      if (d.code == "edf.edflibRefused") refused = &d;
    }
    if (std::string(f.refusal).empty()) {
      EXPECT_EQ(refused, nullptr);
    } else {
      ASSERT_NE(refused, nullptr);
      EXPECT_EQ(refused->severity, Severity::Warning);
      EXPECT_NE(refused->message.find(f.refusal), std::string::npos) << refused->message;
      EXPECT_NE(refused->message.find("read with BioSig instead"), std::string::npos);
    }
    for (std::size_t c = 0; c < rec->channelCount(); ++c) {
      const auto& ch = rec->channels[c];
      ASSERT_GT(ch.sampleRate, 0) << ch.label;
      ASSERT_GT(ch.sampleCount, 0) << ch.label;
      for (int64_t first : {int64_t{0}, std::max<int64_t>(0, ch.sampleCount - 4096)}) {
        const auto v = rec->readChannel(c, first, 4096);
        ASSERT_EQ(static_cast<int64_t>(v.size()), std::min<int64_t>(4096, ch.sampleCount - first));
        for (float x : v) ASSERT_TRUE(std::isfinite(x)) << ch.label;
      }
    }
    for (std::size_t i = 1; i < rec->annotations.size(); ++i) {
      EXPECT_LE(rec->annotations[i - 1].onset, rec->annotations[i].onset);
    }
  }
}

TEST(ReadRealFiles, PagedReadsMatchWholeReadsAcrossThreads) {
  REQUIRE_BOTH_READERS();
  // Paged reads seek inside EDFlib; four threads hammer one recording with random ranges and
  // must see exactly what one whole-channel read sees.
  auto rec = openRecording(dataPath("pyedflib_test_generator.edf"), withHelper());
  ASSERT_EQ(rec->info.reader, "EDFlib");
  std::vector<std::vector<float>> whole;
  for (std::size_t c = 0; c < rec->channelCount(); ++c) {
    whole.push_back(rec->readChannel(c, 0, rec->channels[c].sampleCount));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      for (int k = 0; k < 200; ++k) {
        const std::size_t c = rng() % rec->channelCount();
        const int64_t n = rec->channels[c].sampleCount;
        const int64_t first = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
        const int64_t count = 1 + static_cast<int64_t>(rng() % 5000);
        const auto v = rec->readChannel(c, first, count);
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (v[i] != whole[c][static_cast<std::size_t>(first) + i]) ++mismatches;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ReadRealFiles, OneFileOpenTwiceAtOnce) {
  REQUIRE_BOTH_READERS();
  // EDFlib refuses a path that is already open; two views of one file must still work.
  auto a = openRecording(dataPath("mne_test.edf"), withHelper());
  auto b = openRecording(dataPath("mne_test.edf"), withHelper());
  EXPECT_EQ(a->info.reader, "EDFlib");
  EXPECT_EQ(b->info.reader, "EDFlib");
  EXPECT_EQ(a->readChannel(3, 100, 50), b->readChannel(3, 100, 50));
  a.reset();
  EXPECT_EQ(b->readChannel(3, 0, 10).size(), 10u);
}

// BioSig (in the child) and EDFlib read the same files independently; they must agree to within
// float rounding, except where EDFlib clips a sample to the digital range (BioSig is asked not
// to), and trigger channels, which are not measurements.
TEST(ReadRealFiles, BiosigConverterAgreesWithEdflib) {
  REQUIRE_BOTH_READERS();
  TempDir tmp;
  for (const auto& f : kRealFiles) {
    if (std::string(f.reader) != "EDFlib") continue;
    SCOPED_TRACE(f.name);
    auto edf = openRecording(dataPath(f.name), withHelper());
    const std::string out = tmp.path() + "/" + f.name + ".h5";
    const ChildResult r =
        runChildProcess(MODESCOPE_CLI, {"biosig-import", dataPath(f.name), out}, 60);
    ASSERT_EQ(r.outcome, ChildResult::Outcome::Exited) << r.stderrText;
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    auto bio = openHdf5Recording(out);
    ASSERT_EQ(bio->channelCount(), edf->channelCount());
    for (std::size_t c = 0; c < edf->channelCount(); ++c) {
      const auto& ce = edf->channels[c];
      const auto& cb = bio->channels[c];
      EXPECT_EQ(cb.label, ce.label);
      EXPECT_NEAR(cb.sampleRate, ce.sampleRate, 1e-9 * ce.sampleRate) << ce.label;
      ASSERT_EQ(cb.sampleCount, ce.sampleCount) << ce.label;
      if (ce.type == ChannelType::STIM) continue;
      const auto ve = edf->readChannel(c, 0, ce.sampleCount);
      const auto vb = bio->readChannel(c, 0, cb.sampleCount);
      // Inverted polarity (physical max < min) is legal: use the magnitudes.
      const double lsb =
          std::abs((ce.physicalMax - ce.physicalMin) / (double(ce.digitalMax) - ce.digitalMin));
      const double top = std::max(ce.physicalMax, ce.physicalMin);
      const double bottom = std::min(ce.physicalMax, ce.physicalMin);
      int bad = 0;
      for (std::size_t i = 0; i < ve.size(); ++i) {
        // Both compute (digital + offset) * gain in double and round to float: 1e-6 relative.
        const double tol = 1e-6 * std::max(std::abs(ve[i]), std::abs(vb[i])) + 1e-3 * lsb;
        const bool clipped = (std::abs(ve[i] - top) <= tol && vb[i] > ve[i]) ||
                             (std::abs(ve[i] - bottom) <= tol && vb[i] < ve[i]);
        if (std::abs(ve[i] - vb[i]) > tol && !clipped) ++bad;
      }
      EXPECT_EQ(bad, 0) << ce.label;
    }
    // Annotations, decoded triggers included (both sides decode them by the same rule).
    const auto& ae = edf->annotations;
    const auto& ab = bio->annotations;
    ASSERT_EQ(ab.size(), ae.size());
    double maxRate = 0;
    for (const auto& c : edf->channels) maxRate = std::max(maxRate, c.sampleRate);
    for (std::size_t i = 0; i < ae.size(); ++i) {
      // BioSig stores event positions in samples: one sample of rounding.
      EXPECT_NEAR(ab[i].onset, ae[i].onset, 1.0 / maxRate + 1e-9) << ae[i].text;
      EXPECT_NEAR(ab[i].duration, ae[i].duration, 1.0 / maxRate + 1e-9) << ae[i].text;
      EXPECT_EQ(ab[i].text, ae[i].text);
    }
  }
}

// A truncated file (the recorder stopped mid-record) and one whose record count was never
// filled in (-1): EDFlib refuses both; the complete records are read through BioSig and are the
// same samples EDFlib reads from the intact file.
TEST(ReadRealFiles, TruncatedAndUnknownLengthFilesKeepTheCompleteRecords) {
  REQUIRE_BOTH_READERS();
  TempDir tmp;
  const std::string original = dataPath("pyedflib_test_generator.edf");
  std::ifstream in(original, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const long long ns = std::stoll(bytes.substr(252, 4));
  const long long headerBytes = 256 * (ns + 1);
  long long recordBytes = 0;
  for (long long i = 0; i < ns; ++i) {
    recordBytes += 2 * std::stoll(bytes.substr(256 + ns * 216 + 8 * i, 8));
  }
  auto intact = openRecording(original, withHelper());
  ASSERT_EQ(intact->info.reader, "EDFlib");

  const std::string truncated = tmp.path() + "/truncated.edf";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(
      0, static_cast<std::size_t>(headerBytes + recordBytes * 100 + recordBytes / 2));
  std::string unknown = bytes;
  unknown.replace(236, 8, "-1      ");
  const std::string unknownPath = tmp.path() + "/unknown-length.edf";
  std::ofstream(unknownPath, std::ios::binary) << unknown;

  for (const auto& [path, records, finding] :
       {std::tuple<std::string, long long, std::string>{truncated, 100, "the file is truncated"},
        {unknownPath, 600, "number of data records: found -1"}}) {
    SCOPED_TRACE(path);
    auto rec = openRecording(path, withHelper());
    EXPECT_EQ(rec->info.reader, "BioSig");
    bool told = false;
    for (const auto& d : rec->diagnostics) {
      told =
          told || (d.code == "edf.edflibRefused" && d.message.find(finding) != std::string::npos);
    }
    EXPECT_TRUE(told) << "no diagnostic saying '" << finding << "'";
    ASSERT_EQ(rec->channelCount(), intact->channelCount());
    for (std::size_t c = 0; c < rec->channelCount(); ++c) {
      const int64_t perRecord =
          static_cast<int64_t>(std::llround(intact->channels[c].sampleRate));  // 1 s records
      ASSERT_EQ(rec->channels[c].sampleCount, records * perRecord);
      const auto a = rec->readChannel(c, 0, rec->channels[c].sampleCount);
      const auto b = intact->readChannel(c, 0, rec->channels[c].sampleCount);
      int bad = 0;
      for (std::size_t i = 0; i < a.size(); ++i)
        bad += std::abs(a[i] - b[i]) > 1e-6 * std::abs(b[i]) + 1e-6;
      EXPECT_EQ(bad, 0) << rec->channels[c].label;
    }
  }
}

TEST(ReadRealFiles, MissingEmptyAndFolderInputs) {
  TempDir tmp;
  try {
    openRecording(tmp.path() + "/absent.edf", withHelper());
    FAIL() << "no error for a missing file";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "file");
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  const std::string empty = tmp.path() + "/empty.edf";
  std::ofstream(empty).close();
  try {
    openRecording(empty, withHelper());
    FAIL() << "no error for an empty file";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "file size");
    EXPECT_EQ(e.found(), "0 bytes");
  }
  try {
    openRecording(tmp.path(), withHelper());
    FAIL() << "no error for a folder";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "file");
  }
}

TEST(ReadRealFiles, WithoutFallbackTheRefusalReasonIsTheError) {
  REQUIRE_BOTH_READERS();
  OpenOptions o = withHelper();
  o.allowFallback = false;
  try {
    openRecording(dataPath("physionet_eegmmidb_S001R03.edf"), o);
    FAIL() << "EDFlib refuses this file; without the fallback openRecording must throw";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "signal 65 ('EDF Annotations') prefiltering");
    EXPECT_EQ(e.found(), "'HP:0Hz LP:0Hz N:0Hz'");
  }
}

TEST(ReadRealFiles, FallbackCrashHangAndMissingHelperAreInvalidInput) {
  REQUIRE_BOTH_READERS();
  TempDir tmp;
  const std::string physionet = dataPath("physionet_eegmmidb_S001R03.edf");
  OpenOptions o;
  o.helperExecutable = tmp.script("crash.sh", "kill -SEGV $$");
  try {
    openRecording(physionet, o);
    FAIL();
  } catch (const InvalidInputError& e) {
    EXPECT_NE(e.found().find("the file could not be read (the tolerant reader failed: crashed with "
                             "signal 11"),
              std::string::npos)
        << e.what();
  }
  o.helperExecutable = tmp.script("hang.sh", "sleep 30");
  o.fallbackTimeoutSeconds = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    openRecording(physionet, o);
    FAIL();
  } catch (const InvalidInputError& e) {
    EXPECT_NE(e.found().find("did not finish within 0.5 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  o.helperExecutable = tmp.script("fail.sh", "echo 'biosig-import: unknown format' >&2; exit 2");
  try {
    openRecording(physionet, o);
    FAIL();
  } catch (const InvalidInputError& e) {
    EXPECT_NE(e.found().find("unknown format"), std::string::npos) << e.what();
  }
  o.helperExecutable = tmp.path() + "/no-such-helper";
  try {
    openRecording(physionet, o);
    FAIL();
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "reader");
  }
}

TEST(ReadRealFiles, UnknownFormatWithoutFallbackListsTheSupportedFormats) {
  TempDir tmp;
  const std::string p = tmp.path() + "/notes.txt";
  std::ofstream(p) << "this is not a recording\n";
  OpenOptions o;
  o.allowFallback = false;
  try {
    openRecording(p, o);
    FAIL();
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "file format");
    EXPECT_NE(std::string(e.what()).find("EDF, EDF+, BDF, BDF+"), std::string::npos) << e.what();
  }
  EXPECT_GE(supportedInputFormats().size(), 2u);
}

TEST(ReadRealFiles, GdfThroughBiosig) {
  REQUIRE_BOTH_READERS();
  // A format EDFlib does not read: made from an EDF file with BioSig's own converter, then read
  // back through openRecording's BioSig child and compared with the EDF.
  if (std::system("command -v save2gdf >/dev/null 2>&1") != 0) {
    GTEST_SKIP()
        << "save2gdf (Debian package biosig-tools) is not installed; cannot make a GDF file";
  }
  TempDir tmp;
  const std::string gdf = tmp.path() + "/uneven.gdf";
  const std::string cmd = "save2gdf -f=GDF '" + dataPath("mne_test_uneven_samp.edf") + "' '" + gdf +
                          "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto g = openRecording(gdf, withHelper());
  auto e = openRecording(dataPath("mne_test_uneven_samp.edf"), withHelper());
  EXPECT_EQ(g->info.reader, "BioSig");
  EXPECT_NE(g->info.format.find("GDF"), std::string::npos) << g->info.format;
  bool saysBiosig = false;
  for (const auto& d : g->diagnostics) saysBiosig = saysBiosig || d.code == "biosig.read";
  EXPECT_TRUE(saysBiosig);
  ASSERT_EQ(g->channelCount(), e->channelCount());
  for (std::size_t c = 0; c < e->channelCount(); ++c) {
    EXPECT_NEAR(g->channels[c].sampleRate, e->channels[c].sampleRate, 1e-9);
    ASSERT_EQ(g->channels[c].sampleCount, e->channels[c].sampleCount);
    const auto a = e->readChannel(c, 0, e->channels[c].sampleCount);
    const auto b = g->readChannel(c, 0, g->channels[c].sampleCount);
    const auto& ch = e->channels[c];
    const double lsb =
        std::abs((ch.physicalMax - ch.physicalMin) / (double(ch.digitalMax) - ch.digitalMin));
    for (std::size_t i = 0; i < a.size(); ++i) {
      // GDF keeps the 16-bit samples and the scaling: equal within float rounding.
      ASSERT_NEAR(a[i], b[i], 1e-6 * std::abs(a[i]) + 1e-3 * lsb) << ch.label << " sample " << i;
    }
  }
}

}  // namespace
}  // namespace modescope
