// Files embedded into every ModeScope binary with the assembler's .incbin (fast to build, no
// generated C arrays): the demo recording and the electrode position tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace modescope {

// Names: "demo/physionet_eegmmidb_S001R03.edf", "montages/eeg_positions_standard_1005_3D.tsv",
// "montages/eeg_positions_standard_1005_2D.tsv", "montages/eeg_positions_standard_1010_3D.tsv",
// "montages/eeg_positions_standard_1020_3D.tsv". Throws std::out_of_range for an unknown name.
std::string_view embeddedResource(std::string_view name);
std::vector<std::string> embeddedResourceNames();

// The demo recording's file name and its attribution (Open Data Commons Attribution 1.0).
inline constexpr const char* kDemoResource = "demo/physionet_eegmmidb_S001R03.edf";
inline constexpr const char* kDemoAttribution =
    "Demo recording: PhysioNet EEG Motor Movement/Imagery Dataset (eegmmidb 1.0.0), subject 1, "
    "run 3, Open Data Commons Attribution License 1.0. Schalk G, McFarland DJ, Hinterberger T, "
    "Birbaumer N, Wolpaw JR. BCI2000: A General-Purpose Brain-Computer Interface (BCI) System. "
    "IEEE TBME 51(6):1034-1043, 2004. Goldberger AL et al. PhysioBank, PhysioToolkit, and "
    "PhysioNet. Circulation 101(23):e215-e220, 2000.";

// Writes the demo recording to a private temporary file (readers take paths) and returns its
// path. The file is removed at process exit.
std::string materializeDemoRecording();

}  // namespace modescope
