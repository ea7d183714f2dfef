#!/usr/bin/python3
"""Reads a ModeScope AR result file (schema modescope-ar/1) with h5py, using only what
docs/ar.md ("HDF5 file") documents, and checks it three ways:

1. layout and types: every documented object is there with its documented dtype, shape and units;
2. internal consistency, recomputed here with numpy (an oracle independent of the C++ code):
   bin centres = first + k * width; window end times = (first_sample + start + N) / fs;
   per-class mean maps = the mean of the per-trial features; r^2 = Pearson's r^2 between each
   row x bin feature and the class label (1 = A, 0 = B) over all trials, in [0, 1];
   signed r^2 = sign(mean_a - mean_b) * r^2; a common average reference matrix is I - 1/C;
   spectra of power output are >= 0;
3. with EXPECTED.json (written by the C++ test): the values the writer was given.

Usage: h5py_reads_ar_schema.py FILE.h5 [EXPECTED.json|-] [AR.md]

With AR.md, the Python example of the page's "Reading an AR result" section is run on FILE.h5 as
written there (only the file name is substituted) and its results are checked against the file.

EXPECTED.json may hold: "input_file"; "channels" (recording_index, name, label, type, unit,
position ([x, y, z] or null)); "ar" (the /ar attributes); "spectra", "noise_variance" (float32
values, flattened row-major); "bin_centers", "window_start_samples", "row_names",
"row_channels"; "spatial_filter" ({"attrs", "matrix" (rows), "input_names", "output_names",
"input_channels"}); "events" ({"attrs", "r2", "signed_r2", "mean_a", "mean_b" (flattened),
"row_names", "channels", "bin_centers", "class_a"/"class_b": {"label", "onset_seconds",
"first_sample", "samples", "annotation_index", "windows", "features" (flattened)}});
"diagnostics" ([severity, code, message] rows); "provenance".

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import math
import sys

import h5py
import numpy as np

sys.dont_write_bytecode = True
from h5py_check import (as_str, check, check_attrs, check_provenance, check_root,  # noqa: E402
                        doc_python_example, load_expected, report)

# r^2 recomputed here in double from the stored float64 features, against the stored float64
# r^2 computed in double by the engine from the same features: both sides are sums of ~100
# terms, so they agree to ~1e-15; 1e-9 absolute is far above rounding, far below any real error.
R2_TOL = 1e-9


def strings(ds):
    return list(ds.asstr()[...])


def same(data, values, dtype, what):
    want = np.array(values, dtype=dtype).reshape(data.shape) if np.size(values) == data.size \
        else None
    ok = want is not None and data.dtype == dtype and np.array_equal(data, want)
    check(ok, f"{what}: {data.dtype} {data.shape} differs from the expected values")


def pearson_r2(a, b):
    """r^2 between feature and label over trials; a: nA x ..., b: nB x ... (numpy)."""
    x = np.concatenate([a, b], axis=0)
    y = np.concatenate([np.ones(len(a)), np.zeros(len(b))])
    xc = x - x.mean(axis=0)
    yc = (y - y.mean()).reshape((-1,) + (1,) * (x.ndim - 1))
    sxy = (xc * yc).sum(axis=0)
    sxx = (xc * xc).sum(axis=0)
    syy = (yc * yc).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(sxx > 0, sxy / np.sqrt(sxx * syy), 0.0)
    return r * r, np.sign(r)


def check_layout_and_consistency(f):
    ct = f["channels"]
    n = ct["recording_index"].shape[0]
    check(ct["recording_index"].dtype == np.int64, "channels/recording_index int64")
    for c in ("name", "label", "type", "unit"):
        check(ct[c].shape == (n,), f"channels/{c} [C]")
    check(ct["position"].dtype == np.float64 and ct["position"].shape == (n, 3),
          "channels/position float64 [C x 3]")

    g = f["ar"]
    fs = float(g.attrs["sample_rate"])
    N = int(g.attrs["window_samples"])
    first = int(g.attrs["first_sample"])
    output = as_str(g.attrs["output"])
    check(output in ("power", "amplitude", "coefficients"), f"/ar@output {output!r}")
    check(as_str(g.attrs["detrend"]) in ("none", "mean", "linear"), "/ar@detrend")
    check(as_str(g.attrs["bin_grid"]) in ("midpoints", "edge-inclusive"), "/ar@bin_grid")
    for k in ("order", "window_samples", "step_samples", "first_sample", "evaluations_per_bin"):
        check(np.issubdtype(np.asarray(g.attrs[k]).dtype, np.integer), f"/ar@{k} integer")
    names = strings(g["row_names"])
    rows = len(names)
    starts = g["window_start_samples"][...]
    W = len(starts)
    centers = g["bin_centers"][...]
    spectra = g["spectra"][...]
    per = int(g.attrs["order"]) if output == "coefficients" else len(centers)
    check(spectra.dtype == np.float32 and spectra.shape == (rows, W, per),
          f"/ar/spectra float32 {spectra.shape} != {(rows, W, per)}")
    check(as_str(g["spectra"].attrs["units"]) == as_str(g.attrs["units"]), "/ar/spectra@units")
    nv = g["noise_variance"][...]
    check(nv.dtype == np.float32 and nv.shape == (rows, W), "/ar/noise_variance float32 [R x W]")
    check(bool(np.all(nv >= 0)), "/ar/noise_variance >= 0")
    check(g["row_channels"].shape == (rows,), "/ar/row_channels [R]")
    if output != "coefficients":
        k = np.arange(len(centers))
        want = float(g.attrs["first_bin_center_hz"]) + k * float(g.attrs["bin_width_hz"])
        check(np.allclose(centers, want, rtol=0, atol=1e-9), "/ar/bin_centers = first + k width")
        check(math.isclose(centers[-1], float(g.attrs["last_bin_center_hz"]), abs_tol=1e-9),
              "/ar/bin_centers ends at last_bin_center_hz")
        check(bool(np.all(np.isfinite(spectra))) and bool(np.all(spectra >= 0)),
              "/ar/spectra finite and >= 0")
    ends = g["window_end_seconds"][...]
    check(np.allclose(ends, (first + starts + N) / fs, rtol=1e-15, atol=0),
          "/ar/window_end_seconds = (first_sample + start + N) / fs")
    check(bool(np.all(np.diff(starts) == int(g.attrs["step_samples"]))) if W > 1 else True,
          "/ar/window_start_samples spaced by step_samples")

    if "spatial_filter" in f:
        s = f["spatial_filter"]
        m = s["matrix"][...]
        ins, outs = strings(s["input_names"]), strings(s["output_names"])
        check(m.dtype == np.float64 and m.shape == (len(outs), len(ins)),
              "/spatial_filter/matrix float64 [out x in]")
        check(outs == names, "/spatial_filter/output_names == /ar/row_names")
        check(s["input_channels"].shape == (len(ins),), "/spatial_filter/input_channels")
        if as_str(s.attrs["spec"]) == "car":
            c = len(ins)
            check(np.allclose(m, np.eye(c) - 1.0 / c, rtol=0, atol=1e-15),
                  "CAR matrix = I - 1/C")

    if "events" in f:
        e = f["events"]
        rn = strings(e["row_names"])
        bc = e["bin_centers"][...]
        shape = (len(rn), len(bc))
        maps = {k: e[k][...] for k in ("r2", "signed_r2", "mean_a", "mean_b")}
        for k, v in maps.items():
            check(v.dtype == np.float64 and v.shape == shape, f"/events/{k} float64 {shape}")
        r2 = maps["r2"]
        check(bool(np.all(np.isfinite(r2))) and bool(np.all((r2 >= 0) & (r2 <= 1))),
              "/events/r2 finite and in [0, 1]")
        feats = {}
        for cls, n_attr, mean_key in (("class_a", "trials_a", "mean_a"),
                                      ("class_b", "trials_b", "mean_b")):
            c = e[cls]
            t = int(e.attrs[n_attr])
            check(int(c.attrs["trials"]) == t, f"/events/{cls}@trials == trials_{cls[-1]}")
            for col in ("onset_seconds", "start_seconds", "first_sample", "samples",
                        "annotation_index", "windows"):
                check(c[col].shape == (t,), f"/events/{cls}/{col} [{t}]")
            x = c["features"][...]
            check(x.dtype == np.float64 and x.shape == (t,) + shape,
                  f"/events/{cls}/features float64 {(t,) + shape}")
            feats[cls] = x
            if t > 0 and x.shape == (t,) + shape:
                check(np.allclose(x.mean(axis=0), maps[mean_key], rtol=1e-12, atol=1e-300),
                      f"/events/{mean_key} = mean of the {cls} features")
            check(as_str(c.attrs["label"]) == as_str(e.attrs[cls]), f"/events/{cls}@label")
        if all(feats[k].shape[1:] == shape and feats[k].shape[0] > 0 for k in feats):
            want, sign = pearson_r2(feats["class_a"], feats["class_b"])
            check(np.allclose(r2, want, rtol=0, atol=R2_TOL), "/events/r2 = Pearson r^2 of the "
                  f"features (largest difference {np.max(np.abs(r2 - want)):.3g})")
            check(np.allclose(maps["signed_r2"], sign * want, rtol=0, atol=R2_TOL),
                  "/events/signed_r2 = sign(r) r^2")
            d = maps["mean_a"] - maps["mean_b"]
            check(bool(np.all((maps["signed_r2"] == 0) | (np.sign(maps["signed_r2"]) == np.sign(d)))),
                  "/events/signed_r2 sign follows mean_a - mean_b")

    d = f["diagnostics"]
    nd = d["severity"].shape[0]
    check(d["code"].shape == (nd,) and d["message"].shape == (nd,), "diagnostics table")


def check_expected(f, want):
    check_root(f, "modescope-ar/1", want)
    if "channels" in want:
        ct = f["channels"]
        idx, pos = ct["recording_index"][...], ct["position"][...]
        cols = {c: strings(ct[c]) for c in ("name", "label", "type", "unit")}
        check(len(idx) == len(want["channels"]), "channel count")
        for i, c in enumerate(want["channels"][:len(idx)]):
            check(int(idx[i]) == c["recording_index"], f"channel {i} recording_index")
            for col in cols:
                check(cols[col][i] == c[col], f"channel {i} {col}: {cols[col][i]!r}")
            if c["position"] is None:
                check(all(math.isnan(v) for v in pos[i]), f"channel {i} position NaN row")
            else:
                check(list(pos[i]) == c["position"], f"channel {i} position")
    g = f["ar"]
    if "ar" in want:
        check_attrs(g, want["ar"], "/ar")
    for k, dt in (("spectra", np.float32), ("noise_variance", np.float32),
                  ("bin_centers", np.float64), ("window_start_samples", np.int64),
                  ("row_channels", np.int64)):
        if k in want:
            same(g[k][...], want[k], dt, f"/ar/{k}")
    if "row_names" in want:
        check(strings(g["row_names"]) == want["row_names"], "/ar/row_names")
    if "spatial_filter" in want:
        s, w = f["spatial_filter"], want["spatial_filter"]
        check_attrs(s, w["attrs"], "/spatial_filter")
        same(s["matrix"][...], w["matrix"], np.float64, "/spatial_filter/matrix")
        for k in ("input_names", "output_names"):
            check(strings(s[k]) == w[k], f"/spatial_filter/{k}")
        same(s["input_channels"][...], w["input_channels"], np.int64,
             "/spatial_filter/input_channels")
    elif "ar" in want:
        check("spatial_filter" not in f, "no /spatial_filter expected")
    if "events" in want:
        e, w = f["events"], want["events"]
        check_attrs(e, w["attrs"], "/events")
        for k in ("r2", "signed_r2", "mean_a", "mean_b", "bin_centers"):
            same(e[k][...], w[k], np.float64, f"/events/{k}")
        same(e["channels"][...], w["channels"], np.int64, "/events/channels")
        check(strings(e["row_names"]) == w["row_names"], "/events/row_names")
        for cls in ("class_a", "class_b"):
            c, wc = e[cls], w[cls]
            check(as_str(c.attrs["label"]) == wc["label"], f"/events/{cls}@label")
            same(c["onset_seconds"][...], wc["onset_seconds"], np.float64,
                 f"/events/{cls}/onset_seconds")
            for k in ("first_sample", "samples", "annotation_index", "windows"):
                same(c[k][...], wc[k], np.int64, f"/events/{cls}/{k}")
            same(c["features"][...], wc["features"], np.float64, f"/events/{cls}/features")
    elif "ar" in want:
        check("events" not in f, "no /events expected")
    if "diagnostics" in want:
        d = f["diagnostics"]
        got = [list(r) for r in zip(*(strings(d[c]) for c in ("severity", "code", "message")))]
        check(got == want["diagnostics"], f"diagnostics {got}")
    if "provenance" in want:
        check_provenance(f["provenance"], want["provenance"])


def run_doc_example(doc_path, h5_path):
    code = doc_python_example(doc_path, "### Reading an AR result")
    code = code.replace('"ar.h5"', repr(h5_path))
    ns = {}
    exec(compile(code, doc_path + " (AR Python example)", "exec"), ns)
    with h5py.File(h5_path, "r") as f:
        g = f["ar"]
        check(ns["rows"] == strings(g["row_names"]), "doc example: rows")
        check(np.array_equal(ns["spectra"], g["spectra"][...]), "doc example: spectra")
        check(np.array_equal(ns["freqs"], g["bin_centers"][...]), "doc example: freqs")
        check(np.array_equal(ns["times"], g["window_end_seconds"][...]), "doc example: times")
        if "events" in f:
            check(np.array_equal(ns["r2"], f["events/r2"][...]), "doc example: r2")
            i, k = np.unravel_index(np.argmax(f["events/r2"][...]), f["events/r2"].shape)
            check(ns["best"] == (strings(f["events/row_names"])[i],
                                 float(f["events/bin_centers"][k])), "doc example: best")


def main():
    path = sys.argv[1]
    want = load_expected(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "-" else None
    with h5py.File(path, "r") as f:
        check(as_str(f.attrs["modescope_schema"]) == "modescope-ar/1", "modescope_schema")
        check_layout_and_consistency(f)
        if want is not None:
            check_expected(f, want)
    if len(sys.argv) > 3:
        run_doc_example(sys.argv[3], path)
    return report(path)


if __name__ == "__main__":
    sys.exit(main())
