#!/usr/bin/env python3
"""Make a C x N benchmark input from the real 64-channel EEG source block (numpy only, so it also
runs on the GPU machine, which has numpy but not MNE).

Source: data/physionet_S001R03_64ch_20000_uV.f32, written by make_input.py from PhysioNet eegmmidb
S001R03 (64 EEG channels, 160 Hz, 20,000 samples = 125 s, values in microvolts; the recording is
stored at 1 uV per digital step, so every value is an integer and exact in float32).

Tiling, so that lengths beyond 20,000 samples stay continuous (no step at a seam):
  the recording, then the same recording time-reversed, then forward again, ... (period 40,000).
Channel c (0-based) is source channel c % 64, started (c // 64) * 10,000 samples into that
sequence, so channels 64..127 are the same 64 electrodes half a recording later, not copies.
C <= 64 takes the first C channels in the file's order (Fc5., Fc3., ... see make_input.py).

Output: raw float32 little-endian, channel-major (C rows of N samples), no header -- the layout
the published MEMD-GPU main() reads. Optionally also an EDF (16-bit, 1 uV per step, so it holds
exactly the same values).

usage: tile_input.py C N OUT.bin [--edf OUT.edf] [--src SRC.f32]
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_DEFAULT = os.path.join(HERE, "data", "physionet_S001R03_64ch_20000_uV.f32")
SRC_CHANNELS = 64
SRC_RATE = 160.0
SHIFT_PER_BLOCK = 10000


def load_source(path=SRC_DEFAULT):
    x = np.fromfile(path, dtype="<f4")
    if x.size % SRC_CHANNELS:
        sys.exit(f"{path}: {x.size} floats is not a whole number of {SRC_CHANNELS}-channel samples")
    return x.reshape(SRC_CHANNELS, -1)


def tile(src, channels, samples):
    n0 = src.shape[1]
    period = np.concatenate([src, src[:, ::-1]], axis=1)  # forward, then time-reversed
    out = np.empty((channels, samples), dtype=np.float32)
    for c in range(channels):
        shift = (c // SRC_CHANNELS) * SHIFT_PER_BLOCK
        need = shift + samples
        reps = -(-need // period.shape[1])
        row = np.tile(period[c % SRC_CHANNELS], reps)
        out[c] = row[shift:shift + samples]
    assert n0 > 0
    return out


def record_samples(n, rate=SRC_RATE, max_seconds=4.0):
    """Largest divisor of n that makes an EDF data record of at most max_seconds."""
    best = 1
    for d in range(1, int(rate * max_seconds) + 1):
        if n % d == 0:
            best = d
    return best


def write_edf(path, data, labels, rate=SRC_RATE, recording="", start=("12.08.09", "16.15.00")):
    """Plain EDF (not EDF+), 16-bit, physical = digital in uV (range +-8092 as in the source file)."""
    data = np.asarray(data)
    ns, n = data.shape
    dig = np.rint(data).astype(np.int64)
    if not np.array_equal(dig, data) or dig.min() < -8092 or dig.max() > 8092:
        raise ValueError("EDF writer expects integer microvolts within +-8092 (the source's range)")
    spr = record_samples(n, rate)
    nrec = n // spr
    dur = spr / rate
    dur_s = f"{dur:.8g}"
    if len(dur_s) > 8 or abs(float(dur_s) - dur) > 1e-12:
        raise ValueError(f"record duration {dur} does not fit 8 characters")

    def f(s, w):
        s = str(s)
        if len(s) > w:
            raise ValueError(f"EDF field {s!r} longer than {w}")
        return s.ljust(w).encode("ascii")

    h = b"".join([
        f("0", 8), f("X X X X", 80), f(recording or "Startdate 12-AUG-2009 X X BCI2000", 80),
        f(start[0], 8), f(start[1], 8), f(256 + 256 * ns, 8), f("", 44),
        f(nrec, 8), f(dur_s, 8), f(ns, 4),
    ])
    h += b"".join(f(l, 16) for l in labels)
    h += b"".join(f("", 80) for _ in labels)
    h += b"".join(f("uV", 8) for _ in labels)
    h += b"".join(f("-8092", 8) for _ in labels)
    h += b"".join(f("8092", 8) for _ in labels)
    h += b"".join(f("-8092", 8) for _ in labels)
    h += b"".join(f("8092", 8) for _ in labels)
    h += b"".join(f("", 80) for _ in labels)
    h += b"".join(f(spr, 8) for _ in labels)
    h += b"".join(f("", 32) for _ in labels)
    assert len(h) == 256 + 256 * ns
    body = dig.astype("<i2").reshape(ns, nrec, spr).transpose(1, 0, 2)  # record-major
    with open(path, "wb") as fh:
        fh.write(h)
        fh.write(np.ascontiguousarray(body).tobytes())
    return spr, nrec, dur


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("channels", type=int)
    ap.add_argument("samples", type=int)
    ap.add_argument("out")
    ap.add_argument("--edf")
    ap.add_argument("--src", default=SRC_DEFAULT)
    ap.add_argument("--labels", help="file with the 64 source labels, one a line (for --edf)",
                    default=os.path.join(HERE, "data", "physionet_S001R03_64ch_labels.txt"))
    a = ap.parse_args()
    src = load_source(a.src)
    x = tile(src, a.channels, a.samples)
    x.astype("<f4").tofile(a.out)
    print(f"{a.out}: {a.channels} x {a.samples} float32 channel-major, {os.path.getsize(a.out)} bytes")
    if a.edf:
        base = [l.rstrip("\n") for l in open(a.labels)]
        labels = [base[c % SRC_CHANNELS] if c < SRC_CHANNELS else f"{base[c % SRC_CHANNELS].rstrip('.')}+{c // SRC_CHANNELS}"
                  for c in range(a.channels)]
        spr, nrec, dur = write_edf(a.edf, x, labels)
        print(f"{a.edf}: EDF, {nrec} records x {spr} samples ({dur:g} s) at {SRC_RATE:g} Hz")


if __name__ == "__main__":
    main()
