// Electrode position files: each format read back to the bundled 10-05 positions after the
// frame changes the files use (scaled, rotated, shifted), the BESA angle convention against
// published sample values, and errors for malformed files.
#include "engine/montage/position_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/montage/channel_names.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

class PositionFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("modescope_positions_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

const char* const kSites[] = {"Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8", "T7", "C3", "Cz",
                              "C4",  "T8",  "P7", "P3", "Pz", "P4", "P8", "O1", "O2", "AFF1h"};

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

// Positions from a file must land on the bundled table's; written with 6 decimals from 4-decimal
// table values, the only error is the table's own rounding on the unit sphere (< 1e-4 per
// coordinate, so < 2e-4 after normalisation).
void expectMatchesTable(const std::vector<ElectrodeLocation>& got) {
  int checked = 0;
  for (const auto& e : got) {
    const auto ref = standardPosition(e.label);
    if (!ref || e.label == "NAS" || e.label == "LPA" || e.label == "RPA") continue;
    EXPECT_NEAR(e.position.x, ref->x, 2e-4) << e.label;
    EXPECT_NEAR(e.position.y, ref->y, 2e-4) << e.label;
    EXPECT_NEAR(e.position.z, ref->z, 2e-4) << e.label;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST_F(PositionFiles, BundledTsvReadsBack) {
  const auto f = readElectrodeLocations(std::string(MODESCOPE_SOURCE_DIR) +
                                        "/resources/montages/eeg_positions_standard_1005_3D.tsv");
  EXPECT_EQ(f.format, "tsv");
  EXPECT_EQ(f.electrodes.size(), 348u);  // 345 sites + NAS, LPA, RPA
  const auto u = toUnitSphere(f);
  EXPECT_EQ(u.size(), 348u);
  expectMatchesTable(u);
}

TEST_F(PositionFiles, BidsTsvWithNameColumnAndMissingPositions) {
  std::string text = "name\tx\ty\tz\ttype\timpedance\n";
  for (const char* s : kSites) {
    const auto p = *standardPosition(s);
    text += std::string(s) + "\t" + fmt(p.x * 0.09) + "\t" + fmt(p.y * 0.09) + "\t" +
            fmt(p.z * 0.09) + "\tcup\t5\n";
  }
  text += "EXG1\tn/a\tn/a\tn/a\tcup\tn/a\n";
  const auto f = readElectrodeLocations(write("sub-01_electrodes.tsv", text));
  EXPECT_EQ(f.electrodes.size(), std::size(kSites));
  expectMatchesTable(toUnitSphere(f));
}

// The BESA convention, checked against the sample rows EEGLAB's readlocs documents for BESA .elp
// ("EEG Fp1 -92 -72", "EEG C3 -46 0", ...) and the Cartesian coordinates it lists for the same
// sites in its .xyz sample (x nose, y left ear, z up): Fp1 = (.950, .308, -.035),
// C3 = (0, .719, .695). In ModeScope's frame (x right, y nose) Fp1 is (-.308, .950, -.035).
// The published values have 3 decimals: tolerance 1e-3.
TEST_F(PositionFiles, BesaSphericalElp) {
  const auto f = readElectrodeLocations(
      write("besa.elp", "EEG Fp1 -92 -72\nEEG Fp2 92 72\nEEG C3 -46 0\nEEG C4 46 0\nCz 0 0\n"));
  EXPECT_EQ(f.format, "BESA elp");
  ASSERT_EQ(f.electrodes.size(), 5u);
  auto at = [&](std::size_t i) { return f.electrodes[i].position; };
  EXPECT_EQ(f.electrodes[0].label, "Fp1");
  EXPECT_NEAR(at(0).x, -0.308, 1e-3);
  EXPECT_NEAR(at(0).y, 0.950, 1e-3);
  EXPECT_NEAR(at(0).z, -0.035, 1e-3);
  EXPECT_NEAR(at(1).x, 0.308, 1e-3);
  EXPECT_NEAR(at(1).y, 0.950, 1e-3);
  EXPECT_NEAR(at(2).x, -0.719, 1e-3);
  EXPECT_NEAR(at(2).y, 0.0, 1e-3);
  EXPECT_NEAR(at(2).z, 0.695, 1e-3);
  EXPECT_NEAR(at(3).x, 0.719, 1e-3);
  EXPECT_NEAR(at(4).z, 1.0, 1e-12);
}

// .sfp in BESA's digitiser-like frame: nasion toward -x, right ear toward +y (BESA's example has
// FidNz at x = -10.89, FidT9 at y = -7.78, FidT10 at y = +7.34), in cm, shifted. The fiducials
// define the head frame, the sphere fit the centre: the table's positions must come back.
TEST_F(PositionFiles, SfpInAnotherFrameComesBackViaFiducials) {
  auto toFile = [](const Position3& p) {
    // (x right, y nose, z up) -> (x back, y right, z up), 9 cm radius, shifted by (1.5, -0.7, 3).
    return Position3{-p.y * 9.0 + 1.5, p.x * 9.0 - 0.7, p.z * 9.0 + 3.0};
  };
  std::string text;
  const std::pair<const char*, const char*> fids[] = {
      {"FidNz", "NAS"}, {"FidT9", "LPA"}, {"FidT10", "RPA"}};
  for (const auto& [label, site] : fids) {
    const auto p = toFile(*standardPosition(site));
    text += std::string(label) + " " + fmt(p.x) + "\t" + fmt(p.y) + "\t" + fmt(p.z) + "\n";
  }
  for (const char* s : kSites) {
    const auto p = toFile(*standardPosition(s));
    text += std::string(s) + " " + fmt(p.x) + " " + fmt(p.y) + " " + fmt(p.z) + "\r\n";
  }
  const auto f = readElectrodeLocations(write("cap.sfp", text));
  EXPECT_EQ(f.format, "sfp");
  EXPECT_EQ(f.electrodes.size(), std::size(kSites) + 3);
  expectMatchesTable(toUnitSphere(f));
}

// ASA .elc in mm without fiducials, shifted: the sphere fit alone must remove the shift. Both the
// separate Labels section and inline "label: x y z" positions.
TEST_F(PositionFiles, AsaElcBothLayouts) {
  auto mm = [](const Position3& p) {
    return fmt(p.x * 85.0 + 3.0) + " " + fmt(p.y * 85.0 - 12.0) + " " + fmt(p.z * 85.0 + 40.0);
  };
  std::string separate = "# ASA electrode file\nReferenceLabel\tavg\nUnitPosition\tmm\n";
  separate += "NumberPositions=\t" + std::to_string(std::size(kSites)) + "\nPositions\n";
  std::string inlined = "UnitPosition mm\nPositions\n";
  std::string labels = "Labels\n";
  for (const char* s : kSites) {
    separate += mm(*standardPosition(s)) + "\n";
    inlined += std::string(s) + " : " + mm(*standardPosition(s)) + "\n";
    labels += std::string(s) + "\t";
  }
  separate += labels + "\n";
  for (const auto& text : {separate, inlined}) {
    const auto f = readElectrodeLocations(write("cap.elc", text));
    EXPECT_EQ(f.format, "ASA elc");
    EXPECT_EQ(f.unit, "mm");
    ASSERT_EQ(f.electrodes.size(), std::size(kSites));
    EXPECT_EQ(f.electrodes[0].label, "Fp1");
    expectMatchesTable(toUnitSphere(f));
  }
}

TEST_F(PositionFiles, ChannelsGetPositionsByNormalisedName) {
  std::string text;
  for (const char* s : kSites) {
    const auto p = *standardPosition(s);
    text += std::string(s) + " " + fmt(p.x) + " " + fmt(p.y) + " " + fmt(p.z) + "\n";
  }
  const auto f = readElectrodeLocations(write("cap.sfp", text));
  std::vector<ChannelInfo> ch(3);
  ch[0].label = "EEG Fp1-REF";
  ch[1].label = "Cz..";
  ch[2].label = "EXG1";
  EXPECT_EQ(applyElectrodeLocations(ch, f), 2u);
  ASSERT_TRUE(ch[0].position.has_value());
  EXPECT_NEAR(ch[0].position->y, standardPosition("Fp1")->y, 2e-4);
  ASSERT_TRUE(ch[1].position.has_value());
  EXPECT_NEAR(ch[1].position->z, 1.0, 2e-4);
  EXPECT_FALSE(ch[2].position.has_value());
}

TEST_F(PositionFiles, MalformedFilesThrowNamingWhere) {
  auto expectError = [](const std::string& path, const std::string& field) {
    try {
      readElectrodeLocations(path);
      ADD_FAILURE() << "no exception for " << path;
    } catch (const InvalidInputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_EQ(e.path(), path);
    }
  };
  expectError((dir_ / "missing.sfp").string(), "file");
  expectError(write("cap.xyz", "1 0 0 1 Fp1\n"), "extension");
  expectError(write("bad.sfp", "Fp1 1 2 3\nFp2 1 two 3\n"), "line 2");
  expectError(write("short.sfp", "Fp1 1 2 3\n\nCz 1 2\n"), "line 3");
  expectError(write("bad.elp", "Fp1 -92 -72\nFp2 north east\n"), "line 2");
  expectError(write("noheader.tsv", "Fp1\t1\t2\t3\n"), "line 1");
  expectError(write("empty.sfp", "# nothing here\n\n"), "electrodes");
  expectError(write("count.elc", "Positions\n1 2 3\n4 5 6\nLabels\nFp1\n"), "Labels");
}

}  // namespace
}  // namespace modescope
