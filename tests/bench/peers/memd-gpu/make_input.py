#!/usr/bin/python3
"""Benchmark inputs for the side-by-side MEMD run (ModeScope vs the published MEMD-GPU code), made
from a real EEG recording read with MNE. Run here (needs MNE); the GPU machine has no MNE, so the
large inputs are made there by tile_input.py (numpy only) from the source block written here.

Recording: PhysioNet EEG Motor Movement/Imagery, subject 1 run 3 (tests/data/physionet_eegmmidb_S001R03.edf,
ODC-By 1.0; cite Schalk et al. 2004 and Goldberger et al. 2000): 64 EEG channels, 160 Hz, 20,000 samples
(125 s), stored at 1 uV per digital step, so all values are integer microvolts.

No recording in tests/data or /work/shared/testdata has 30,504 samples with >= 32 EEG channels
(this one has 20,000; mne_test.bdf has 64 EEG channels but 2,048 samples), so the recording is
extended by mirrored repetition: forward, then time-reversed, then forward again (see tile_input.py).

Writes (in this folder):
  data/physionet_S001R03_64ch_20000_uV.f32  the source block, 64 x 20000 float32 uV (input of tile_input.py)
  data/physionet_S001R03_64ch_labels.txt    its 64 labels, file order
  EEG_32CH_30504.bin   first 32 channels x 30,504 samples (20,000 forward + 10,504 reversed), float32 uV
  EEG_32CH_30504.edf   the same values as a plain EDF (checked by reading it back with MNE)
  inputs.sha256        checksums, also of the 64 x 102401 and 128 x 102401 inputs (made in /tmp and deleted
                       here unless --keep-large, since all three bins together are 82.5 MB)
usage: make_input.py [--keep-large]
"""
import hashlib
import os
import sys

import mne
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tile_input  # noqa: E402

REPO = os.path.dirname(HERE)
CANDIDATES = [os.path.join(REPO, "tests", "data", "physionet_eegmmidb_S001R03.edf"),
              "/work/shared/testdata/edf/physionet_eegmmidb_S001R03.edf"]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def main():
    keep_large = "--keep-large" in sys.argv
    edf = next(p for p in CANDIDATES if os.path.exists(p))
    raw = mne.io.read_raw_edf(edf, preload=True, verbose="error")
    picks = mne.pick_types(raw.info, eeg=True)
    assert len(picks) == 64 and raw.info["sfreq"] == 160.0 and raw.n_times == 20000, (len(picks), raw.info["sfreq"], raw.n_times)
    uv = raw.get_data(picks=picks) * 1e6
    ints = np.rint(uv)
    assert np.max(np.abs(uv - ints)) < 1e-6, "expected integer microvolts (1 uV per step)"
    src = ints.astype(np.float32)
    labels = [raw.ch_names[i] for i in picks]

    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    src_path = os.path.join(HERE, "data", "physionet_S001R03_64ch_20000_uV.f32")
    src.astype("<f4").tofile(src_path)
    with open(os.path.join(HERE, "data", "physionet_S001R03_64ch_labels.txt"), "w") as f:
        f.write("\n".join(labels) + "\n")
    print(f"source {edf} (sha256 {sha256(edf)[:16]}): 64 x 20000 uV, range {src.min():g}..{src.max():g}")
    print("32-channel input uses:", " ".join(labels[:32]))

    x32 = tile_input.tile(src, 32, 30504)
    assert np.array_equal(x32[:, :20000], src[:32]) and np.array_equal(x32[:, 20000:], src[:32, ::-1][:, :10504])
    b32 = os.path.join(HERE, "EEG_32CH_30504.bin")
    x32.astype("<f4").tofile(b32)
    e32 = os.path.join(HERE, "EEG_32CH_30504.edf")
    spr, nrec, dur = tile_input.write_edf(e32, x32, labels[:32])
    back = mne.io.read_raw_edf(e32, preload=True, verbose="error")
    y = back.get_data() * 1e6
    assert y.shape == (32, 30504) and back.info["sfreq"] == 160.0, (y.shape, back.info["sfreq"])
    err = float(np.max(np.abs(y - x32)))
    assert err < 1e-6, err
    print(f"{b32}: 32 x 30504; {e32}: {nrec} records x {spr} samples ({dur:g} s), MNE read-back max |diff| {err:g} uV")

    sums = [(sha256(src_path), "data/physionet_S001R03_64ch_20000_uV.f32"),
            (sha256(b32), "EEG_32CH_30504.bin"), (sha256(e32), "EEG_32CH_30504.edf")]
    for c in (64, 128):
        name = f"EEG_{c}CH_102401.bin"
        path = os.path.join(HERE, name) if keep_large else os.path.join("/tmp", name)
        tile_input.tile(src, c, 102401).astype("<f4").tofile(path)
        sums.append((sha256(path), name))
        print(f"{name}: {c} x 102401, {os.path.getsize(path)} bytes{'' if keep_large else ' (checksum only; run.sh makes it)'}")
        if not keep_large:
            os.remove(path)
    with open(os.path.join(HERE, "inputs.sha256"), "w") as f:
        for h, n in sums:
            f.write(f"{h}  {n}\n")


if __name__ == "__main__":
    main()
