#!/usr/bin/python3
"""Reads a ModeScope ICA result file (schema modescope-ica/1) with h5py, using only what
docs/hdf5-schema.md ("ICA result files") documents, and compares it with the values the writer
was given (a JSON file written by the C++ test).

Usage: h5py_reads_ica_schema.py FILE.h5 EXPECTED.json [SCHEMA.md]

With SCHEMA.md, the Python example of the page's "Reading an ICA result" section is run on
FILE.h5 as written there (only the file name is substituted) and its results are checked too.

EXPECTED.json holds: "input_file"; "channels" (one object per channel: recording_index, name,
label, type, unit, position ([x, y, z] or null)); "ica" (the /ica attributes by name, strings
and numbers); "float64" (name -> values of the 1-D float64 datasets under /ica); "units"
(dataset name under /ica -> its `units` attribute); "matrices" (name -> rows of the float64
matrices under /ica); "signs"; "parameters" (the /ica/parameters attributes by name);
"history" (column -> values); "diagnostics" ([severity, code, message] rows); "provenance"
(string attributes, wall_seconds, parameters as [name, value] pairs).

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import math
import sys

import h5py
import numpy as np

# The shared helpers sit next to this script (sys.path[0]); no bytecode cache in the source tree.
sys.dont_write_bytecode = True
from h5py_check import (as_str, check, check_attrs, check_provenance, check_root,  # noqa: E402
                        doc_python_example, load_expected, report)


def same_f64(data, values, what):
    want = np.array(values, dtype=np.float64)
    ok = data.dtype == np.float64 and data.shape == want.shape and np.array_equal(data, want)
    check(ok, f"{what}: {data.dtype} {data.shape} differs from {want.shape} or in value")


def run_doc_example(doc_path, h5_path, want):
    code = doc_python_example(doc_path, "### Reading an ICA result")
    code = code.replace('"ica.h5"', repr(h5_path))
    ns = {}
    exec(compile(code, doc_path + " (ICA Python example)", "exec"), ns)
    check(ns["names"] == [c["name"] for c in want["channels"]], "doc example: names")
    check(list(ns["rec_index"]) == [c["recording_index"] for c in want["channels"]],
          "doc example: rec_index")
    for k in ("mixing", "unmixing"):
        check(np.array_equal(ns[k], np.array(want["matrices"][k])), f"doc example: {k}")
    check(np.array_equal(ns["mean"], np.array(want["float64"]["mean"])), "doc example: mean")
    check(float(ns["rate"]) == want["ica"]["sample_rate"], "doc example: rate")
    check(int(ns["first"]) == want["ica"]["first_sample"] and int(ns["n"]) == want["ica"]["samples"],
          "doc example: first, n")
    check(np.array_equal(ns["explained"], np.array(want["float64"]["variance_fraction"])),
          "doc example: explained")
    check(list(ns["change"]) == want["history"]["change"], "doc example: change")
    check(ns["converged"] == bool(want["ica"]["converged"]), "doc example: converged")


def main():
    path, want = sys.argv[1], load_expected(sys.argv[2])

    with h5py.File(path, "r") as f:
        check_root(f, "modescope-ica/1", want)

        # Channel table.
        ct = f["channels"]
        n = len(want["channels"])
        idx = ct["recording_index"][...]
        check(idx.dtype == np.int64 and idx.shape == (n,), "channels/recording_index int64[C]")
        cols = {c: list(ct[c].asstr()[...]) for c in ("name", "label", "type", "unit")}
        pos = ct["position"][...]
        check(pos.dtype == np.float64 and pos.shape == (n, 3), "channels/position float64 [C x 3]")
        for i, c in enumerate(want["channels"]):
            check(int(idx[i]) == c["recording_index"], f"channel {i} recording_index")
            for col in ("name", "label", "type", "unit"):
                check(cols[col][i] == c[col], f"channel {i} {col}: {cols[col][i]!r} != {c[col]!r}")
            if c["position"] is None:
                check(all(math.isnan(v) for v in pos[i]), f"channel {i} position NaN row")
            else:
                check(list(pos[i]) == c["position"], f"channel {i} position {list(pos[i])}")

        # /ica attributes, vectors, matrices.
        g = f["ica"]
        check_attrs(g, want["ica"], "/ica")
        for k, v in want["float64"].items():
            same_f64(g[k][...], v, f"/ica/{k}")
        for k, u in want["units"].items():
            check(as_str(g[k].attrs["units"]) == u, f"/ica/{k}@units: {as_str(g[k].attrs['units'])!r}")
        for k, rows in want["matrices"].items():
            same_f64(g[k][...], rows, f"/ica/{k}")
            check("description" in g[k].attrs, f"/ica/{k}@description")
        s = g["signs"][...]
        check(s.dtype == np.int32 and list(s) == want["signs"], "/ica/signs int32")
        k = want["ica"]["components"]
        check(g["sphere"].shape == (k, n) and g["weights"].shape == (k, k) and
              g["unmixing"].shape == (k, n) and g["mixing"].shape == (n, k), "matrix shapes")

        # Parameters.
        p = g["parameters"]
        check_attrs(p, want["parameters"], "/ica/parameters")
        check(np.asarray(p.attrs["seed"]).dtype == np.uint64, "/ica/parameters@seed is uint64")
        check(len(as_str(p.attrs["description"])) > 0, "/ica/parameters@description")
        check("degrees" in as_str(p.attrs["units"]), "/ica/parameters@units")

        # History.
        h = g["history"]
        types = {"step": np.int64, "change": np.float64, "angle_deg": np.float64,
                 "learning_rate": np.float64, "restarted_after": np.int32, "sub_gaussian": np.int32}
        for col, t in types.items():
            d = h[col][...]
            check(d.dtype == t and list(d) == want["history"][col], f"/ica/history/{col}")

        # Diagnostics.
        d = f["diagnostics"]
        got = [list(r) for r in zip(*(d[c].asstr()[...].tolist()
                                      for c in ("severity", "code", "message")))]
        check(got == want["diagnostics"], f"diagnostics {got}")

        # Provenance.
        check_provenance(f["provenance"], want["provenance"])

    if len(sys.argv) > 3:
        run_doc_example(sys.argv[3], path, want)

    return report(path)


if __name__ == "__main__":
    sys.exit(main())
