// What openRecording reads from every file in tests/data against what MNE-Python reads
// (tests/tools/mne_summary.py, run with /usr/bin/python3): channels, rates, lengths, samples,
// annotations and trigger events. MNE is an independent reader (its own EDF/BDF parser).
//
// Tolerances:
// - rates: 1e-9 relative (both are samples per record / record duration);
// - duration: one data record (MNE counts n_times at its common rate, channels may end earlier);
// - annotation and trigger onsets and durations: one sample period of the fastest channel
//   (BioSig stores event positions in samples; EDFlib and MNE keep 100 ns);
// - samples: half a quantisation step (physical range / digital range) plus 1e-6 relative for
//   float32 rounding; a sample EDFlib clipped to the physical range counts as agreeing when MNE's
//   (unclipped) value lies beyond it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cli_support.h"
#include "engine/io/recording_io.h"

namespace modescope {
namespace {

// A minimal JSON reader for the summary (objects, arrays, strings, numbers, literals).
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::vector<Json>,
               std::map<std::string, Json>>
      v;
  bool has(const std::string& k) const {
    auto* o = std::get_if<std::map<std::string, Json>>(&v);
    return o && o->count(k);
  }
  const Json& operator[](const std::string& k) const {
    return std::get<std::map<std::string, Json>>(v).at(k);
  }
  const Json& operator[](std::size_t i) const { return std::get<std::vector<Json>>(v).at(i); }
  std::size_t size() const {
    if (auto* a = std::get_if<std::vector<Json>>(&v)) return a->size();
    return std::get<std::map<std::string, Json>>(v).size();
  }
  double num() const { return std::get<double>(v); }
  const std::string& str() const { return std::get<std::string>(v); }
  const std::map<std::string, Json>& obj() const {
    return std::get<std::map<std::string, Json>>(v);
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json parse() {
    Json j = value();
    ws();
    if (i_ != s_.size()) throw std::runtime_error("trailing JSON text");
    return j;
  }

 private:
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    ws();
    if (i_ >= s_.size()) throw std::runtime_error("unexpected end of JSON");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) throw std::runtime_error(std::string("JSON: expected ") + c);
    ++i_;
  }
  Json value() {
    const char c = peek();
    if (c == '{') {
      ++i_;
      std::map<std::string, Json> o;
      if (peek() == '}') return ++i_, Json{o};
      while (true) {
        std::string k = string();
        expect(':');
        o.emplace(std::move(k), value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return Json{std::move(o)};
      }
    }
    if (c == '[') {
      ++i_;
      std::vector<Json> a;
      if (peek() == ']') return ++i_, Json{a};
      while (true) {
        a.push_back(value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return Json{std::move(a)};
      }
    }
    if (c == '"') return Json{string()};
    for (const auto& [word, j] : {std::pair<const char*, Json>{"true", Json{true}},
                                  {"false", Json{false}},
                                  {"null", Json{nullptr}},
                                  {"NaN", Json{std::nan("")}}}) {
      if (s_.compare(i_, std::strlen(word), word) == 0) {
        i_ += std::strlen(word);
        return j;
      }
    }
    std::size_t used = 0;
    const double d = std::stod(s_.substr(i_, 64), &used);
    i_ += used;
    return Json{d};
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        const char e = s_.at(i_++);
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u': {
            const unsigned cp = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
            i_ += 4;
            // Enough for the BMP (surrogate pairs do not occur in these labels).
            if (cp < 0x80) {
              out += static_cast<char>(cp);
            } else if (cp < 0x800) {
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
            out += e;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

const char* kPython = "/usr/bin/python3";

std::string runCapture(const std::string& cmd, int* status) {
  return cli_support::runShellCapture(cmd, status);
}

const std::vector<std::string> kFiles = {"mne_test.bdf",
                                         "mne_test.edf",
                                         "mne_test_uneven_samp.edf",
                                         "physionet_eegmmidb_S001R03.edf",
                                         "pyedflib_test_generator.bdf",
                                         "pyedflib_test_generator.edf",
                                         "pyedflib_test_subsecond.edf"};

class MneAgreement : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    int status = 0;
    runCapture(std::string(kPython) + " -c 'import mne' 2>&1", &status);
    if (status != 0) {
      skipReason_ = new std::string(
          "MNE-Python is not importable by /usr/bin/python3 (install python3-mne): the MNE "
          "agreement checks did NOT run");
      return;
    }
    std::string cmd =
        std::string(kPython) + " " + MODESCOPE_SOURCE_DIR + "/tests/tools/mne_summary.py";
    for (const auto& f : kFiles) cmd += " '" + std::string(MODESCOPE_TEST_DATA) + "/" + f + "'";
    const std::string out = runCapture(cmd + " 2>/dev/null", &status);
    if (status != 0) {
      error_ = new std::string("mne_summary.py failed with status " + std::to_string(status));
      return;
    }
    summary_ = new Json(JsonParser(out).parse());
  }
  static void TearDownTestSuite() {
    delete summary_;
    delete skipReason_;
    delete error_;
    summary_ = nullptr;
    skipReason_ = error_ = nullptr;
  }
  void SetUp() override {
#if !defined(MODESCOPE_HAVE_EDFLIB) || !defined(MODESCOPE_HAVE_BIOSIG)
    GTEST_SKIP() << "this build lacks EDFlib or BioSig (libedf-dev, libbiosig-dev): the MNE "
                    "agreement checks did NOT run";
#endif
    if (skipReason_) GTEST_SKIP() << *skipReason_;
    ASSERT_EQ(error_, nullptr) << *error_;
    ASSERT_NE(summary_, nullptr);
  }
  static const Json& forFile(const std::string& name) {
    for (std::size_t i = 0; i < summary_->size(); ++i) {
      if ((*summary_)[i]["file"].str() == name) return (*summary_)[i];
    }
    throw std::runtime_error("no MNE summary for " + name);
  }

  static Json* summary_;
  static std::string* skipReason_;
  static std::string* error_;
};
Json* MneAgreement::summary_ = nullptr;
std::string* MneAgreement::skipReason_ = nullptr;
std::string* MneAgreement::error_ = nullptr;

std::shared_ptr<const Recording> open(const std::string& name) {
  OpenOptions o;
  o.helperExecutable = MODESCOPE_CLI;
  return openRecording(std::string(MODESCOPE_TEST_DATA) + "/" + name, o);
}

bool isTrigger(const Annotation& a) { return a.text.rfind("trigger ", 0) == 0; }

TEST_F(MneAgreement, ChannelsRatesAndLengths) {
  for (const auto& name : kFiles) {
    SCOPED_TRACE(name);
    const Json& m = forFile(name);
    ASSERT_FALSE(m.has("error")) << m["error"].str();
    const auto rec = open(name);
    ASSERT_EQ(rec->channelCount(), static_cast<std::size_t>(m["n_channels"].num()));
    for (std::size_t c = 0; c < rec->channelCount(); ++c) {
      const auto& ch = rec->channels[c];
      EXPECT_EQ(ch.label, m["ch_names"][c].str());
      EXPECT_NEAR(ch.sampleRate, m["rates"][c].num(), 1e-9 * m["rates"][c].num()) << ch.label;
      EXPECT_EQ(ch.sampleCount, static_cast<int64_t>(m["samples_per_channel"][c].num()))
          << ch.label;
    }
    EXPECT_NEAR(rec->duration(), m["duration"].num(), m["record_length"].num());
  }
}

TEST_F(MneAgreement, Samples) {
  for (const auto& name : kFiles) {
    SCOPED_TRACE(name);
    const Json& m = forFile(name);
    ASSERT_FALSE(m.has("error"));
    const auto rec = open(name);
    int compared = 0;
    for (const auto& [label, d] : m["data"].obj()) {
      const int c = rec->findChannel(label);
      ASSERT_GE(c, 0) << label;
      const auto& ch = rec->channels[static_cast<std::size_t>(c)];
      const double lsb =
          std::abs((ch.physicalMax - ch.physicalMin) / (double(ch.digitalMax) - ch.digitalMin));
      const double top = std::max(ch.physicalMax, ch.physicalMin);
      const double bottom = std::min(ch.physicalMax, ch.physicalMin);
      auto agree = [&](double ours, double mne) {
        const double tol = 0.5 * lsb + 1e-6 * std::max(std::abs(ours), std::abs(mne));
        if (std::abs(ours - mne) <= tol) return true;
        return (std::abs(ours - top) <= tol && mne > top) ||
               (std::abs(ours - bottom) <= tol && mne < bottom);  // EDFlib clipped
      };
      const auto whole = rec->readChannel(static_cast<std::size_t>(c), 0, ch.sampleCount);
      const Json& first = d["first"];
      const Json& last = d["last"];
      for (std::size_t i = 0; i < first.size(); ++i) {
        EXPECT_TRUE(agree(whole[i], first[i].num()))
            << label << " sample " << i << ": " << whole[i] << " vs MNE " << first[i].num();
      }
      for (std::size_t i = 0; i < last.size(); ++i) {
        const std::size_t k = whole.size() - last.size() + i;
        EXPECT_TRUE(agree(whole[k], last[i].num()))
            << label << " sample " << k << ": " << whole[k] << " vs MNE " << last[i].num();
      }
      ++compared;
    }
    EXPECT_GT(compared, 0);
  }
}

TEST_F(MneAgreement, AnnotationsAndTriggerEvents) {
  for (const auto& name : kFiles) {
    SCOPED_TRACE(name);
    const Json& m = forFile(name);
    ASSERT_FALSE(m.has("error"));
    const auto rec = open(name);
    double maxRate = 0;
    for (const auto& c : rec->channels) maxRate = std::max(maxRate, c.sampleRate);
    const double onePeriod = 1.0 / maxRate + 1e-9;
    std::vector<Annotation> ours, triggers;
    for (const auto& a : rec->annotations) (isTrigger(a) ? triggers : ours).push_back(a);
    const Json& ma = m["annotations"];
    ASSERT_EQ(ours.size(), ma.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      EXPECT_NEAR(ours[i].onset, ma[i][0].num(), onePeriod) << ours[i].text;
      EXPECT_NEAR(ours[i].duration, ma[i][1].num(), onePeriod) << ours[i].text;
      EXPECT_EQ(ours[i].text, ma[i][2].str());
    }
    // MNE finds stim channels by the names 'Status'/'Trigger'; every one must match ours.
    std::size_t mneEvents = 0;
    for (const auto& [channel, events] : m["stim"].obj()) {
      ASSERT_EQ(m["stim"].size(), 1u) << "several stim channels: texts carry the label";
      ASSERT_EQ(triggers.size(), events.size()) << channel;
      for (std::size_t i = 0; i < events.size(); ++i) {
        EXPECT_NEAR(triggers[i].onset, events[i][0].num(), onePeriod);
        EXPECT_EQ(triggers[i].text,
                  "trigger " + std::to_string(static_cast<long long>(events[i][1].num())));
      }
      mneEvents += events.size();
    }
    if (m["stim"].size() == 0) {
      EXPECT_TRUE(triggers.empty());
    }
    // The reference must not be vacuous: MNE finds one code-128 event in the BDF, 14 in the EDF.
    if (name == "mne_test.bdf") {
      EXPECT_EQ(mneEvents, 1u);
    }
    if (name == "mne_test.edf") {
      EXPECT_EQ(mneEvents, 14u);
    }
  }
}

}  // namespace
}  // namespace modescope
