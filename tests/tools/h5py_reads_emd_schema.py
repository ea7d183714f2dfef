#!/usr/bin/python3
"""Reads a ModeScope EMD result file (schema modescope-emd/1) with h5py, using only what
docs/hdf5-schema.md ("EMD result files") documents, and compares it with the values the writer
was given (a JSON file written by the C++ test).

Usage: h5py_reads_emd_schema.py FILE.h5 EXPECTED.json [SCHEMA.md]

With SCHEMA.md, the Python example of the page's "Reading an EMD result" section is run on
FILE.h5 as written there (only the file name and the channel name are substituted) and its
results are checked too.

EXPECTED.json holds: "input_file"; "emd" (the /emd attributes by name, strings and numbers);
"channels" (one object per channel: name, label, unit, type, recording_index, group, modes
(rows of numbers), sifts, degenerate_members); "hht" (null, or: attrs, frequency_edges,
time_edges, time_edges_s, imf_selection, and per channel (same order) spectrum (rows), marginal,
imf_rows, mean_frequency, energy, and instantaneous_amplitude / instantaneous_frequency (rows) or
null); "diagnostics" ([stage, severity, code, message] rows); "provenance" (string attributes,
wall_seconds, parameters as [name, value] pairs).

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import sys

import h5py
import numpy as np

# The shared helpers sit next to this script (sys.path[0]); no bytecode cache in the source tree.
sys.dont_write_bytecode = True
from h5py_check import (as_str, check, check_attrs, check_provenance, check_root,  # noqa: E402
                        doc_python_example, load_expected, report)


def same_f32(data, rows, what):
    want = np.array(rows, dtype=np.float32)
    ok = data.dtype == np.float32 and data.shape == want.shape and np.array_equal(data, want)
    check(ok, f"{what}: {data.dtype} {data.shape} differs from {want.shape}")


def run_doc_example(doc_path, h5_path, want):
    code = doc_python_example(doc_path, "### Reading an EMD result")
    first = want["channels"][0]
    code = code.replace('"imfs.h5"', repr(h5_path)).replace('"Cz"', repr(first["name"]))
    ns = {}
    exec(compile(code, doc_path + " (EMD Python example)", "exec"), ns)
    modes = np.array(first["modes"], dtype=np.float32)
    check(np.array_equal(ns["modes"], modes), "doc example: modes")
    n_imfs = len(first["modes"]) - 1
    check(ns["rows"] == [f"IMF {k + 1}" for k in range(n_imfs)] + ["residue"],
          f"doc example: row names {ns['rows']}")
    rate = want["emd"]["sample_rate"]
    start_s = want["emd"]["start_s"]
    check(abs(ns["t"][0] - start_s) < 1e-12 and
          abs(ns["t"][-1] - (start_s + (modes.shape[1] - 1) / rate)) < 1e-9, "doc example: time axis")
    check(np.allclose(ns["signal"], modes.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5),
          "doc example: sum of the rows")
    check(ns["method"] == want["emd"]["method"], "doc example: method")
    if want["hht"] is not None:
        h0 = want["hht"]["channels"][0]
        check(np.array_equal(ns["spectrum"], np.array(h0["spectrum"], dtype=np.float32)),
              "doc example: spectrum")
        check(list(ns["f_edges"]) == want["hht"]["frequency_edges"], "doc example: f_edges")
        check(list(ns["t_edges"]) == want["hht"]["time_edges_s"], "doc example: t_edges")
        check(list(ns["mean_f"]) == h0["mean_frequency"], "doc example: mean_frequency")


def main():
    path, want = sys.argv[1], load_expected(sys.argv[2])

    with h5py.File(path, "r") as f:
        check_root(f, "modescope-emd/1", want)

        # Channel table.
        ct = f["channels"]
        n = len(want["channels"])
        idx = ct["recording_index"][...]
        check(idx.dtype == np.int64 and len(idx) == n, "channels/recording_index int64[C]")
        cols = {c: list(ct[c].asstr()[...]) for c in ("name", "label", "unit", "type", "group")}
        for i, c in enumerate(want["channels"]):
            check(int(idx[i]) == c["recording_index"], f"channel {i} recording_index")
            for col in ("name", "label", "unit", "type", "group"):
                check(cols[col][i] == c[col], f"channel {i} {col}: {cols[col][i]!r} != {c[col]!r}")

        # /emd attributes.
        e = f["emd"]
        check_attrs(e, want["emd"], "/emd")
        check(np.asarray(e.attrs["seed"]).dtype == np.uint64, "/emd@seed is uint64")

        # Modes per channel.
        for i, c in enumerate(want["channels"]):
            g = e[c["group"]]
            tag = f"channel {c['group']}"
            ds = g["modes"]
            same_f32(ds[...], c["modes"], f"{tag} modes")
            check(ds.ndim == 2, f"{tag} modes 2-D")
            check(ds.compression == "gzip" and ds.shuffle and ds.fletcher32,
                  f"{tag} modes shuffle + gzip + Fletcher-32")
            check(ds.chunks is not None and ds.chunks[1] <= 65536, f"{tag} modes chunked")
            check(as_str(ds.attrs["units"]) == c["unit"], f"{tag} modes units")
            rows = len(c["modes"])
            names = list(g["row_names"].asstr()[...])
            check(names == [f"IMF {k + 1}" for k in range(rows - 1)] + ["residue"],
                  f"{tag} row_names {names}")
            s = g["sifts"][...]
            check(s.dtype == np.int32 and list(s) == c["sifts"], f"{tag} sifts {list(s)}")
            check(int(g.attrs["imf_count"]) == rows - 1, f"{tag} imf_count")
            check(int(g.attrs["degenerate_members"]) == c["degenerate_members"],
                  f"{tag} degenerate_members")
            check(int(g.attrs["recording_index"]) == c["recording_index"], f"{tag} recording_index")
            check(as_str(g.attrs["name"]) == c["name"], f"{tag} name attribute")

        # HHT.
        wh = want["hht"]
        check(("hht" in f) == (wh is not None), "/hht present exactly when computed")
        if wh is not None and "hht" in f:
            h = f["hht"]
            for k, v in wh["attrs"].items():
                got = h.attrs[k]
                if isinstance(v, str):
                    check(as_str(got) == v, f"/hht@{k}: {got!r} != {v!r}")
                else:
                    check(float(got) == v, f"/hht@{k}: {got!r} != {v!r}")
            fe = h["frequency_edges"][...]
            check(fe.dtype == np.float64 and list(fe) == wh["frequency_edges"], "frequency_edges")
            te = h["time_edges"][...]
            check(te.dtype == np.int64 and list(te) == wh["time_edges"], "time_edges")
            ts = h["time_edges_s"][...]
            check(ts.dtype == np.float64 and np.allclose(ts, wh["time_edges_s"], rtol=0, atol=1e-12),
                  "time_edges_s")
            check(list(h["imf_selection"][...]) == wh["imf_selection"], "imf_selection")
            bins, tbins = int(h.attrs["frequency_bins"]), int(h.attrs["time_bins"])
            check(len(fe) == bins + 1 and len(te) == tbins + 1, "edges have bins + 1 entries")
            for i, c in enumerate(want["channels"]):
                g = h[c["group"]]
                hc = wh["channels"][i]
                tag = f"hht {c['group']}"
                sp = g["spectrum"]
                same_f32(sp[...], hc["spectrum"], f"{tag} spectrum")
                check(sp.shape == (bins, tbins), f"{tag} spectrum is bins x time bins")
                check(as_str(sp.attrs["quantity"]) == wh["attrs"]["quantity"], f"{tag} quantity")
                unit = c["unit"] + ("^2" if wh["attrs"]["quantity"] == "energy" else "")
                check(as_str(sp.attrs["units"]) == unit, f"{tag} spectrum units")
                mg = g["marginal"]
                check(mg.dtype == np.float64 and list(mg[...]) == hc["marginal"], f"{tag} marginal")
                check(as_str(mg.attrs["units"]) == unit + "*s", f"{tag} marginal units")
                check(list(g["imf_rows"][...]) == hc["imf_rows"], f"{tag} imf_rows")
                check(list(g["mean_frequency"][...]) == hc["mean_frequency"], f"{tag} mean_frequency")
                check(as_str(g["mean_frequency"].attrs["units"]) == "Hz", f"{tag} mean_frequency units")
                check(list(g["energy"][...]) == hc["energy"], f"{tag} energy")
                check(as_str(g["energy"].attrs["units"]) == c["unit"] + "^2*s", f"{tag} energy units")
                if hc["instantaneous_amplitude"] is None:
                    check("instantaneous_amplitude" not in g, f"{tag} no instantaneous series")
                else:
                    same_f32(g["instantaneous_amplitude"][...], hc["instantaneous_amplitude"],
                             f"{tag} instantaneous_amplitude")
                    same_f32(g["instantaneous_frequency"][...], hc["instantaneous_frequency"],
                             f"{tag} instantaneous_frequency")
                    check(as_str(g["instantaneous_frequency"].attrs["units"]) == "Hz",
                          f"{tag} instantaneous_frequency units")

        # Diagnostics.
        d = f["diagnostics"]
        got = [list(r) for r in zip(*(d[c].asstr()[...].tolist()
                                      for c in ("stage", "severity", "code", "message")))]
        check(got == want["diagnostics"], f"diagnostics {got}")

        # Provenance.
        check_provenance(f["provenance"], want["provenance"])

    if len(sys.argv) > 3:
        run_doc_example(sys.argv[3], path, want)

    return report(path)


if __name__ == "__main__":
    sys.exit(main())
