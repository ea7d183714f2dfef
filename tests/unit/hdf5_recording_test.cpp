// HDF5 recordings (docs/hdf5-schema.md): round trips, schema and damage handling, paging,
// cancellation and output errors. The oracle for samples is the input itself: float32 samples are
// stored as float32, so a round trip must be bit-exact.
#include "engine/io/hdf5_recording.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/job_context.h"
#include "engine/core/recording.h"
#include "engine/io/recording_io.h"
#include "engine/io/session.h"

namespace fs = std::filesystem;

namespace modescope {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "modescope-h5-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    return out;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Three rates, including a non-integer one, and channels of different lengths; random samples
// with a wide dynamic range so that nothing is accidentally exact.
std::shared_ptr<Recording> makeRecording(unsigned seed, double seconds = 4.0) {
  auto rec = std::make_shared<Recording>();
  rec->sourcePath = "/data/subject 01/run-1.edf";
  rec->info.format = "EDF+";
  rec->info.reader = "EDFlib";
  rec->info.patient = "Zoë Müller";
  rec->info.patientCode = "S001";
  rec->info.sex = "F";
  rec->info.birthdate = "1980-04-02";
  rec->info.recordingId = "run 1";
  rec->info.technician = "A. Tech";
  rec->info.equipment = "BioSemi";
  rec->info.adminCode = "ADM-7";
  rec->info.startDateTime = "2021-03-04T05:06:07";
  struct Spec {
    const char* label;
    const char* name;
    ChannelType type;
    const char* unit;
    double rate;
    bool position;
  };
  const Spec specs[] = {{"EEG Fp1-REF", "Fp1", ChannelType::EEG, "µV", 256.0, true},
                        {"EEG Cz-REF", "Cz", ChannelType::EEG, "uV", 256.0, true},
                        {"ECG", "ECG", ChannelType::ECG, "mV", 100.0, false},
                        {"Resp", "Resp", ChannelType::MISC, "a.u.", 1000.0 / 3.0, false},
                        {"Status", "Status", ChannelType::STIM, "", 2.5, false}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 30.0f);
  std::vector<std::vector<float>> data;
  int k = 0;
  for (const Spec& s : specs) {
    ChannelInfo c;
    c.label = s.label;
    c.name = s.name;
    c.type = s.type;
    c.unit = s.unit;
    c.sampleRate = s.rate;
    // The last channel is a little shorter: lengths may differ.
    c.sampleCount = static_cast<int64_t>(std::floor(s.rate * seconds)) - (k == 4 ? 1 : 0);
    c.physicalMin = -3276.8 * (k + 1);
    c.physicalMax = 3276.7 * (k + 1);
    c.digitalMin = -32768;
    c.digitalMax = 32767;
    c.prefilter = k == 0 ? "HP:0.1Hz LP:70Hz N:50Hz" : "";
    c.transducer = k < 2 ? "AgAgCl electrode" : "";
    if (s.position) c.position = Position3{0.1 * k - 0.3, 0.95, 0.2 + 0.01 * k};
    std::vector<float> v(static_cast<std::size_t>(c.sampleCount));
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] =
          noise(rng) * static_cast<float>(k + 1) + 100.0f * std::sin(0.05f * static_cast<float>(i));
    }
    data.push_back(std::move(v));
    rec->channels.push_back(c);
    ++k;
  }
  rec->annotations = {{0.0, 0.0, "start"},
                      {0.5, 1.25, "Augen geschlossen — ÄÖÜ"},
                      {1.75, 0.0, "眼球運動 artefact"},
                      {3.9, 0.1, ""}};
  rec->diagnostics = {{Severity::Warning, "edf.nonCompliant", "Header field 'reserved' ..."}};
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

Provenance makeProvenance() {
  Provenance p;
  p.method = "preprocess";
  p.parameters = {{"highpass", "0.5 Hz"}, {"notch", "50 Hz"}, {"Ω reference", "average"}};
  p.seed = "12345";
  p.backend = "CPU, 2 threads";
  p.softwareVersion = softwareVersion();
  p.inputFile = "/data/subject 01/run-1.edf";
  p.selection = "all channels, 0-4 s";
  p.createdAt = "2026-11-22T11:20:03Z";
  p.wallSeconds = 1.5;
  return p;
}

const std::vector<float>& inputSamples(const Recording& rec, std::size_t ch) {
  return dynamic_cast<const InMemorySource&>(*rec.source).channel(ch);
}

void expectSameMetadata(const Recording& a, const Recording& b) {
  ASSERT_EQ(a.channels.size(), b.channels.size());
  for (std::size_t i = 0; i < a.channels.size(); ++i) {
    const ChannelInfo& x = a.channels[i];
    const ChannelInfo& y = b.channels[i];
    SCOPED_TRACE("channel " + std::to_string(i));
    EXPECT_EQ(x.label, y.label);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.unit, y.unit);
    EXPECT_EQ(x.sampleRate, y.sampleRate);  // float64 stored as float64: exact
    EXPECT_EQ(x.sampleCount, y.sampleCount);
    EXPECT_EQ(x.physicalMin, y.physicalMin);
    EXPECT_EQ(x.physicalMax, y.physicalMax);
    EXPECT_EQ(x.digitalMin, y.digitalMin);
    EXPECT_EQ(x.digitalMax, y.digitalMax);
    EXPECT_EQ(x.prefilter, y.prefilter);
    EXPECT_EQ(x.transducer, y.transducer);
    ASSERT_EQ(x.position.has_value(), y.position.has_value());
    if (x.position) {
      EXPECT_EQ(x.position->x, y.position->x);
      EXPECT_EQ(x.position->y, y.position->y);
      EXPECT_EQ(x.position->z, y.position->z);
    }
  }
  ASSERT_EQ(a.annotations.size(), b.annotations.size());
  for (std::size_t i = 0; i < a.annotations.size(); ++i) {
    EXPECT_EQ(a.annotations[i].onset, b.annotations[i].onset);
    EXPECT_EQ(a.annotations[i].duration, b.annotations[i].duration);
    EXPECT_EQ(a.annotations[i].text, b.annotations[i].text);
  }
  EXPECT_EQ(a.info.patient, b.info.patient);
  EXPECT_EQ(a.info.patientCode, b.info.patientCode);
  EXPECT_EQ(a.info.sex, b.info.sex);
  EXPECT_EQ(a.info.birthdate, b.info.birthdate);
  EXPECT_EQ(a.info.recordingId, b.info.recordingId);
  EXPECT_EQ(a.info.technician, b.info.technician);
  EXPECT_EQ(a.info.equipment, b.info.equipment);
  EXPECT_EQ(a.info.adminCode, b.info.adminCode);
  EXPECT_EQ(a.info.startDateTime, b.info.startDateTime);
}

void expectSameSamples(const Recording& input, const Recording& read) {
  for (std::size_t i = 0; i < input.channels.size(); ++i) {
    const auto& want = inputSamples(input, i);
    const auto got = read.readChannel(i, 0, read.channels[i].sampleCount);
    ASSERT_EQ(want.size(), got.size()) << "channel " << i;
    for (std::size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(want[k], got[k]) << "channel " << i << " sample " << k;
    }
  }
}

std::string readStringAttr(const H5::H5Object& o, const std::string& name) {
  H5::Attribute a = o.openAttribute(name);
  std::string s;
  a.read(a.getStrType(), s);
  return s;
}

void writeH5(const Recording& rec, const std::string& path,
             const Provenance& p = makeProvenance()) {
  JobContext ctx;
  writeRecording(rec, path, OutputFormat::Hdf5, p, ctx);
}

TEST(Hdf5Recording, RoundTripKeepsMixedRatesAnnotationsInfoAndPositions) {
  TempDir dir;
  auto rec = makeRecording(1);
  const std::string path = dir.file("rec.h5");
  writeH5(*rec, path);

  EXPECT_TRUE(isModeScopeHdf5(path));
  auto back = openHdf5Recording(path);
  expectSameMetadata(*rec, *back);
  expectSameSamples(*rec, *back);
  // The reopened recording describes the HDF5 file; the original is named in a diagnostic.
  EXPECT_EQ(back->sourcePath, path);
  EXPECT_EQ(back->info.format, "HDF5 (ModeScope)");
  bool sourceNoted = false, warningKept = false;
  for (const auto& d : back->diagnostics) {
    if (d.code == "hdf5.source") {
      sourceNoted = d.message.find("EDF+") != std::string::npos &&
                    d.message.find(rec->sourcePath) != std::string::npos;
    }
    if (d.code == "edf.nonCompliant" && d.severity == Severity::Warning) warningKept = true;
  }
  EXPECT_TRUE(sourceNoted);
  EXPECT_TRUE(warningKept);
  EXPECT_NEAR(back->duration(), rec->duration(), 1e-12);
}

TEST(Hdf5Recording, PagedReadsReturnTheRequestedRange) {
  TempDir dir;
  // Long enough for several chunks (65,536 samples each) per channel.
  auto rec = makeRecording(2, 600.0);
  const std::string path = dir.file("long.h5");
  writeH5(*rec, path);
  auto back = openHdf5Recording(path);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t ch = rng() % rec->channels.size();
    const int64_t n = rec->channels[ch].sampleCount;
    const int64_t first = static_cast<int64_t>(rng() % static_cast<unsigned>(n));
    const int64_t count = 1 + static_cast<int64_t>(rng() % 100000u);
    const auto got = back->readChannel(ch, first, count);
    const auto& want = inputSamples(*rec, ch);
    ASSERT_EQ(static_cast<int64_t>(got.size()), std::min(count, n - first));
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k], want[static_cast<std::size_t>(first) + k]);
    }
  }
}

TEST(Hdf5Recording, ConcurrentReadsFromSeveralThreadsAgree) {
  TempDir dir;
  auto rec = makeRecording(3, 120.0);
  const std::string path = dir.file("mt.h5");
  writeH5(*rec, path);
  auto back = openHdf5Recording(path);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      for (int trial = 0; trial < 200; ++trial) {
        const std::size_t ch = rng() % rec->channels.size();
        const int64_t n = rec->channels[ch].sampleCount;
        const int64_t first = static_cast<int64_t>(rng() % static_cast<unsigned>(n));
        const auto got = back->readChannel(ch, first, 2000);
        const auto& want = inputSamples(*rec, ch);
        for (std::size_t k = 0; k < got.size(); ++k) {
          if (got[k] != want[static_cast<std::size_t>(first) + k]) ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(Hdf5Recording, FileFollowsTheDocumentedLayout) {
  TempDir dir;
  auto rec = makeRecording(4);
  const std::string path = dir.file("layout.h5");
  const Provenance prov = makeProvenance();
  writeH5(*rec, path, prov);

  // Read with the plain HDF5 API, as another program would.
  H5::H5File f(path, H5F_ACC_RDONLY);
  EXPECT_EQ(readStringAttr(f, "modescope_schema"), "modescope-recording/1");
  EXPECT_EQ(readStringAttr(f, "patient"), "Zoë Müller");
  H5::DataSet s0 = f.openDataSet("/signals/0");
  EXPECT_EQ(s0.getDataType(), H5::PredType::IEEE_F32LE);
  H5::DSetCreatPropList dcpl = s0.getCreatePlist();
  EXPECT_EQ(dcpl.getLayout(), H5D_CHUNKED);
  bool shuffle = false, deflate = false, fletcher = false;
  for (int i = 0; i < dcpl.getNfilters(); ++i) {
    unsigned flags = 0, cd[8];
    size_t n = 8;
    char name[64];
    unsigned config = 0;
    const H5Z_filter_t id = dcpl.getFilter(i, flags, n, cd, sizeof name, name, config);
    shuffle = shuffle || id == H5Z_FILTER_SHUFFLE;
    deflate = deflate || id == H5Z_FILTER_DEFLATE;
    fletcher = fletcher || id == H5Z_FILTER_FLETCHER32;
  }
  EXPECT_TRUE(shuffle);
  EXPECT_TRUE(deflate);
  EXPECT_TRUE(fletcher);

  H5::Group p = f.openGroup("/provenance");
  EXPECT_EQ(readStringAttr(p, "method"), prov.method);
  EXPECT_EQ(readStringAttr(p, "seed"), prov.seed);
  EXPECT_EQ(readStringAttr(p, "backend"), prov.backend);
  EXPECT_EQ(readStringAttr(p, "software_version"), prov.softwareVersion);
  EXPECT_EQ(readStringAttr(p, "input_file"), prov.inputFile);
  EXPECT_EQ(readStringAttr(p, "selection"), prov.selection);
  EXPECT_EQ(readStringAttr(p, "created_at"), prov.createdAt);
  double wall = 0;
  p.openAttribute("wall_seconds").read(H5::PredType::NATIVE_DOUBLE, &wall);
  EXPECT_EQ(wall, prov.wallSeconds);
  H5::DataSet names = p.openDataSet("parameter_name");
  hsize_t n = 0;
  names.getSpace().getSimpleExtentDims(&n);
  ASSERT_EQ(n, prov.parameters.size());
  // Strings are fixed-length, null-padded UTF-8 (docs/hdf5-schema.md).
  H5::StrType st = names.getStrType();
  EXPECT_FALSE(st.isVariableStr());
  EXPECT_EQ(st.getCset(), H5T_CSET_UTF8);
  const std::size_t width = st.getSize();
  std::vector<char> buf(n * width);
  names.read(buf.data(), st);
  for (std::size_t i = 0; i < n; ++i) {
    std::string got(buf.data() + i * width, width);
    got.erase(got.find_last_not_of('\0') + 1);
    EXPECT_EQ(got, prov.parameters[i].first);
  }

  // Unknown positions are NaN.
  std::vector<double> px(rec->channels.size());
  f.openDataSet("/channels/position_x").read(px.data(), H5::PredType::NATIVE_DOUBLE);
  EXPECT_TRUE(std::isnan(px[2]));
  EXPECT_EQ(px[0], rec->channels[0].position->x);
}

TEST(Hdf5Recording, ReadRecordingFromGroupWorksInsideAnyGroup) {
  TempDir dir;
  auto rec = makeRecording(5);
  const std::string path = dir.file("nested.h5");
  {
    H5::H5File f(path, H5F_ACC_TRUNC);
    H5::Group g = f.createGroup("/deep");
    H5::Group inner = g.createGroup("result");
    JobContext ctx;
    writeRecordingToGroup(*rec, inner, makeProvenance(), ctx);
  }
  H5::H5File f(path, H5F_ACC_RDONLY);
  auto back = readRecordingFromGroup(f.openGroup("/deep/result"), path);
  expectSameMetadata(*rec, *back);
  expectSameSamples(*rec, *back);
  EXPECT_EQ(back->sourcePath, rec->sourcePath);  // a group keeps the original's description
  EXPECT_EQ(back->info.format, "EDF+");
  EXPECT_EQ(back->info.reader, "EDFlib");
  // The file's root has no recording, so the file itself is not a ModeScope recording.
  EXPECT_FALSE(isModeScopeHdf5(path));
}

TEST(Hdf5Recording, EmptyChannelAndNoAnnotationsRoundTrip) {
  TempDir dir;
  auto rec = std::make_shared<Recording>();
  ChannelInfo c;
  c.label = c.name = "X";
  c.sampleRate = 10;
  c.sampleCount = 0;
  rec->channels.push_back(c);
  c.label = c.name = "Y";
  c.sampleCount = 3;
  rec->channels.push_back(c);
  rec->source = std::make_shared<InMemorySource>(
      std::vector<std::vector<float>>{{}, {1.0f, std::numeric_limits<float>::quiet_NaN(), -2.5f}});
  const std::string path = dir.file("empty.h5");
  writeH5(*rec, path);
  auto back = openHdf5Recording(path);
  ASSERT_EQ(back->channels.size(), 2u);
  EXPECT_EQ(back->channels[0].sampleCount, 0);
  EXPECT_TRUE(back->readChannel(0, 0, 10).empty());
  const auto y = back->readChannel(1, 0, 3);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_TRUE(std::isnan(y[1]));  // HDF5 keeps NaN (EDF cannot)
  EXPECT_EQ(y[2], -2.5f);
  EXPECT_TRUE(back->annotations.empty());
}

TEST(Hdf5Recording, ForeignHdf5IsRefusedWithTheMissingAttributeNamed) {
  TempDir dir;
  const std::string path = dir.file("foreign.h5");
  {
    H5::H5File f(path, H5F_ACC_TRUNC);
    const hsize_t n = 4;
    f.createDataSet("data", H5::PredType::IEEE_F32LE, H5::DataSpace(1, &n));
  }
  EXPECT_FALSE(isModeScopeHdf5(path));
  try {
    openHdf5Recording(path);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("modescope_schema"), std::string::npos) << m;
    EXPECT_NE(m.find("modescope-recording/1"), std::string::npos) << m;
    EXPECT_EQ(e.path(), path);
  }
}

TEST(Hdf5Recording, SessionFileOpenedAsRecordingSaysSo) {
  TempDir dir;
  const std::string path = dir.file("s.h5");
  Session s;
  s.recordingPath = "/x.edf";
  saveSession(s, path);
  EXPECT_FALSE(isModeScopeHdf5(path));
  try {
    openHdf5Recording(path);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find("session"), std::string::npos) << e.what();
  }
}

TEST(Hdf5Recording, NewerSchemaVersionIsRefused) {
  TempDir dir;
  const std::string path = dir.file("v2.h5");
  writeH5(*makeRecording(6), path);
  {
    H5::H5File f(path, H5F_ACC_RDWR);
    f.removeAttr("modescope_schema");
    H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
    f.createAttribute("modescope_schema", t, H5::DataSpace(H5S_SCALAR))
        .write(t, std::string("modescope-recording/2"));
  }
  try {
    openHdf5Recording(path);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

TEST(Hdf5Recording, MissingOrInconsistentDatasetsAreNamed) {
  TempDir dir;
  const std::string path = dir.file("missing.h5");
  writeH5(*makeRecording(7), path);
  {
    H5::H5File f(path, H5F_ACC_RDWR);
    f.unlink("/channels/unit");
  }
  try {
    openHdf5Recording(path);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "/channels/unit") << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }

  const std::string path2 = dir.file("short.h5");
  writeH5(*makeRecording(7), path2);
  {
    H5::H5File f(path2, H5F_ACC_RDWR);
    f.unlink("/signals/1");
    const hsize_t n = 10;
    f.createDataSet("/signals/1", H5::PredType::IEEE_F32LE, H5::DataSpace(1, &n));
  }
  try {
    openHdf5Recording(path2);
    FAIL() << "expected InvalidInputError";
  } catch (const InvalidInputError& e) {
    EXPECT_EQ(e.field(), "/signals/1") << e.what();
    EXPECT_NE(std::string(e.what()).find("sample_count"), std::string::npos) << e.what();
  }

  const std::string path3 = dir.file("rows.h5");
  writeH5(*makeRecording(7), path3);
  {
    H5::H5File f(path3, H5F_ACC_RDWR);
    f.unlink("/channels/sample_rate");
    const hsize_t n = 2;
    std::vector<double> r{256, 256};
    f.createDataSet("/channels/sample_rate", H5::PredType::IEEE_F64LE, H5::DataSpace(1, &n))
        .write(r.data(), H5::PredType::NATIVE_DOUBLE);
  }
  EXPECT_THROW(openHdf5Recording(path3), InvalidInputError);
}

TEST(Hdf5Recording, NotHdf5AndMissingFilesAreInvalidInput) {
  TempDir dir;
  const std::string text = dir.file("notes.h5");
  std::ofstream(text) << "this is not HDF5\n";
  EXPECT_FALSE(isModeScopeHdf5(text));
  EXPECT_THROW(openHdf5Recording(text), InvalidInputError);
  EXPECT_THROW(openHdf5Recording(dir.file("absent.h5")), InvalidInputError);
  EXPECT_FALSE(isModeScopeHdf5(dir.file("absent.h5")));
  EXPECT_THROW(openHdf5Recording(dir.path().string()), InvalidInputError);
}

TEST(Hdf5Recording, TruncatedFileIsInvalidInputNotACrash) {
  TempDir dir;
  const std::string good = dir.file("good.h5");
  writeH5(*makeRecording(8, 60.0), good);
  const auto size = fs::file_size(good);
  for (double keep : {0.9, 0.6, 0.3, 0.05}) {
    const std::string cut = dir.file("cut.h5");
    fs::copy_file(good, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, static_cast<std::uintmax_t>(static_cast<double>(size) * keep));
    SCOPED_TRACE("kept " + std::to_string(keep));
    try {
      openHdf5Recording(cut);
      FAIL() << "a truncated file opened";
    } catch (const InvalidInputError& e) {
      EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    }
  }
}

// Overwrites bytes inside the file: opening may fail, or reading a damaged chunk; either way the
// only acceptable outcome besides success is InvalidInputError.
TEST(Hdf5Recording, CorruptedBytesGiveInvalidInputOrCorrectData) {
  TempDir dir;
  const std::string good = dir.file("good.h5");
  auto rec = makeRecording(9, 60.0);
  writeH5(*rec, good);
  const auto size = static_cast<std::size_t>(fs::file_size(good));
  std::mt19937 rng(11);
  int refused = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::string bad = dir.file("bad.h5");
    fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
    {
      std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
      // Damage the data region (past the superblock and root metadata).
      const std::size_t at = size / 4 + rng() % (size / 2);
      f.seekp(static_cast<std::streamoff>(at));
      for (int i = 0; i < 256; ++i) f.put(static_cast<char>(rng()));
    }
    try {
      auto r = openHdf5Recording(bad);
      for (std::size_t ch = 0; ch < r->channelCount(); ++ch) {
        r->readChannel(ch, 0, r->channels[ch].sampleCount);
      }
    } catch (const InvalidInputError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  // Random bytes in compressed chunks almost always break deflate; make sure the damage was seen.
  EXPECT_GT(refused, 0);
}

// Fuzzing in child processes, so that a crash or a hang inside HDF5 is seen as a failure of this
// test rather than of the whole test program. Variable-length strings made HDF5 1.10 crash or hang
// on such input (global-heap reads); the schema's fixed-length strings exist because of it.
TEST(Hdf5Recording, DamagedFilesNeverCrashOrHang) {
  TempDir dir;
  const std::string rec = dir.file("rec.h5");
  const std::string ses = dir.file("ses.h5");
  writeH5(*makeRecording(16, 20.0), rec);
  Session s;
  JobRecord j;
  j.title = "job";
  j.resultRecording = makeRecording(17, 5.0);
  s.jobs.push_back(j);
  s.marks.userAnnotations = {{1, 0, "x"}};
  saveSession(s, ses);
  std::mt19937 rng(99);
  int crashes = 0, outcomes[3] = {0, 0, 0};
  for (int trial = 0; trial < 240; ++trial) {
    const bool session = trial % 2 == 1;
    std::ifstream in(session ? ses : rec, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    switch (rng() % 3) {
      case 0: {  // a short burst of random bytes anywhere
        const std::size_t at = rng() % bytes.size();
        for (std::size_t i = at; i < std::min(bytes.size(), at + 1 + rng() % 16); ++i) {
          bytes[i] = static_cast<char>(rng());
        }
        break;
      }
      case 1:  // truncation
        bytes.resize(rng() % bytes.size());
        break;
      default:  // single bytes in the metadata near the start
        for (int i = 0; i < 4; ++i)
          bytes[rng() % std::min<std::size_t>(bytes.size(), 4096)] ^= 0x5a;
    }
    const std::string bad = dir.file("bad.h5");
    std::ofstream(bad, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::alarm(20);  // a hang ends the child with SIGALRM
      int code = 0;
      try {
        if (session) {
          loadSession(bad);
        } else {
          auto r = openHdf5Recording(bad);
          for (std::size_t c = 0; c < r->channelCount(); ++c) {
            r->readChannel(c, 0, r->channels[c].sampleCount);
          }
        }
      } catch (const InvalidInputError&) {
        code = 1;
      } catch (...) {
        code = 2;  // any other exception type breaks the contract
      }
      std::_Exit(code);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
      ++crashes;
      ADD_FAILURE() << "trial " << trial << ": the reader died with signal " << WTERMSIG(status);
    } else {
      ++outcomes[std::min(WEXITSTATUS(status), 2)];
    }
  }
  EXPECT_EQ(crashes, 0);
  EXPECT_EQ(outcomes[2], 0) << "exceptions other than InvalidInputError";
  EXPECT_GT(outcomes[1], 100) << "most damage must be detected";
}

TEST(Hdf5Recording, CancelledWriteLeavesNoFileBehind) {
  TempDir dir;
  auto rec = makeRecording(10, 600.0);  // several progress steps per channel
  const std::string path = dir.file("cancelled.h5");
  std::stop_source stop;
  int calls = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++calls == 3) stop.request_stop();
  });
  EXPECT_THROW(writeRecording(*rec, path, OutputFormat::Hdf5, makeProvenance(), ctx), Cancelled);
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

TEST(Hdf5Recording, ProgressRisesToOne) {
  TempDir dir;
  auto rec = makeRecording(12, 30.0);
  double last = -1;
  bool monotonic = true;
  JobContext ctx({}, [&](double f, std::string_view) {
    monotonic = monotonic && f >= last;
    last = f;
  });
  writeRecording(*rec, dir.file("p.h5"), OutputFormat::Hdf5, makeProvenance(), ctx);
  EXPECT_TRUE(monotonic);
  EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(Hdf5Recording, UnwritableDestinationIsOutputError) {
  TempDir dir;
  auto rec = makeRecording(13);
  const std::string plainFile = dir.file("plain");
  std::ofstream(plainFile) << "x";
  // A path below a regular file and a path in a folder that does not exist fail even for root.
  EXPECT_THROW(writeH5(*rec, plainFile + "/out.h5"), OutputError);
  EXPECT_THROW(writeH5(*rec, dir.file("no/such/folder/out.h5")), OutputError);
  if (::geteuid() != 0) {
    const std::string ro = dir.file("readonly");
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(writeH5(*rec, ro + "/out.h5"), OutputError);
    fs::permissions(ro, fs::perms::owner_all);
  }
}

TEST(Hdf5Recording, ExistingFileIsReplacedOnlyWhenTheNewOneIsComplete) {
  TempDir dir;
  const std::string path = dir.file("replace.h5");
  auto first = makeRecording(14);
  writeH5(*first, path);
  auto second = makeRecording(15, 600.0);
  std::stop_source stop;
  int calls = 0;
  JobContext ctx(stop.get_token(), [&](double, std::string_view) {
    if (++calls == 2) stop.request_stop();
  });
  EXPECT_THROW(writeRecording(*second, path, OutputFormat::Hdf5, makeProvenance(), ctx), Cancelled);
  auto still = openHdf5Recording(path);  // the old file is intact
  expectSameSamples(*first, *still);
  writeH5(*second, path);
  auto now = openHdf5Recording(path);
  expectSameSamples(*second, *now);
}

TEST(OutputFormat, FollowsTheExtension) {
  EXPECT_EQ(outputFormatForPath("a/b.h5"), OutputFormat::Hdf5);
  EXPECT_EQ(outputFormatForPath("B.HDF5"), OutputFormat::Hdf5);
  EXPECT_EQ(outputFormatForPath("x.edf"), OutputFormat::EdfPlus);
  EXPECT_EQ(outputFormatForPath("/tmp/x.y/Z.BDF"), OutputFormat::BdfPlus);
  EXPECT_THROW(outputFormatForPath("x.txt"), InvalidParameterError);
  EXPECT_THROW(outputFormatForPath("noext"), InvalidParameterError);
  EXPECT_THROW(outputFormatForPath("dir.h5/file"), InvalidParameterError);
}

}  // namespace
}  // namespace modescope
