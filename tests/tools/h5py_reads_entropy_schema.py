#!/usr/bin/python3
"""Reads a ModeScope entropy result file (schema modescope-entropy/1) with h5py, using only what
docs/entropy.md ("File schema") documents, and checks it for consistency and, optionally,
against values recomputed here with numpy from the source recording.

Usage: h5py_reads_entropy_schema.py FILE.h5 [--source REC.h5] [--csv FILE.csv]
                                    [--groups LABEL=N,...] [--recordings N]

Checks:
- the root schema and orientation attributes, the parameters group;
- per recording: dataset shapes (epochs x C x C, C x C), the average equals the NaN-skipping
  mean of the epoch matrices with average_epochs finite epochs, channel_entropy is the average's
  diagonal, epoch starts are epoch_samples apart, channel names and indices are present;
- per group: the mean is the NaN-skipping mean of its members' averages (--groups gives the
  expected member counts per label);
- with --source (a ModeScope recording HDF5, schema modescope-recording/1, the file recording 0
  was computed from): Cross-ApEn (or SampEn) of a few ordered channel pairs in the first and last
  epoch recomputed here from the float32 samples, straight from the definitions (z-score by
  population SD, Chebyshev distance, d <= r, natural log, the bias rule from the parameters);
- with --csv: the CSV export equals the average matrix of recording 0 with the channel names.

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import argparse
import csv
import math
import sys

import h5py
import numpy as np

sys.dont_write_bytecode = True
from h5py_check import as_str, check, report  # noqa: E402


def zscore(x, sd):
    x = np.asarray(x, dtype=np.float64)
    ddof = 1 if sd == "sample" else 0
    return (x - x.mean()) / x.std(ddof=ddof)


def xapen(u, v, m, r, bias):
    """Cross-ApEn(v||u): templates from u searched in v (docs/entropy.md, "What is computed")."""
    n = len(u)

    def counts(length, t):
        d = np.zeros((t, t))
        for k in range(length):
            d = np.maximum(d, np.abs(u[k:k + t, None] - v[None, k:k + t]))
        return (d <= r).sum(axis=1).astype(np.float64)

    cm = counts(m, n - m + 1) / (n - m + 1)
    cm1 = counts(m + 1, n - m) / (n - m)
    for i in range(n - m + 1):
        longer = i < n - m
        if bias == "zero":
            if cm[i] == 0:
                cm[i] = 1
                if longer:
                    cm1[i] = 1
            elif longer and cm1[i] == 0:
                cm1[i] = 1.0 / (n - m)
        else:
            if cm[i] == 0:
                cm[i] = 1
            if longer and cm1[i] == 0:
                cm1[i] = 1.0 / (n - m + 1)
    return np.log(cm).mean() - np.log(cm1).mean()


def sampen(u, v, m, r, same):
    n = len(u)
    t = n - m
    d = np.zeros((t, t))
    for k in range(m):
        d = np.maximum(d, np.abs(u[k:k + t, None] - v[None, k:k + t]))
    b_mask = d <= r
    d1 = np.maximum(d, np.abs(u[m:m + t, None] - v[None, m:m + t]))
    a_mask = d1 <= r
    if same:
        np.fill_diagonal(b_mask, False)
        np.fill_diagonal(a_mask, False)
    a, b = a_mask.sum(), b_mask.sum()
    return math.nan if a == 0 or b == 0 else -math.log(a / b)


def nanmean_count(stack):
    finite = np.isfinite(stack)
    count = finite.sum(axis=0)
    total = np.where(finite, stack, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return mean, count


def same_nan(a, b, tol):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all((np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= tol)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--source")
    ap.add_argument("--csv")
    ap.add_argument("--groups", default="")
    ap.add_argument("--recordings", type=int)
    a = ap.parse_args()

    f = h5py.File(a.file, "r")
    check(as_str(f.attrs["modescope_schema"]) == "modescope-entropy/1", "modescope_schema")
    check("template channel (u)" in as_str(f.attrs["orientation"]), "orientation text")
    p = f["parameters"].attrs
    measure, m, r = as_str(p["measure"]), int(p["m"]), float(p["r"])
    bias, sd = as_str(p["bias"]), as_str(p["sd"])
    check(measure in ("apen", "sampen"), f"measure {measure}")
    check(bias in ("zero", "max"), f"bias {bias}")
    count = int(f.attrs["recording_count"])
    if a.recordings is not None:
        check(count == a.recordings, f"recording_count {count} != {a.recordings}")
    recs = [f["recordings"][f"{k:04d}"] for k in range(count)]
    for k, g in enumerate(recs):
        names = list(g["channels/name"].asstr()[...])
        c = len(names)
        e = int(g.attrs["epochs"])
        n = int(g.attrs["epoch_samples"])
        em = g["epoch_matrices"][...]
        avg = g["average"][...]
        check(em.dtype == np.float64 and em.shape == (e, c, c), f"rec {k}: epoch_matrices shape {em.shape}")
        check(avg.shape == (c, c), f"rec {k}: average shape {avg.shape}")
        mean, cnt = nanmean_count(em)
        check(same_nan(avg, mean, 1e-12), f"rec {k}: average != nanmean of epoch_matrices")
        check(np.array_equal(g["average_epochs"][...], cnt), f"rec {k}: average_epochs")
        check(same_nan(g["channel_entropy"][...], np.diag(avg), 0.0), f"rec {k}: channel_entropy")
        starts = g["epoch_start"][...]
        check(len(starts) == e and np.all(np.diff(starts) == n), f"rec {k}: epoch_start")
        check(g["constant_epochs"].shape == (e, c), f"rec {k}: constant_epochs shape")
        check(len(g["channels/recording_index"][...]) == c, f"rec {k}: recording_index")
        check(as_str(g["provenance"].attrs["method"]) == "xapen", f"rec {k}: provenance method")

    want_groups = dict(kv.split("=") for kv in a.groups.split(",") if kv)
    groups = f["groups"]
    seen = {}
    for key in sorted(groups.keys()):
        g = groups[key]
        label = as_str(g.attrs["label"])
        members = list(g["members"][...])
        seen[label] = len(members)
        stack = np.stack([recs[i]["average"][...] for i in members])
        mean, cnt = nanmean_count(stack)
        check(same_nan(g["mean"][...], mean, 1e-12), f"group {label}: mean")
        check(np.array_equal(g["count"][...], cnt), f"group {label}: count")
    for label, nmem in want_groups.items():
        check(seen.get(label) == int(nmem), f"group {label}: {seen.get(label)} members, want {nmem}")
    if want_groups:
        check(len(seen) == len(want_groups), f"groups {sorted(seen)} != {sorted(want_groups)}")

    if a.source:
        g = recs[0]
        src = h5py.File(a.source, "r")
        idx = list(g["channels/recording_index"][...])
        n = int(g.attrs["epoch_samples"])
        starts = list(g["epoch_start"][...])
        em = g["epoch_matrices"][...]
        c = len(idx)
        pairs = [(0, 0), (0, c - 1), (c - 1, 0), (c // 2, 1 % c)]
        for ei in (0, len(starts) - 1):
            s0 = starts[ei]
            for (u, v) in pairs:
                xu = zscore(src["signals"][str(idx[u])][s0:s0 + n], sd)
                xv = zscore(src["signals"][str(idx[v])][s0:s0 + n], sd)
                want = xapen(xu, xv, m, r, bias) if measure == "apen" else sampen(xu, xv, m, r, u == v)
                got = em[ei, u, v]
                # Same double arithmetic up to summation order: 1e-9 is far above rounding and far
                # below any change of a single match count (~1e-3 at these N).
                check(same_nan(got, want, 1e-9),
                      f"rec 0 epoch {ei} [{u}][{v}]: file {got!r}, numpy {want!r}")

    if a.csv:
        g = recs[0]
        names = list(g["channels/name"].asstr()[...])
        avg = g["average"][...]
        with open(a.csv, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        check(rows[0] == ["template\\target"] + names, "csv header")
        check(len(rows) == len(names) + 1, "csv rows")
        for u, row in enumerate(rows[1:]):
            check(row[0] == names[u], f"csv row {u} name")
            vals = np.array([float(x) for x in row[1:]])
            check(same_nan(vals, avg[u], 0.0), f"csv row {u} values")

    return report(a.file)


if __name__ == "__main__":
    sys.exit(main())
