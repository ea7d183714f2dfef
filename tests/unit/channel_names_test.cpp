// Channel label normalisation, type guessing and standard positions, on hand-picked labels (such
// as "EEG Fp1-REF", "Fc5." and "fp1-le") and on the labels of the real files in tests/data (read
// straight from their EDF/BDF headers).
#include "engine/montage/channel_names.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <numbers>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace modescope {
namespace {

// Labels of an EDF/BDF file from its header: the number of signals is the 4 ASCII bytes at
// offset 252, the labels are 16-byte fields starting at offset 256 (EDF specification).
std::vector<std::string> headerLabels(const std::string& file) {
  std::ifstream in(std::string(MODESCOPE_TEST_DATA) + "/" + file, std::ios::binary);
  EXPECT_TRUE(in) << file;
  std::string fixed(256, '\0');
  in.read(fixed.data(), 256);
  const int ns = std::stoi(fixed.substr(252, 4));
  std::string labels(static_cast<std::size_t>(ns) * 16, '\0');
  in.read(labels.data(), static_cast<std::streamsize>(labels.size()));
  std::vector<std::string> out;
  for (int i = 0; i < ns; ++i) {
    std::string l = labels.substr(static_cast<std::size_t>(i) * 16, 16);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    if (l == "EDF Annotations" || l == "BDF Annotations") continue;  // not a signal
    out.push_back(l);
  }
  return out;
}

std::vector<ChannelInfo> channelsFromLabels(const std::vector<std::string>& labels) {
  std::vector<ChannelInfo> ch(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) ch[i].label = labels[i];
  return ch;
}

// Letters and digits only, upper case: "Fc5." and "FC5" both give "FC5".
std::string skeleton(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

void expectSite(const std::string& label, const std::string& name) {
  const NormalisedLabel n = normaliseChannelLabel(label);
  EXPECT_EQ(n.name, name) << "label '" << label << "'";
  EXPECT_TRUE(n.isStandardSite) << "label '" << label << "'";
}

TEST(ChannelNames, IssueExamples) {
  expectSite("EEG Fp1-REF", "Fp1");
  expectSite("FP1", "Fp1");
  expectSite("Fc5.", "FC5");
  expectSite("fp1-le", "Fp1");
  expectSite("Fcz.", "FCz");
  expectSite("Iz..", "Iz");
  expectSite("T9..", "T9");
  expectSite("Afz.", "AFz");
  expectSite("Fp1..", "Fp1");
}

TEST(ChannelNames, PrefixesSuffixesAndCase) {
  expectSite("EEG-Fp1", "Fp1");
  expectSite("EEG C3-A2", "C3");
  expectSite("eeg cz-ref", "Cz");
  expectSite("EEG O2-Ref", "O2");
  expectSite("EEG FP2-AVG", "Fp2");
  expectSite("EEG Pz-AR", "Pz");
  expectSite("C4-M1", "C4");
  expectSite("  Oz  ", "Oz");
  expectSite("poz", "POz");
  expectSite("AFF1H", "AFF1h");
  expectSite("EEG Fp1 REF", "Fp1");
}

TEST(ChannelNames, OldTemporalNamesMapToTheirModernSites) {
  // The premise: the bundled table lists only the modern names.
  ASSERT_FALSE(standardPosition("T3").has_value());
  expectSite("T3", "T7");
  expectSite("EEG T4-REF", "T8");
  expectSite("t5", "P7");
  expectSite("T6..", "P8");
}

TEST(ChannelNames, EarlobesAndMastoidsAreKnownSitesWithoutPosition) {
  for (const char* s : {"A1", "A2", "M1", "M2"}) {
    expectSite(s, s);
    EXPECT_FALSE(standardPosition(s).has_value()) << s;
  }
  expectSite("m1", "M1");
}

TEST(ChannelNames, BipolarDerivationsAreNotSingleSites) {
  NormalisedLabel n = normaliseChannelLabel("Fp1-F7");
  EXPECT_EQ(n.name, "Fp1-F7");
  EXPECT_FALSE(n.isStandardSite);
  n = normaliseChannelLabel("EEG FP1-F7");
  EXPECT_EQ(n.name, "Fp1-F7");
  EXPECT_FALSE(n.isStandardSite);
  EXPECT_EQ(guessChannelType("EEG FP1-F7", n), ChannelType::EEG);
  // A lone -Cz is a bipolar derivation (Fz-Cz of the double banana) ...
  n = normaliseChannelLabel("Fz-Cz");
  EXPECT_EQ(n.name, "Fz-Cz");
  EXPECT_FALSE(n.isStandardSite);
}

TEST(ChannelNames, SharedSecondElectrodeIsTheReferenceOfTheRecording) {
  // ... but when (nearly) every channel shares it, it is the recording's reference.
  auto ch = channelsFromLabels({"Fp1-Cz", "Fp2-Cz", "F3-Cz", "F4-Cz", "O1-Cz", "EOG1"});
  applyStandardNames(ch);
  EXPECT_EQ(ch[0].name, "Fp1");
  EXPECT_EQ(ch[4].name, "O1");
  EXPECT_TRUE(ch[3].position.has_value());

  // A double banana repeats each second electrode at most twice: stays bipolar.
  auto banana = channelsFromLabels(
      {"Fp1-F7", "F7-T7", "T7-P7", "P7-O1", "Fp1-F3", "F3-C3", "C3-P3", "P3-O1", "Fz-Cz", "Cz-Pz"});
  applyStandardNames(banana);
  for (const auto& c : banana) {
    EXPECT_EQ(c.name, c.label);
    EXPECT_FALSE(c.position.has_value()) << c.label;
    EXPECT_EQ(c.type, ChannelType::EEG) << c.label;
  }
}

TEST(ChannelNames, TwoChannelsOnOneSiteKeepDistinctNames) {
  auto ch = channelsFromLabels({"C3-A1", "C3-A2", "C4-A1"});
  applyStandardNames(ch);
  EXPECT_EQ(ch[0].name, "C3-A1");
  EXPECT_EQ(ch[1].name, "C3-A2");
  EXPECT_EQ(ch[2].name, "C4");
  ASSERT_TRUE(ch[0].position.has_value());
  EXPECT_EQ(ch[0].position->x, standardPosition("C3")->x);
}

TEST(ChannelNames, NonSitesKeepACleanedLabel) {
  NormalisedLabel n = normaliseChannelLabel("  Resp Belt  ");
  EXPECT_EQ(n.name, "Resp Belt");
  EXPECT_FALSE(n.isStandardSite);
  n = normaliseChannelLabel("0.2Hz Blk 1/0uV");  // inner dots of a non-site stay
  EXPECT_EQ(n.name, "0.2Hz Blk 1/0uV");
  n = normaliseChannelLabel("");
  EXPECT_EQ(n.name, "");
  EXPECT_FALSE(n.isStandardSite);
}

TEST(ChannelNames, InvalidUtf8IsSanitised) {
  const NormalisedLabel n = normaliseChannelLabel(std::string("Fp\xff\xfe"));
  EXPECT_FALSE(n.isStandardSite);
  EXPECT_NE(n.name.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD replacement character
  EXPECT_EQ(n.name.find('\xff'), std::string::npos);
  // Latin-1 "é" (0xE9) alone is not UTF-8 either.
  EXPECT_EQ(normaliseChannelLabel("Temp\xe9").name, "Temp\xEF\xBF\xBD");
}

TEST(ChannelNames, TypeGuessing) {
  struct Case {
    const char* label;
    ChannelType type;
  };
  const Case cases[] = {
      {"EEG Fp1-REF", ChannelType::EEG}, {"Cz", ChannelType::EEG},
      {"EEG 001", ChannelType::EEG},     {"EOG", ChannelType::EOG},
      {"EOG1", ChannelType::EOG},        {"EOG left", ChannelType::EOG},
      {"VEOG", ChannelType::EOG},        {"HEOG", ChannelType::EOG},
      {"LOC", ChannelType::EOG},         {"ROC-A1", ChannelType::EOG},
      {"ECG", ChannelType::ECG},         {"EKG", ChannelType::ECG},
      {"ECG II", ChannelType::ECG},      {"EMG", ChannelType::EMG},
      {"EMG Chin", ChannelType::EMG},    {"Chin", ChannelType::EMG},
      {"Status", ChannelType::STIM},     {"Trigger", ChannelType::STIM},
      {"TRIG", ChannelType::STIM},       {"STI 014", ChannelType::STIM},
      {"STI101", ChannelType::STIM},     {"EXG1", ChannelType::MISC},
      {"Resp", ChannelType::MISC},       {"Temp", ChannelType::MISC},
      {"SpO2", ChannelType::MISC},       {"Ergo-Left", ChannelType::MISC},
      {"M1", ChannelType::EEG},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(guessChannelType(c.label, normaliseChannelLabel(c.label)), c.type)
        << c.label << " got "
        << channelTypeName(guessChannelType(c.label, normaliseChannelLabel(c.label)));
  }
}

// Every one of the 64 PhysioNet/BCI2000 labels ("Fc5.", "Fcz.", "Iz..", "T9..") names a 10-05
// site with a position; the normalised name differs from the label only in case and padding.
TEST(ChannelNames, PhysioNetLabelsAllMapToPositionedSites) {
  const auto labels = headerLabels("physionet_eegmmidb_S001R03.edf");
  ASSERT_EQ(labels.size(), 64u);
  auto ch = channelsFromLabels(labels);
  applyStandardNames(ch);
  std::set<std::string> names;
  for (const auto& c : ch) {
    EXPECT_EQ(skeleton(c.name), skeleton(c.label)) << c.label << " -> " << c.name;
    EXPECT_TRUE(normaliseChannelLabel(c.label).isStandardSite) << c.label;
    EXPECT_TRUE(c.position.has_value()) << c.label;
    EXPECT_TRUE(standardPosition2D(c.name).has_value()) << c.label;
    EXPECT_EQ(c.type, ChannelType::EEG) << c.label;
    names.insert(c.name);
  }
  EXPECT_EQ(names.size(), 64u);
  EXPECT_EQ(ch[0].name, "FC5");
  EXPECT_EQ(ch[3].name, "FCz");
  EXPECT_EQ(ch[63].name, "Iz");
}

// BioSemi: 64 10-10 labels, EXG1..8 (some renamed REOG/LEOG/IEOG/M1/M2 in this file), Status.
TEST(ChannelNames, BiosemiBdfLabels) {
  const auto labels = headerLabels("mne_test.bdf");
  ASSERT_EQ(labels.size(), 73u);
  auto ch = channelsFromLabels(labels);
  applyStandardNames(ch);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(ch[i].name, labels[i]) << "already in the table's spelling";
    EXPECT_EQ(ch[i].type, ChannelType::EEG) << labels[i];
    EXPECT_TRUE(ch[i].position.has_value()) << labels[i];
  }
  auto at = [&](const std::string& l) -> const ChannelInfo& {
    for (const auto& c : ch) {
      if (c.label == l) return c;
    }
    ADD_FAILURE() << "no channel " << l;
    return ch.front();
  };
  EXPECT_EQ(at("EXG1").type, ChannelType::MISC);
  EXPECT_EQ(at("EXG8").type, ChannelType::MISC);
  EXPECT_EQ(at("REOG").type, ChannelType::EOG);
  EXPECT_EQ(at("LEOG").type, ChannelType::EOG);
  EXPECT_EQ(at("IEOG").type, ChannelType::EOG);
  EXPECT_EQ(at("M1").type, ChannelType::EEG);
  EXPECT_FALSE(at("M1").position.has_value());
  EXPECT_EQ(at("Status").type, ChannelType::STIM);
}

// MNE's test.edf uses BioSemi's ABC layout (A1..A16, ..., I1..I8): "C3" there is not the 10-20
// C3, so no label gets a 10-05 position, but all are EEG.
TEST(ChannelNames, AbcLayoutKeepsLabelsAndGetsNoPositions) {
  const auto labels = headerLabels("mne_test.edf");
  ASSERT_EQ(labels.size(), 139u);
  auto ch = channelsFromLabels(labels);
  applyStandardNames(ch);
  int eeg = 0;
  for (const auto& c : ch) {
    if (c.label == "Ergo-Left" || c.label == "Ergo-Right") {
      EXPECT_EQ(c.type, ChannelType::MISC);
    } else if (c.label == "Status") {
      EXPECT_EQ(c.type, ChannelType::STIM);
    } else {
      EXPECT_EQ(c.name, c.label);
      EXPECT_EQ(c.type, ChannelType::EEG) << c.label;
      EXPECT_FALSE(c.position.has_value()) << c.label;
      ++eeg;
    }
  }
  EXPECT_EQ(eeg, 136);
}

TEST(ChannelNames, OtherTestFilesDoNotCrashAndKeepTheirLabels) {
  for (const char* f : {"pyedflib_test_generator.edf", "pyedflib_test_generator.bdf",
                        "mne_test_uneven_samp.edf", "pyedflib_test_subsecond.edf"}) {
    auto ch = channelsFromLabels(headerLabels(f));
    applyStandardNames(ch);
    for (const auto& c : ch) {
      EXPECT_FALSE(c.name.empty()) << f;
      if (!standardPosition(c.name)) {
        EXPECT_EQ(c.name, c.label) << f;
      }
    }
  }
}

// The 10-05 system on a sphere: midline sites lie on the sagittal arc from Nz (0 deg) over Cz
// (90 deg) to Iz (180 deg) in 10 % = 18 deg steps, the central row on the coronal arc T9-Cz-T10.
// So Fpz = (0, cos 18, sin 18), Fz = (0, cos 54, sin 54), ..., C3 = (-cos 54, 0, sin 54), with
// x to the right, y to the nose, z up. The table prints 4 decimals: tolerance 1e-4.
TEST(ChannelNames, PositionsFollowTheSphericalTenTwentyGeometry) {
  const double d = std::numbers::pi / 180.0;
  struct Site {
    const char* name;
    double x, y, z;
  };
  const Site sites[] = {
      {"Fpz", 0, std::cos(18 * d), std::sin(18 * d)},
      {"Fz", 0, std::cos(54 * d), std::sin(54 * d)},
      {"Cz", 0, 0, 1},
      {"Pz", 0, -std::cos(54 * d), std::sin(54 * d)},
      {"Oz", 0, -std::cos(18 * d), std::sin(18 * d)},
      {"AFz", 0, std::cos(36 * d), std::sin(36 * d)},
      {"T7", -std::cos(18 * d), 0, std::sin(18 * d)},
      {"C3", -std::cos(54 * d), 0, std::sin(54 * d)},
      {"C4", std::cos(54 * d), 0, std::sin(54 * d)},
      {"T10", 1, 0, 0},
  };
  for (const auto& s : sites) {
    const auto p = standardPosition(s.name);
    ASSERT_TRUE(p.has_value()) << s.name;
    EXPECT_NEAR(p->x, s.x, 1e-4) << s.name;
    EXPECT_NEAR(p->y, s.y, 1e-4) << s.name;
    EXPECT_NEAR(p->z, s.z, 1e-4) << s.name;
  }
  // Case-insensitive lookup; every listed site lies on the unit sphere (4-decimal rounding).
  EXPECT_TRUE(standardPosition("cz").has_value());
  for (const auto& n : standardSiteNames()) {
    const auto p = standardPosition(n);
    ASSERT_TRUE(p.has_value()) << n;
    EXPECT_NEAR(std::sqrt(p->x * p->x + p->y * p->y + p->z * p->z), 1.0, 2e-4) << n;
    EXPECT_TRUE(standardPosition2D(n).has_value()) << n;
  }
  const auto cz2 = standardPosition2D("Cz");
  ASSERT_TRUE(cz2.has_value());
  EXPECT_NEAR(cz2->first, 0.0, 1e-9);
  EXPECT_NEAR(cz2->second, 0.0, 1e-9);
  EXPECT_FALSE(standardPosition("Nonsense").has_value());
}

TEST(ChannelNames, SiteListHas345ElectrodesWithoutFiducials) {
  const auto& names = standardSiteNames();
  EXPECT_EQ(names.size(), 345u);
  const std::set<std::string> set(names.begin(), names.end());
  EXPECT_EQ(set.size(), names.size());
  EXPECT_EQ(set.count("NAS"), 0u);
  EXPECT_EQ(set.count("LPA"), 0u);
  EXPECT_EQ(set.count("FCz"), 1u);
  EXPECT_EQ(set.count("AFF1h"), 1u);
}

// The tables are parsed once behind function-local statics; concurrent first use must give every
// thread the same answers (run under TSan to check the race freedom itself).
TEST(ChannelNames, ConcurrentFirstUseIsConsistent) {
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::string r;
      for (const char* l : {"Fc5.", "EEG T3-REF", "Iz..", "fp1-le"}) {
        r += normaliseChannelLabel(l).name + "|";
      }
      r += std::to_string(standardSiteNames().size());
      results[t] = r;
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, "FC5|T7|Iz|Fp1|345");
}

}  // namespace
}  // namespace modescope
