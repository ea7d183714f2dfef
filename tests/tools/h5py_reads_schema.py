#!/usr/bin/python3
"""Reads a ModeScope HDF5 file with h5py, using only what docs/hdf5-schema.md documents, and
compares it with the values the writer was given (a JSON file written by the C++ test).

Usage: h5py_reads_schema.py FILE.h5 EXPECTED.json [GROUP [SCHEMA.md]]

GROUP is the recording group ("/" for a recording file, "/jobs/0/result" inside a session).
With SCHEMA.md (docs/hdf5-schema.md), the page's Python example is run on FILE.h5 as written
there (only the file name and the channel name are substituted) and its results are checked too.
EXPECTED.json holds: "attrs" (recording-group string attributes), "channels" (one object per
channel: label, name, type, unit, sample_rate, position [x, y, z] or null, samples),
"annotations" (onset, duration, text), "provenance" (string attributes, wall_seconds,
parameters as [name, value] pairs) and optionally "session" (root attributes of a session file).

Exits 0 when everything matches, 1 with one line per mismatch otherwise.
"""

import json
import math
import sys

import h5py
import numpy as np

# The shared helpers sit next to this script (sys.path[0]); no bytecode cache in the source tree.
sys.dont_write_bytecode = True
from h5py_check import as_str, check, check_provenance, doc_python_example, report  # noqa: E402


def run_doc_example(doc_path, h5_path, want):
    code = doc_python_example(doc_path)
    code = code.replace('"cleaned.h5"', repr(h5_path)).replace('"Cz"', repr(want["channels"][0]["name"]))
    ns = {}
    exec(compile(code, doc_path + " (Python example)", "exec"), ns)
    first = want["channels"][0]
    check(np.array_equal(ns["cz"], np.array(first["samples"], dtype=np.float32)),
          "doc example: samples of the chosen channel")
    check(abs(ns["t"][-1] - first["last_time"]) < 1e-9, "doc example: time axis")
    check(list(ns["texts"]) == [a["text"] for a in want["annotations"]], "doc example: texts")
    check(list(ns["onsets"]) == [a["onset"] for a in want["annotations"]], "doc example: onsets")
    check(ns["method"] == want["provenance"]["attrs"]["method"], "doc example: method")
    check(ns["params"] == dict(want["provenance"]["parameters"]), "doc example: parameters")


def main():
    path, expected_path = sys.argv[1], sys.argv[2]
    group_path = sys.argv[3] if len(sys.argv) > 3 else "/"
    with open(expected_path, encoding="utf-8") as fh:
        want = json.load(fh)

    with h5py.File(path, "r") as f:
        if "session" in want:
            check(as_str(f.attrs["modescope_schema"]) == "modescope-session/1",
                  "session root modescope_schema")
            for k, v in want["session"].items():
                check(as_str(f.attrs[k]) == v, f"session attribute {k}")
            check(int(f["jobs"].attrs["count"]) >= 1, "/jobs count")

        g = f[group_path]
        # Root attributes (strings), schema first.
        check(as_str(g.attrs["modescope_schema"]) == "modescope-recording/1",
              "modescope_schema of the recording group")
        for k, v in want["attrs"].items():
            check(as_str(g.attrs[k]) == v, f"attribute {k}: {g.attrs.get(k)!r} != {v!r}")

        # Channel table: parallel 1-D datasets.
        ch = g["channels"]
        n = len(want["channels"])
        labels = ch["label"].asstr()[...]
        check(len(labels) == n, f"channel count {len(labels)} != {n}")
        names = ch["name"].asstr()[...]
        types = ch["type"].asstr()[...]
        units = ch["unit"].asstr()[...]
        rates = ch["sample_rate"][...]
        counts = ch["sample_count"][...]
        px, py, pz = (ch[c][...] for c in ("position_x", "position_y", "position_z"))
        check(rates.dtype == np.float64, "sample_rate is float64")
        check(counts.dtype == np.int64, "sample_count is int64")
        check(ch["digital_min"].dtype == np.int32, "digital_min is int32")
        for col in ("physical_min", "physical_max", "prefilter", "transducer", "digital_max"):
            check(len(ch[col]) == n, f"channels/{col} has one row per channel")
        for i, c in enumerate(want["channels"]):
            tag = f"channel {i}"
            check(labels[i] == c["label"], f"{tag} label {labels[i]!r}")
            check(names[i] == c["name"], f"{tag} name")
            check(types[i] == c["type"], f"{tag} type")
            check(units[i] == c["unit"], f"{tag} unit {units[i]!r} != {c['unit']!r}")
            check(rates[i] == c["sample_rate"], f"{tag} sample_rate {rates[i]} != {c['sample_rate']}")
            if c["position"] is None:
                check(math.isnan(px[i]) and math.isnan(py[i]) and math.isnan(pz[i]),
                      f"{tag} unknown position is NaN")
            else:
                check([px[i], py[i], pz[i]] == c["position"], f"{tag} position")
            ds = g[f"signals/{i}"]
            check(ds.dtype == np.float32, f"{tag} samples are float32")
            check(ds.ndim == 1, f"{tag} samples are 1-D")
            check(ds.shape[0] == counts[i], f"{tag} length equals sample_count")
            if ds.shape[0] > 0:
                check(ds.chunks is not None and ds.chunks[0] <= 65536, f"{tag} chunked")
                check(ds.compression == "gzip" and ds.shuffle, f"{tag} shuffle + gzip")
                check(ds.fletcher32, f"{tag} Fletcher-32 checksum")
            check(float(ds.attrs["sample_rate"]) == c["sample_rate"], f"{tag} attr sample_rate")
            check(as_str(ds.attrs["label"]) == c["label"], f"{tag} attr label")
            check(as_str(ds.attrs["unit"]) == c["unit"], f"{tag} attr unit")
            data = ds[...]
            expected = np.array(c["samples"], dtype=np.float32)
            check(data.shape == expected.shape and np.array_equal(data, expected),
                  f"{tag} samples differ (max |diff| "
                  f"{np.max(np.abs(data - expected)) if data.shape == expected.shape else 'n/a'})")
            # Time axis as documented: sample k at k / sample_rate.
            if data.size:
                check(abs((data.size - 1) / rates[i] - c["last_time"]) < 1e-9, f"{tag} time axis")

        # Annotations.
        a = g["annotations"]
        onset = a["onset"][...]
        duration = a["duration"][...]
        text = a["text"].asstr()[...]
        check(onset.dtype == np.float64 and duration.dtype == np.float64, "annotation times float64")
        wa = want["annotations"]
        check(len(onset) == len(wa), f"annotation count {len(onset)} != {len(wa)}")
        for i, x in enumerate(wa[: len(onset)]):
            check(onset[i] == x["onset"], f"annotation {i} onset")
            check(duration[i] == x["duration"], f"annotation {i} duration")
            check(text[i] == x["text"], f"annotation {i} text {text[i]!r} != {x['text']!r}")
        check(all(np.diff(onset) >= 0), "annotations sorted by onset")

        # Provenance.
        check_provenance(g["provenance"], want["provenance"])

    if len(sys.argv) > 4:
        run_doc_example(sys.argv[4], path, want)

    return report(f"{path}{group_path if group_path != '/' else ''}")


if __name__ == "__main__":
    sys.exit(main())
