"""MNE-Python's interpolate_bads on an EDF recording, for tests/integration/cli_interpolate_test.cpp.

Usage: mne_interpolate_bads.py EDF POSITIONS.tsv BADS OUT.f64

POSITIONS.tsv: "name<TAB>label<TAB>x<TAB>y<TAB>z" per channel, the unit-sphere positions ModeScope
gave the channels (so both sides interpolate on the same electrode set; MNE's own standard_1005
montage lies in another head frame). BADS: comma-separated names. Writes the interpolated bad
channels, in the order of BADS, as float64 microvolts, channel after channel.
"""
import sys

import numpy as np
import mne

edf, positions, bads, out = sys.argv[1:5]
bads = bads.split(",")
raw = mne.io.read_raw_edf(edf, preload=True, verbose="error")
rename, ch_pos = {}, {}
with open(positions) as f:
    for line in f:
        name, label, x, y, z = line.rstrip("\n").split("\t")
        rename[label] = name
        # A 9 cm head: interpolate_bads normalises the positions onto the unit sphere anyway.
        ch_pos[name] = 0.09 * np.array([float(x), float(y), float(z)])
raw.rename_channels({k: v for k, v in rename.items() if k in raw.ch_names})
raw.set_channel_types({name: "eeg" for name in ch_pos})
raw.set_montage(mne.channels.make_dig_montage(ch_pos=ch_pos, coord_frame="head"))
raw.info["bads"] = bads
raw.interpolate_bads(reset_bads=True, origin=(0.0, 0.0, 0.0), verbose="error")
data = raw.get_data(picks=bads) * 1e6
data.astype("<f8").tofile(out)
