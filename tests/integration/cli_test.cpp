// modescope-cli end to end: the binary at MODESCOPE_CLI runs as a child process, and its stdout,
// stderr and exit code are checked against facts nobody here computed:
//   - the PhysioNet EEG Motor Movement/Imagery recording S001R03 (tests/data) is documented as
//     64 EEG channels at 160 Hz; run 3 lasts 125 s and holds 30 T0/T1/T2 events;
//   - MNE-Python (Debian's python3-mne, /usr/bin/python3) reads the same files independently;
//   - the exit codes and behaviour promised in docs/cli.md.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "app/core/channel_selection.h"
#include "app/core/json_writer.h"
#include "app/core/recording_selection.h"
#include "engine/core/error.h"
#include "tests/integration/cli_support.h"

namespace {

namespace fs = std::filesystem;

using modescope::cli_support::Child;
using modescope::cli_support::describe;
using modescope::cli_support::runCli;
using modescope::cli_support::RunResult;

const std::string kData = MODESCOPE_TEST_DATA;
const std::string kPhysionet = kData + "/physionet_eegmmidb_S001R03.edf";

// ---------------------------------------------------------------------------------------------
// A strict JSON reader (RFC 8259): the CLI's --json output must parse, so anything malformed
// throws.

struct Json;
using JsonObject = std::map<std::string, Json>;
using JsonArray = std::vector<Json>;
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, JsonArray, JsonObject> v;
  bool isNull() const { return std::holds_alternative<std::nullptr_t>(v); }
  double num() const { return std::get<double>(v); }
  const std::string& str() const { return std::get<std::string>(v); }
  const JsonArray& arr() const { return std::get<JsonArray>(v); }
  const JsonObject& obj() const { return std::get<JsonObject>(v); }
  const Json& operator[](const std::string& k) const {
    auto it = obj().find(k);
    if (it == obj().end()) throw std::runtime_error("JSON: no key '" + k + "'");
    return it->second;
  }
  const Json& operator[](std::size_t i) const { return arr().at(i); }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json parseDocument() {
    Json j = parseValue();
    skipSpace();
    if (i_ != s_.size()) fail("text after the JSON value");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
  }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool consume(const char* lit) {
    const std::size_t n = std::char_traits<char>::length(lit);
    if (s_.compare(i_, n, lit) != 0) return false;
    i_ += n;
    return true;
  }
  Json parseValue() {
    skipSpace();
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') return parseObject();
    if (c == '[') return parseArray();
    if (c == '"') return Json{parseString()};
    if (consume("null")) return Json{nullptr};
    if (consume("true")) return Json{true};
    if (consume("false")) return Json{false};
    return Json{parseNumber()};
  }
  Json parseObject() {
    ++i_;
    JsonObject o;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == '}') return ++i_, Json{o};
    while (true) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key");
      std::string k = parseString();
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':'");
      ++i_;
      if (o.count(k)) fail("duplicate key '" + k + "'");
      o[k] = parseValue();
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, Json{o};
      fail("expected ',' or '}'");
    }
  }
  Json parseArray() {
    ++i_;
    JsonArray a;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == ']') return ++i_, Json{a};
    while (true) {
      a.push_back(parseValue());
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, Json{a};
      fail("expected ',' or ']'");
    }
  }
  std::string parseString() {
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const unsigned cp = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp < 0x80)
            out += static_cast<char>(cp);
          else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  double parseNumber() {
    const std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    auto digits = [&] {
      const std::size_t b = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ - b;
    };
    if (digits() == 0) fail("expected a value");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0) fail("digits expected after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) fail("digits expected in the exponent");
    }
    return std::stod(s_.substr(start, i_ - start));
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

Json parseJson(const std::string& text) { return JsonParser(text).parseDocument(); }

// ---------------------------------------------------------------------------------------------
// MNE-Python as the independent reader. Returns its stdout, or nullopt when Python or MNE is
// missing (the caller skips with that reason).

std::optional<std::string> runPython(const std::string& script, std::string* why) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) {
    *why = "no /usr/bin/python3";
    return std::nullopt;
  }
  const std::string path =
      (fs::temp_directory_path() / ("modescope-cli-test-" + std::to_string(getpid()) + ".py"))
          .string();
  std::ofstream(path) << script;
  const std::string cmd = std::string(python) + " " + path + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p.get())) out += buf;
  const int status = p ? pclose(p.release()) : -1;
  fs::remove(path);
  if (out.find("No module named 'mne'") != std::string::npos) {
    *why = "python3-mne is not installed";
    return std::nullopt;
  }
  if (status != 0) {
    *why = "python failed: " + out;
    return std::nullopt;
  }
  return out;
}

bool haveCudaDevice() {
  const RunResult r = runCli({"backends", "--json"});
  if (r.exitCode != 0) return false;
  const Json j = parseJson(r.out);
  for (const Json& b : j["backends"].arr()) {
    if (b["name"].str() == "cuda") return std::get<bool>(b["available"].v);
  }
  return false;
}

// The provenance group of a ModeScope HDF5 file (docs/hdf5-schema.md), read with h5py and
// handed back as JSON: its attributes plus "parameters": [[name, value], ...].
std::optional<Json> provenanceOf(const std::string& h5, std::string* why) {
  const auto out = runPython(
      "import json\n"
      "try:\n"
      "    import h5py\n"
      "except ImportError:\n"
      "    print('No module named h5py'); raise SystemExit(0)\n"
      "with h5py.File('" +
          h5 +
          "', 'r') as f:\n"
          "    p = f['provenance']\n"
          "    d = {k: (v.decode() if isinstance(v, bytes) else v if isinstance(v, str) else "
          "float(v)) for k, v in p.attrs.items()}\n"
          "    d['parameters'] = [list(x) for x in zip(p['parameter_name'].asstr()[...].tolist(), "
          "p['parameter_value'].asstr()[...].tolist())]\n"
          "    print(json.dumps(d))\n",
      why);
  if (!out) return std::nullopt;
  if (out->find("No module named h5py") != std::string::npos) {
    *why = "python3-h5py is not installed";
    return std::nullopt;
  }
  return parseJson(*out);
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/modescope-cli-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  std::vector<std::string> listDir() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    return names;
  }
  Json infoJson(const std::string& file) {
    const RunResult r = runCli({"info", file, "--json"});
    EXPECT_EQ(r.exitCode, 0) << describe(r);
    return parseJson(r.out);
  }
  std::string dir_;
};

// Tests that read EDF/BDF files or write EDF need the EDFlib and BioSig readers, which a headless
// GPU-server build may lack.
#if defined(MODESCOPE_HAVE_EDFLIB) && defined(MODESCOPE_HAVE_BIOSIG)
#define REQUIRE_EDF_READERS() (void)0
#else
#define REQUIRE_EDF_READERS()                                                                \
  GTEST_SKIP() << "this build lacks EDFlib or BioSig (libedf-dev, libbiosig-dev): this CLI " \
                  "check did NOT run"
#endif

// The sample period of the PhysioNet file: durations may differ by one sample at most.
constexpr double kOneSample = 1.0 / 160.0;

// ---------------------------------------------------------------------------------------------
// help, version, usage errors

TEST_F(CliTest, MainHelpListsCommandsAndExitCodes) {
  const RunResult r = runCli({"--help"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  for (const char* cmd : {"info", "convert", "filter", "synth", "demo", "backends"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + cmd + " "), std::string::npos) << cmd;
  }
  EXPECT_EQ(r.out.find("biosig-import"), std::string::npos) << "internal command is hidden";
  EXPECT_NE(r.out.find("130"), std::string::npos);
}

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const char* cmd :
       {"info", "convert", "filter", "synth", "demo", "backends", "biosig-import"}) {
    const RunResult r = runCli({cmd, "--help"});
    EXPECT_EQ(r.exitCode, 0) << cmd << describe(r);
    EXPECT_NE(r.out.find(std::string("Usage: modescope-cli ") + cmd), std::string::npos) << cmd;
  }
  const RunResult h = runCli({"help", "filter"});
  EXPECT_EQ(h.exitCode, 0);
  EXPECT_NE(h.out.find("--reference"), std::string::npos);
}

TEST_F(CliTest, VersionPrintsTheProjectVersion) {
  const RunResult r = runCli({"--version"});
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.rfind("modescope-cli 0.", 0), 0u) << r.out;
}

TEST_F(CliTest, UsageMistakesExitWithOne) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {"frobnicate"},
           {"--frobnicate"},
           {"info", "--bogus", kPhysionet},
           {"info"},
           {"convert", kPhysionet},                               // no -o
           {"convert", kPhysionet, "-o"},                         // -o without a value
           {"convert", kPhysionet, "-o", path("a.h5"), "extra"},  // two inputs
           {"convert", kPhysionet, "-o", path("a.xyz")},          // unknown extension
           {"convert", kPhysionet, "-o", path("a.h5"), "--start", "abc"},
           {"convert", kPhysionet, "-o", path("a.h5"), "--duration", "0"},
           {"filter", kPhysionet, "-o", path("a.h5")},  // nothing to do
           {"synth", "-o", path("a.h5"), "--line-noise", "55"},
           {"synth", "-o", path("a.h5"), "--channels", "many"},
           {"demo", "--backend", "quantum"},
       }) {
    const RunResult r = runCli(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exitCode, 1) << joined << describe(r);
    EXPECT_NE(r.err.find("modescope-cli: error: "), std::string::npos) << joined << r.err;
    EXPECT_TRUE(r.out.empty()) << joined << r.out;
  }
  EXPECT_TRUE(listDir().empty()) << "usage errors must not create files";
}

// ---------------------------------------------------------------------------------------------
// info

TEST_F(CliTest, InfoHumanSummaryOfPhysionetRecording) {
  REQUIRE_EDF_READERS();
  const RunResult r = runCli({"info", kPhysionet});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("Channels:    64 (EEG 64)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("160 Hz (64 channels)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Duration:    125 s (0:02:05)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Annotations: 30"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("25 more"), std::string::npos) << "5 shown, the rest counted";
  const RunResult all = runCli({"info", kPhysionet, "--annotations", "--channels-table"});
  ASSERT_EQ(all.exitCode, 0) << describe(all);
  EXPECT_EQ(all.out.find("more (--annotations"), std::string::npos);
  EXPECT_NE(all.out.find("Channel table:"), std::string::npos);
}

TEST_F(CliTest, InfoJsonMatchesMne) {
  REQUIRE_EDF_READERS();
  const Json j = infoJson(kPhysionet);
  EXPECT_EQ(j["info_version"].num(), 1);
  EXPECT_EQ(j["file"].str(), kPhysionet);
  EXPECT_EQ(j["channel_count"].num(), 64);
  ASSERT_EQ(j["channels"].arr().size(), 64u);
  for (const Json& c : j["channels"].arr()) {
    EXPECT_EQ(c["sample_rate"].num(), 160.0);
    EXPECT_EQ(c["samples"].num(), 20000.0);
    EXPECT_FALSE(c["label"].str().empty());
    EXPECT_EQ(c["type"].str(), "EEG");
  }
  EXPECT_NEAR(j["duration_s"].num(), 125.0, kOneSample);
  ASSERT_EQ(j["annotations"].arr().size(), 30u);
  EXPECT_EQ(j["annotation_count"].num(), 30);
#ifdef MODESCOPE_HAVE_BIOSIG
  // EDFlib refuses this file (docs: reference-behaviour); the BioSig fallback must be reported.
  bool warned = false;
  for (const Json& d : j["diagnostics"].arr()) warned |= d["severity"].str() == "warning";
  EXPECT_TRUE(warned) << "the reader fallback is a warning in diagnostics";
#endif

  std::string why;
  const auto mne = runPython(
      "import mne\n"
      "r = mne.io.read_raw_edf('" +
          kPhysionet +
          "', preload=False, verbose='error')\n"
          "print(len(r.ch_names), r.info['sfreq'], r.n_times)\n"
          "print('|'.join(r.ch_names))\n"
          "for a in r.annotations: print(repr(float(a['onset'])), repr(float(a['duration'])), "
          "a['description'])\n",
      &why);
  if (!mne) GTEST_SKIP() << "MNE cross-check skipped: " << why;
  std::istringstream in(*mne);
  int nch = 0;
  double sfreq = 0, ntimes = 0;
  in >> nch >> sfreq >> ntimes;
  EXPECT_EQ(nch, 64);
  EXPECT_EQ(sfreq, 160.0);
  EXPECT_NEAR(j["duration_s"].num(), ntimes / sfreq, 1e-9);
  std::string names;
  std::getline(in >> std::ws, names);
  std::vector<std::string> mneNames;
  for (std::size_t b = 0, e; b <= names.size(); b = e + 1) {
    e = names.find('|', b);
    if (e == std::string::npos) e = names.size();
    mneNames.push_back(names.substr(b, e - b));
  }
  ASSERT_EQ(mneNames.size(), 64u);
  for (std::size_t i = 0; i < 64; ++i) {
    // MNE strips trailing dots and spaces like ModeScope's label trimming only in part; compare
    // the alphanumeric core.
    auto core = [](std::string s) {
      std::string r;
      for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c))) r += c;
      return r;
    };
    EXPECT_EQ(core(j["channels"][i]["label"].str()), core(mneNames[i])) << i;
  }
  for (std::size_t k = 0; k < 30; ++k) {
    double onset = 0, duration = 0;
    std::string text;
    in >> onset >> duration >> text;
    const Json& a = j["annotations"][k];
    // EDF+ TAL onsets are decimal text; both readers parse the same digits: 1 us tolerance
    // covers float/double parsing only.
    EXPECT_NEAR(a["onset"].num(), onset, 1e-6) << k;
    EXPECT_NEAR(a["duration"].num(), duration, 1e-6) << k;
    EXPECT_EQ(a["text"].str(), text) << k;
  }
}

TEST_F(CliTest, InfoOnSeveralFilesGivesAnArrayAndReportsTheBadOne) {
  REQUIRE_EDF_READERS();
  const std::string missing = path("does-not-exist.edf");
  const RunResult r = runCli({"info", "--json", kPhysionet, missing, kData + "/mne_test.edf"});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("does-not-exist.edf"), std::string::npos) << r.err;
  const Json j = parseJson(r.out);
  ASSERT_EQ(j.arr().size(), 2u);
  EXPECT_EQ(j[0]["file"].str(), kPhysionet);
  EXPECT_EQ(j[1]["file"].str(), kData + "/mne_test.edf");
}

TEST_F(CliTest, DemoRunsHeadlessAndReportsBackendAndTiming) {
  REQUIRE_EDF_READERS();
  const RunResult r = runCli({"demo", "--json", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const Json j = parseJson(r.out);
  EXPECT_EQ(j["input"]["channel_count"].num(), 64);
  EXPECT_NEAR(j["input"]["duration_s"].num(), 125.0, kOneSample);
  EXPECT_EQ(j["backend"]["kind"].str(), "cpu");
  EXPECT_NE(j["backend"]["description"].str().find("CPU"), std::string::npos);
  EXPECT_EQ(j["preprocess"]["channels"].num(), 64);
  EXPECT_EQ(j["preprocess"]["samples_per_channel"].num(), 20000);
  EXPECT_GT(j["preprocess"]["wall_s"].num(), 0.0);
  EXPECT_TRUE(j["output"].isNull());

  const RunResult human = runCli({"demo", "--quiet"});
  ASSERT_EQ(human.exitCode, 0) << describe(human);
  EXPECT_NE(human.out.find("Backend:"), std::string::npos);
  EXPECT_NE(human.out.find("PhysioNet"), std::string::npos) << "attribution is shown";
  EXPECT_TRUE(human.err.empty()) << "--quiet: " << human.err;
}

// ---------------------------------------------------------------------------------------------
// convert

TEST_F(CliTest, ConvertToHdf5AndEdfPreservesChannelsDurationAndAnnotations) {
  REQUIRE_EDF_READERS();
  const Json original = infoJson(kPhysionet);
  for (const char* name : {"out.h5", "out.edf", "out.bdf"}) {
    const RunResult r = runCli({"convert", kPhysionet, "-o", path(name)});
    ASSERT_EQ(r.exitCode, 0) << name << describe(r);
    const Json j = infoJson(path(name));
    EXPECT_EQ(j["channel_count"].num(), 64) << name;
    EXPECT_NEAR(j["duration_s"].num(), original["duration_s"].num(), kOneSample) << name;
    EXPECT_EQ(j["annotation_count"].num(), 30) << name;
    for (std::size_t i = 0; i < 64; ++i) {
      EXPECT_EQ(j["channels"][i]["name"].str(), original["channels"][i]["name"].str()) << name;
      EXPECT_EQ(j["channels"][i]["sample_rate"].num(), 160.0) << name;
    }
    for (std::size_t k = 0; k < 30; ++k) {
      // EDF+ writes onsets in 100 us units (EDFlib): allow that resolution.
      EXPECT_NEAR(j["annotations"][k]["onset"].num(), original["annotations"][k]["onset"].num(),
                  1e-4)
          << name << " annotation " << k;
      EXPECT_EQ(j["annotations"][k]["text"].str(), original["annotations"][k]["text"].str());
    }
  }
  // Only the three outputs: no temporary files left behind.
  EXPECT_EQ(listDir().size(), 3u);
}

TEST_F(CliTest, ConvertSelectionCutsChannelsAndTime) {
  REQUIRE_EDF_READERS();
  const Json original = infoJson(kPhysionet);
  const RunResult r = runCli({"convert", kPhysionet, "-o", path("cut.h5"), "--channels",
                              "C3,C4,Cz,1-2", "--start", "10", "--duration", "20", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_TRUE(r.out.empty() && r.err.empty()) << "--quiet: " << describe(r);
  const Json j = infoJson(path("cut.h5"));
  ASSERT_EQ(j["channel_count"].num(), 5);
  const std::vector<std::string> expected = {"C3", "C4", "Cz",
                                             original["channels"][0]["name"].str(),
                                             original["channels"][1]["name"].str()};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(j["channels"][i]["name"].str(), expected[i]);
  EXPECT_NEAR(j["duration_s"].num(), 20.0, kOneSample);
  // The header says 12.08.09 16.15.00 (MNE's meas_date agrees); the cut starts 10 s later.
  ASSERT_EQ(original["start_time"].str(), "2009-08-12T16:15:00");
  EXPECT_EQ(j["start_time"].str(), "2009-08-12T16:15:10");
  // The rule in docs/cli.md: annotations with onset in [start, start + duration), shifted.
  std::vector<std::pair<double, std::string>> kept;
  for (const Json& a : original["annotations"].arr()) {
    if (a["onset"].num() >= 10.0 && a["onset"].num() < 30.0) {
      kept.emplace_back(a["onset"].num() - 10.0, a["text"].str());
    }
  }
  ASSERT_EQ(j["annotations"].arr().size(), kept.size());
  for (std::size_t k = 0; k < kept.size(); ++k) {
    EXPECT_NEAR(j["annotations"][k]["onset"].num(), kept[k].first, 1e-6);
    EXPECT_EQ(j["annotations"][k]["text"].str(), kept[k].second);
  }
}

// The quantisation step of every channel of an EDF/BDF file as MNE reads it (volts): the
// smallest difference between distinct sample values (exact for files that use many codes).
const char* kPythonSteps =
    "import mne, numpy as np\n"
    "def steps(x):\n"
    "    out = []\n"
    "    for row in x:\n"
    "        d = np.diff(np.unique(row))\n"
    "        out.append(d[d > 0].min() if (d > 0).any() else 0.0)\n"
    "    return np.array(out)\n";

TEST_F(CliTest, ConvertKeepsSamplesAsMneReadsThem) {
  REQUIRE_EDF_READERS();
  // physionet -> HDF5 -> EDF+ through the CLI, then MNE reads the original and the result: each
  // sample may move by at most the re-encoding's half step plus the original's step (the writer
  // may choose a different physical range, hence a different grid), never more.
  ASSERT_EQ(runCli({"convert", kPhysionet, "-o", path("a.h5"), "-q"}).exitCode, 0);
  const RunResult r = runCli({"convert", path("a.h5"), "-o", path("b.edf"), "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::string why;
  const auto out = runPython(std::string(kPythonSteps) + "a = mne.io.read_raw_edf('" + kPhysionet +
                                 "', preload=True, verbose='error')\n"
                                 "b = mne.io.read_raw_edf('" +
                                 path("b.edf") +
                                 "', preload=True, verbose='error')\n"
                                 "x, y = a.get_data(), b.get_data()\n"
                                 "print(x.shape[0], y.shape[0], x.shape[1], y.shape[1])\n"
                                 "n = min(x.shape[1], y.shape[1])\n"
                                 "err = np.abs(x[:, :n] - y[:, :n]).max(axis=1)\n"
                                 "print(float((err / (steps(x) + steps(y))).max()))\n"
                                 "print(float(np.abs(x).max()))\n",
                             &why);
  if (!out) GTEST_SKIP() << "MNE cross-check skipped: " << why;
  std::istringstream in(*out);
  int na = 0, nb = 0, ta = 0, tb = 0;
  double errInSteps = -1, peak = 0;
  in >> na >> nb >> ta >> tb >> errInSteps >> peak;
  EXPECT_EQ(na, 64);
  EXPECT_EQ(nb, 64);
  EXPECT_EQ(ta, tb);
  EXPECT_GT(peak, 0.0) << "not comparing zeros";
  EXPECT_GE(errInSteps, 0.0) << *out;
  EXPECT_LE(errInSteps, 1.0) << *out;
}

// A run with "auto" on a machine without a usable GPU says in its file why it ran on the CPU.
TEST_F(CliTest, AnAutoFallbackIsRecordedInTheProvenance) {
  REQUIRE_EDF_READERS();
  const RunResult r =
      runCli({"filter", kPhysionet, "-o", path("auto.h5"), "--filter", "bandpass:1-40",
              "--channels", "1-2", "--duration", "5", "--backend", "auto"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::string why;
  const auto prov = provenanceOf(path("auto.h5"), &why);
  if (!prov) GTEST_SKIP() << "provenance check skipped: " << why;
  const std::string backend = (*prov)["backend"].str();
  if (backend.rfind("GPU: ", 0) == 0) GTEST_SKIP() << "this machine has a usable GPU: " << backend;
  EXPECT_NE(backend.find("(auto: no usable GPU ("), std::string::npos) << backend;
}

// ---------------------------------------------------------------------------------------------
// filter

TEST_F(CliTest, FilterWritesResultWithProvenance) {
  REQUIRE_EDF_READERS();
  const RunResult r = runCli({"filter", kPhysionet, "-o", path("f.h5"), "--filter", "bandpass:1-40",
                              "--filter", "notch:60", "--reference", "average", "--channels", "1-8",
                              "--start", "5", "--duration", "30", "--backend", "cpu"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  EXPECT_NE(r.out.find("CPU"), std::string::npos) << "names the backend: " << r.out;
  const Json j = infoJson(path("f.h5"));
  EXPECT_EQ(j["channel_count"].num(), 8);
  EXPECT_NEAR(j["duration_s"].num(), 30.0, kOneSample);
  std::string why;
  const auto prov = provenanceOf(path("f.h5"), &why);
  if (!prov) GTEST_SKIP() << "provenance check skipped: " << why;
  const Json& p = *prov;
  EXPECT_EQ(p["method"].str(), "preprocess");
  EXPECT_EQ(p["input_file"].str(), kPhysionet);
  EXPECT_NE(p["backend"].str().find("CPU"), std::string::npos) << p["backend"].str();
  EXPECT_EQ(p["software_version"].str().rfind("ModeScope 0.", 0), 0u);
  EXPECT_NE(p["selection"].str().find("5-35 s"), std::string::npos) << p["selection"].str();
  EXPECT_GT(p["wall_seconds"].num(), 0.0);
  EXPECT_EQ(p["created_at"].str().size(), 20u) << "ISO 8601 UTC: " << p["created_at"].str();
  std::string params;
  for (const Json& kv : p["parameters"].arr()) params += kv[0].str() + "=" + kv[1].str() + "; ";
  for (const char* needle : {"40", "60", "average"}) {
    EXPECT_NE(params.find(needle), std::string::npos)
        << "parameters lack " << needle << ": " << params;
  }
}

TEST_F(CliTest, ConvertAndSynthRecordTheirProvenance) {
  REQUIRE_EDF_READERS();
  ASSERT_EQ(runCli({"convert", kPhysionet, "-o", path("c.h5"), "--channels", "Cz", "-q"}).exitCode,
            0);
  ASSERT_EQ(
      runCli({"synth", "-o", path("s.h5"), "--duration", "4", "--seed", "12345", "-q"}).exitCode,
      0);
  std::string why;
  const auto c = provenanceOf(path("c.h5"), &why);
  if (!c) GTEST_SKIP() << "provenance check skipped: " << why;
  EXPECT_EQ((*c)["method"].str(), "convert");
  EXPECT_EQ((*c)["input_file"].str(), kPhysionet);
  EXPECT_NE((*c)["selection"].str().find("Cz"), std::string::npos) << (*c)["selection"].str();
  const auto s = provenanceOf(path("s.h5"), &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ((*s)["method"].str(), "synth");
  EXPECT_EQ((*s)["seed"].str(), "12345");
}

TEST_F(CliTest, FilteredSamplesAreAverageReferencedAndZeroMean) {
  REQUIRE_EDF_READERS();
  // Closed-form checks MNE can make on the EDF output. After an average reference over all
  // channels the channels sum to zero at every sample, and filtering (linear, the same on every
  // channel) keeps that; the EDF re-encoding moves each channel by at most half its step, so the
  // sum may reach half the sum of the steps. A 1-40 Hz band-pass removes the mean: what is left
  // over 125 s is leakage from the transition band (0-1 Hz, attenuated), bounded well below
  // 2 % of the RMS. And MNE's own average reference + filter_data(1, 40) (same FIR design rules,
  // docs: engine/dsp/preprocess.h) on the original must agree: 0.5 % of the RMS is far below
  // what a wrong band, a missing reference or a phase shift would give (tens of percent) and
  // above float32 arithmetic plus the EDF steps (measured 0.04 %).
  const RunResult r = runCli({"filter", kPhysionet, "-o", path("f.edf"), "--filter",
                              "bandpass:1-40", "--reference", "average", "--backend", "cpu", "-q"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  std::string why;
  const auto out = runPython(
      std::string(kPythonSteps) + "b = mne.io.read_raw_edf('" + path("f.edf") +
          "', preload=True, verbose='error')\n"
          "y = b.get_data()\n"
          "rms = np.sqrt((y ** 2).mean())\n"
          "a = mne.io.read_raw_edf('" +
          kPhysionet +
          "', preload=True, verbose='error').get_data()\n"
          "ref = mne.filter.filter_data(a - a.mean(axis=0), 160.0, 1.0, 40.0, verbose='error')\n"
          "print(y.shape[0], float(np.abs(y.sum(axis=0)).max() / (0.5 * steps(y).sum())), "
          "float(np.abs(y.mean(axis=1)).max() / rms), float(rms), "
          "float(np.abs(ref - y).max() / rms) if ref.shape == y.shape else 1e9)\n",
      &why);
  if (!out) GTEST_SKIP() << "MNE cross-check skipped: " << why;
  std::istringstream in(*out);
  int n = 0;
  double sumInSteps = -1, meanOverRms = -1, rms = 0, mneErrOverRms = -1;
  in >> n >> sumInSteps >> meanOverRms >> rms >> mneErrOverRms;
  EXPECT_EQ(n, 64);
  EXPECT_GT(rms, 0.0) << "not comparing zeros";
  EXPECT_LE(sumInSteps, 1.0) << *out;
  EXPECT_LE(meanOverRms, 0.02) << *out;
  EXPECT_GE(mneErrOverRms, 0.0) << *out;
  EXPECT_LE(mneErrOverRms, 0.005) << *out;
}

TEST_F(CliTest, BadFilterSpecExitsWithOne) {
  REQUIRE_EDF_READERS();
  for (const char* spec : {"bandpass:40-1", "bandpass:1", "lowpass:abc", "wobble:3"}) {
    const RunResult r = runCli({"filter", kPhysionet, "-o", path("f.h5"), "--filter", spec});
    EXPECT_EQ(r.exitCode, 1) << spec << describe(r);
    EXPECT_NE(r.err.find("modescope-cli: error: "), std::string::npos) << r.err;
  }
  // An edge above Nyquist (80 Hz here) is found once the file is open: still a parameter error.
  const RunResult r = runCli({"filter", kPhysionet, "-o", path("f.h5"), "--filter", "lowpass:100"});
  EXPECT_EQ(r.exitCode, 1) << describe(r);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(CliTest, CudaBackendWithoutGpuExitsWithThree) {
  if (haveCudaDevice()) GTEST_SKIP() << "this machine has a usable CUDA device";
  const RunResult r = runCli(
      {"filter", kPhysionet, "-o", path("f.h5"), "--filter", "bandpass:1-40", "--backend", "cuda"});
  EXPECT_EQ(r.exitCode, 3) << describe(r);
  EXPECT_NE(r.err.find("modescope-cli: error: "), std::string::npos);
  EXPECT_EQ(runCli({"demo", "--backend", "cuda", "-q"}).exitCode, 3);
  EXPECT_TRUE(listDir().empty());
}

TEST_F(CliTest, BackendsListsCpuAndWhatAutoPicks) {
  const RunResult r = runCli({"backends", "--json"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const Json j = parseJson(r.out);
  ASSERT_EQ(j["backends"].arr().size(), 2u);
  EXPECT_EQ(j["backends"][0]["name"].str(), "cpu");
  EXPECT_TRUE(std::get<bool>(j["backends"][0]["available"].v));
  const bool gpu = std::get<bool>(j["backends"][1]["available"].v);
  EXPECT_EQ(j["auto"].str(), gpu ? "cuda" : "cpu");
}

// ---------------------------------------------------------------------------------------------
// synth

TEST_F(CliTest, SynthThenInfo) {
  REQUIRE_EDF_READERS();
  const RunResult r =
      runCli({"synth", "-o", path("s.h5"), "--channels", "19", "--rate", "128", "--duration", "10",
              "--sources", "3", "--mixing", "random", "--line-noise", "60", "--seed", "7"});
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const Json j = infoJson(path("s.h5"));
  EXPECT_EQ(j["channel_count"].num(), 19);
  EXPECT_NEAR(j["duration_s"].num(), 10.0, 1.0 / 128);
  for (const Json& c : j["channels"].arr()) EXPECT_EQ(c["sample_rate"].num(), 128.0);
  const RunResult edf =
      runCli({"synth", "-o", path("s.edf"), "--channels", "32", "--duration", "5", "-q"});
  ASSERT_EQ(edf.exitCode, 0) << describe(edf);
  EXPECT_EQ(infoJson(path("s.edf"))["channel_count"].num(), 32);
}

// ---------------------------------------------------------------------------------------------
// input and output errors

TEST_F(CliTest, NonexistentInputExitsWithTwo) {
  for (const std::string& cmd : std::vector<std::string>{"info", "convert", "filter"}) {
    std::vector<std::string> args = {cmd, path("missing.edf")};
    if (cmd != "info") args.insert(args.end(), {"-o", path("out.h5")});
    if (cmd == "filter") args.insert(args.end(), {"--filter", "highpass:1"});
    const RunResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << cmd << describe(r);
    EXPECT_NE(r.err.find("missing.edf"), std::string::npos) << "the message names the file";
  }
  EXPECT_TRUE(listDir().empty());
}

TEST_F(CliTest, GarbageInputExitsWithTwo) {
  std::ofstream(path("garbage.edf")) << "this is not an EDF file at all";
  const RunResult r = runCli({"info", path("garbage.edf")});
  EXPECT_EQ(r.exitCode, 2) << describe(r);
}

TEST_F(CliTest, UnwritableOutputExitsWithTwoAndLeavesNothing) {
  // A folder that does not exist, and a "folder" that is a file: caught before any work.
  std::ofstream(path("plainfile")) << "x";
  for (const std::string& out : {path("no/such/folder/out.h5"), path("plainfile/out.h5")}) {
    const RunResult r = runCli({"convert", kPhysionet, "-o", out});
    EXPECT_EQ(r.exitCode, 2) << out << describe(r);
  }
  if (geteuid() != 0) {
    // A read-only folder (root ignores the mode bits, so only as another user).
    fs::create_directory(path("ro"));
    fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    const RunResult r = runCli({"convert", kPhysionet, "-o", path("ro/out.h5")});
    EXPECT_EQ(r.exitCode, 2) << describe(r);
    EXPECT_TRUE(fs::is_empty(path("ro")));
    fs::permissions(path("ro"), fs::perms::owner_all);
  }
  // sysfs refuses new files even to root, so this reaches the writer itself.
  if (fs::is_directory("/sys")) {
    const RunResult r = runCli({"convert", kPhysionet, "-o", "/sys/modescope-cli-test.h5"});
    EXPECT_EQ(r.exitCode, 2) << describe(r);
    for (const auto& e : fs::directory_iterator("/sys")) {
      EXPECT_EQ(e.path().filename().string().find("modescope-cli-test"), std::string::npos);
    }
  }
  const std::vector<std::string> left = listDir();
  EXPECT_EQ(left, std::vector<std::string>{"plainfile"});
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C

TEST_F(CliTest, InterruptDuringLongSynthExitsWith130AndLeavesNoOutput) {
  // Big enough to take many seconds on a 2-core CI machine (64 channels x 1200 s at 512 Hz,
  // 157 MB of float32), so the signal arrives while the job runs.
  Child child(
      {"synth", "-o", path("long.h5"), "--channels", "64", "--rate", "512", "--duration", "1200"});
  // Progress lines on a non-terminal stderr: the first one means the job started.
  ASSERT_TRUE(child.waitForStderr("synth:")) << "no progress line: " << child.stderrSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  double stopSeconds = 0;
  const RunResult r = child.interrupt(&stopSeconds);
  ASSERT_NE(r.exitCode, 0) << "finished before the interrupt arrived; make the job longer";
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  EXPECT_NE(r.err.find("cancelled"), std::string::npos) << r.err;
  // Checkpoints come every ~100 ms of work; 10 s leaves room for a loaded CI machine.
  EXPECT_LT(stopSeconds, 10.0);
  EXPECT_TRUE(listDir().empty()) << "no output and no temporary file may remain";
}

TEST_F(CliTest, InterruptDuringConvertExitsWith130AndLeavesNoOutput) {
  REQUIRE_EDF_READERS();
  ASSERT_EQ(runCli({"synth", "-o", path("big.h5"), "--channels", "64", "--rate", "512",
                    "--duration", "600", "-q"})
                .exitCode,
            0);
  Child child({"convert", path("big.h5"), "-o", path("big.edf")});
  child.waitForStderr("convert:");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const RunResult r = child.interrupt();
  ASSERT_NE(r.exitCode, 0) << "finished before the interrupt arrived; make the file longer";
  EXPECT_EQ(r.exitCode, 130) << describe(r);
  EXPECT_EQ(listDir(), std::vector<std::string>{"big.h5"});
}

// ---------------------------------------------------------------------------------------------
// biosig-import (the readers' child process)

TEST_F(CliTest, BiosigImportWritesHdf5OrSaysItIsMissing) {
  const RunResult r = runCli({"biosig-import", kPhysionet, path("imported.h5")});
#ifdef MODESCOPE_HAVE_BIOSIG
  ASSERT_EQ(r.exitCode, 0) << describe(r);
  const Json j = infoJson(path("imported.h5"));
  EXPECT_EQ(j["channel_count"].num(), 64);
  EXPECT_NEAR(j["duration_s"].num(), 125.0, kOneSample);
#else
  EXPECT_EQ(r.exitCode, 2) << describe(r);
  EXPECT_NE(r.err.find("BioSig"), std::string::npos);
#endif
}

// ---------------------------------------------------------------------------------------------
// The app/core pieces behind the CLI, called directly.

TEST(CliCore, JsonWriterOutputParsesBackToTheSameValues) {
  // Every byte class a file label can bring: quotes, backslashes, control characters, valid
  // multi-byte UTF-8, and invalid bytes (which must become U+FFFD, never broken JSON).
  const std::string tricky = std::string("a\"b\\c/d\n\t\x01 \xC2\xB5V \xE2\x82\xAC ") + "\xFF\xC3";
  modescope::JsonWriter w;
  w.beginObject();
  w.field("text", tricky).field("int", -42).field("big", 18446744073709551615ull);
  w.field("tenth", 0.1).field("huge", 1e300).field("tiny", -2.5e-308);
  w.field("nan", std::nan("")).field("yes", true).nullField("none");
  w.key("empty").beginArray().endArray();
  w.key("nested").beginArray().beginObject().endObject().value(3).endArray();
  w.endObject();
  ASSERT_TRUE(w.complete());
  const Json j = parseJson(w.str());
  EXPECT_EQ(j["text"].str(),
            std::string("a\"b\\c/d\n\t\x01 \xC2\xB5V \xE2\x82\xAC ") + "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["int"].num(), -42);
  EXPECT_EQ(j["big"].num(), 18446744073709551615.0);
  EXPECT_EQ(j["tenth"].num(), 0.1) << "shortest round-trip text reads back exactly";
  EXPECT_EQ(j["huge"].num(), 1e300);
  EXPECT_EQ(j["tiny"].num(), -2.5e-308);
  EXPECT_TRUE(j["nan"].isNull()) << "JSON has no NaN";
  EXPECT_TRUE(std::get<bool>(j["yes"].v));
  EXPECT_TRUE(j["none"].isNull());
  EXPECT_TRUE(j["empty"].arr().empty());
  EXPECT_EQ(j["nested"][1].num(), 3);
  // Misuse is a programming error.
  modescope::JsonWriter bad;
  bad.beginObject();
  EXPECT_THROW(bad.value(1), std::logic_error);
  EXPECT_THROW(bad.endArray(), std::logic_error);
}

TEST(CliCore, ShiftIsoDateTimeCarriesAcrossDaysAndKeepsFractions) {
  using modescope::shiftIsoDateTime;
  EXPECT_EQ(shiftIsoDateTime("2009-08-12T16:15:00", 10), "2009-08-12T16:15:10");
  EXPECT_EQ(shiftIsoDateTime("2009-12-31T23:59:59", 1.5), "2010-01-01T00:00:00.5");
  EXPECT_EQ(shiftIsoDateTime("2020-02-28T23:00:00", 3600), "2020-02-29T00:00:00") << "leap year";
  EXPECT_EQ(shiftIsoDateTime("2020-01-24T04:05:56.3945312", 1), "2020-01-24T04:05:57.3945312");
  EXPECT_EQ(shiftIsoDateTime("2020-01-24T04:05:56.75", 0.25), "2020-01-24T04:05:57");
  EXPECT_EQ(shiftIsoDateTime("12.08.09 16.15.00", 1), "");
  EXPECT_EQ(shiftIsoDateTime("", 1), "");
}

modescope::Recording tinyRecording(const std::vector<std::pair<std::string, std::string>>& chs) {
  modescope::Recording rec;
  std::vector<std::vector<float>> data;
  for (const auto& [label, name] : chs) {
    modescope::ChannelInfo c;
    c.label = label;
    c.name = name;
    c.sampleRate = 100;
    c.sampleCount = 1000;
    rec.channels.push_back(c);
    std::vector<float> x(1000);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(rec.channels.size() * 1000 + i);
    data.push_back(std::move(x));
  }
  rec.source = std::make_shared<modescope::InMemorySource>(std::move(data));
  return rec;
}

TEST(CliCore, ChannelSelectionSyntax) {
  const auto rec = tinyRecording(
      {{"EEG Fp1-REF", "Fp1"}, {"EEG Cz-REF", "Cz"}, {"C3-A2", "C3"}, {"1-2", "1-2"}, {"7", "7"}});
  using modescope::parseChannelSelection;
  using V = std::vector<std::size_t>;
  EXPECT_EQ(parseChannelSelection(rec, "cz, fp1"), (V{1, 0})) << "names, any case, order kept";
  EXPECT_EQ(parseChannelSelection(rec, "EEG Cz-REF"), (V{1})) << "labels as stored";
  EXPECT_EQ(parseChannelSelection(rec, "2-3,5"), (V{1, 2, 4})) << "ranges and indices";
  EXPECT_EQ(parseChannelSelection(rec, "1-2"), (V{3})) << "a channel literally labelled 1-2";
  EXPECT_EQ(parseChannelSelection(rec, "C3-A2"), (V{2}));
  EXPECT_EQ(parseChannelSelection(rec, "5"), (V{4})) << "a pure number is an index";
  for (const char* bad : {"", "0", "6", "3-2", "1-9", "Pz", "Cz,,C3", "Cz,2"}) {
    EXPECT_THROW(parseChannelSelection(rec, bad), modescope::InvalidParameterError) << bad;
  }
}

TEST(CliCore, SelectRecordingCutsLazilyWithExactSamples) {
  auto rec = std::make_shared<modescope::Recording>(tinyRecording({{"A", "A"}, {"B", "B"}}));
  rec->channels[1].sampleRate = 12.8;  // 1000 samples at 12.8 Hz: 78.125 s
  rec->channels[1].sampleCount = 1000;
  rec->annotations = {
      {1.0, 0.0, "before"}, {2.0, 0.5, "first"}, {4.99, 0.0, "last"}, {5.0, 0.0, "after"}};
  const auto cut = modescope::selectRecording(rec, {1, 0}, 2.0, 3.0);
  ASSERT_EQ(cut->channelCount(), 2u);
  // Channel B (12.8 Hz): samples round(25.6) = 26 to round(64) = 64; channel A (100 Hz): 200-500.
  EXPECT_EQ(cut->channels[0].name, "B");
  EXPECT_EQ(cut->channels[0].sampleCount, 64 - 26);
  EXPECT_EQ(cut->channels[1].sampleCount, 300);
  EXPECT_EQ(cut->readChannel(0, 0, 1).at(0), 2000.0f + 26) << "B's sample 26";
  EXPECT_EQ(cut->readChannel(1, 299, 1).at(0), 1000.0f + 499) << "A's sample 499";
  ASSERT_EQ(cut->annotations.size(), 2u);
  EXPECT_EQ(cut->annotations[0].text, "first");
  EXPECT_DOUBLE_EQ(cut->annotations[0].onset, 0.0);
  EXPECT_NEAR(cut->annotations[1].onset, 2.99, 1e-12);
  EXPECT_THROW(modescope::selectRecording(rec, {0}, 80.0, 1.0), modescope::InvalidParameterError);
  EXPECT_THROW(modescope::selectRecording(rec, {}, 0.0, 1.0), modescope::InvalidParameterError);
  // 10 ms at 12.8 Hz holds no sample of B: refused, naming the channel.
  EXPECT_THROW(modescope::selectRecording(rec, {1}, 2.0, 0.01), modescope::InvalidParameterError);
}

}  // namespace
