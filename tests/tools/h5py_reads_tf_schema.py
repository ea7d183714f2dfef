#!/usr/bin/python3
"""Reads a ModeScope time-frequency file (schema modescope-tf/1) with h5py, using only what
docs/time-frequency.md ("File schema") documents, and checks it for consistency and, with
--source, against the source recording.

Usage: h5py_reads_tf_schema.py FILE.h5 [--source REC.h5] [--min-rqf DB]

Checks:
- the root attributes (schema, sample_rate, columns, bins, first_bin, storage), the parameters;
- frequencies = (first_bin + k) fs / N, times = start_s + t hop / fs;
- the image ("magnitude" float32 or "values" complex64) is channels x columns x bins, finite;
- renyi_entropy: one value per channel; with complex values, recomputed here (alpha = 3);
- with complex values and "reconstruction": the reconstruction equals 2 / (N h(0)) Re sum_k of
  each column, and with --source it matches the recording's samples to --min-rqf dB (default 45);
- ridge_rows / ridge_modes shapes and row range.

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import argparse
import sys

import h5py
import numpy as np

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def text(v):
    """A string attribute as str (h5py gives bytes for fixed-length strings)."""
    return v.decode("utf-8") if isinstance(v, (bytes, np.bytes_)) else str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--source")
    ap.add_argument("--min-rqf", type=float, default=45.0)
    a = ap.parse_args()
    f = h5py.File(a.file, "r")
    check(text(f.attrs["modescope_schema"]) == "modescope-tf/1", "schema")
    fs = float(f.attrs["sample_rate"])
    T = int(f.attrs["columns"])
    K = int(f.attrs["bins"])
    first = int(f.attrs["first_bin"])
    p = f["parameters"].attrs
    N = int(p["fft_length"])
    hop = int(p["hop"])
    check(text(p["order"]) in ("0", "1", "2", "3", "3c", "4"), "order")
    freqs = f["frequencies"][...]
    check(np.allclose(freqs, (first + np.arange(K)) * fs / N), "frequencies")
    times = f["times"][...]
    check(np.allclose(times, float(f.attrs["start_s"]) + np.arange(T) * hop / fs), "times")
    names = list(f["channels/name"].asstr()[...])
    C = len(names)
    storage = text(f.attrs["storage"])
    if storage == "complex":
        img = f["values"][...]
        check(img.dtype == np.complex64, f"values dtype {img.dtype}")
    else:
        img = f["magnitude"][...]
        check(img.dtype == np.float32, f"magnitude dtype {img.dtype}")
    check(img.shape == (C, T, K), f"image shape {img.shape}")
    check(np.all(np.isfinite(img)), "image not finite")
    ent = f["renyi_entropy"][...]
    check(ent.shape == (C,), "renyi_entropy shape")
    if storage == "complex":
        for c in range(C):
            pr = np.abs(img[c].astype(np.complex128)) ** 2
            pr = pr / pr.sum()
            want = np.log2(np.sum(pr[pr > 0] ** 3)) / (1 - 3)
            check(abs(want - ent[c]) < 1e-6 * max(1, abs(want)), f"renyi {c}: {ent[c]} vs {want}")
    if "reconstruction" in f:
        rec = f["reconstruction"][...]
        check(rec.shape == (C, T), "reconstruction shape")
        if storage == "complex":
            h0 = float(f.attrs["window_at_zero"])
            mine = 2.0 / (N * h0) * np.real(img.astype(np.complex128).sum(axis=2))
            check(np.allclose(mine, rec, rtol=1e-5, atol=1e-6 * np.abs(rec).max()),
                  "reconstruction is not the column sum")
        if a.source:
            src = h5py.File(a.source, "r")
            idx = list(f["channels/recording_index"][...])
            s0 = int(f.attrs["first_sample"])
            for c in range(C):
                x = src["signals"][str(idx[c])][s0:s0 + T].astype(np.float64)
                rqf = 10 * np.log10(np.sum(x ** 2) / np.sum((x - rec[c]) ** 2))
                check(rqf >= a.min_rqf, f"channel {names[c]}: RQF {rqf:.1f} dB < {a.min_rqf}")
    if "ridge_rows" in f:
        rows = f["ridge_rows"][...]
        modes = f["ridge_modes"][...]
        check(rows.ndim == 3 and rows.shape[0] == C and rows.shape[2] == T, "ridge_rows shape")
        check(modes.shape == rows.shape, "ridge_modes shape")
        check(rows.min() >= 0 and rows.max() < K, "ridge rows out of range")
    for line in problems:
        print("MISMATCH: " + line)
    if not problems:
        print(f"OK: {a.file}: {C} channels x {T} columns x {K} bins ({storage})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
