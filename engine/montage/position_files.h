// Electrode position files: reading the common text formats and mapping them onto channels.
//
// Formats (chosen by the file extension, case-insensitive):
//   .tsv/.txt  a header line naming a label column ("label" or "name") and x, y, z columns, then
//              one electrode per line (the bundled tables; BIDS *_electrodes.tsv). Cartesian.
//   .elp       BESA spherical: "[type] label polar azimuth [radius]" per line, angles in degrees;
//              polar = angle from the vertex, signed (positive toward the right ear), azimuth =
//              angle from the right ear toward the nose. Fp1 is "-92 -72", C4 "46 0".
//              x = sin(polar) cos(azimuth), y = sin(polar) sin(azimuth), z = cos(polar).
//   .sfp       BESA/EGI surface points: "label x y z" per line, Cartesian, fiducials usually
//              named FidNz, FidT9, FidT10.
//   .elc       ASA: "UnitPosition mm", a "Positions" section of "x y z" (or "label: x y z")
//              lines and a "Labels" section; Cartesian.
// Coordinates come back as written (file frame and unit). toUnitSphere() turns them into
// ModeScope's frame (Position3: unit sphere, x right, y nose, z up).
//
// Thread rules: free functions without shared state; safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "engine/core/recording.h"

namespace modescope {

struct ElectrodeLocation {
  std::string label;  // as written in the file
  Position3 position;
};

struct ElectrodeLocations {
  std::string path;
  std::string format;                         // "tsv", "BESA elp", "sfp", "ASA elc"
  std::string unit;                           // "mm", "cm", "m" when the file says so; "" otherwise
  std::vector<ElectrodeLocation> electrodes;  // file order, fiducials included
};

// Throws InvalidInputError naming the file, the line and what was found for an unreadable file, an
// unknown extension, a malformed line or a file without any electrode.
ElectrodeLocations readElectrodeLocations(const std::string& path);

// Unit-sphere directions in ModeScope's frame. When the file has the three fiducials (NAS/Nasion/
// FidNz, LPA/FidT9, RPA/FidT10) the points are first expressed in the head frame they define
// (origin on the LPA-RPA line below the nasion, x toward RPA, y toward the nasion, z up);
// otherwise the file is taken to be in that frame already (x right, y nose, z up). The centre is
// then the least-squares sphere through the electrodes (at least 4 not coplanar; the origin if
// they do not determine one), and each electrode becomes its unit direction from that centre.
// Fiducials are returned too (their directions are approximate: they are not on the sphere).
std::vector<ElectrodeLocation> toUnitSphere(const ElectrodeLocations& file);

// Gives each channel whose normalised name equals a label's normalised name (see
// normaliseChannelLabel) that electrode's unit-sphere position. Returns the number of channels
// positioned; the others keep their position.
std::size_t applyElectrodeLocations(std::vector<ChannelInfo>& channels,
                                    const ElectrodeLocations& file);

}  // namespace modescope
