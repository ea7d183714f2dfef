"""Shared by the h5py schema checkers (h5py_reads_schema.py, h5py_reads_emd_schema.py,
h5py_reads_ica_schema.py): the list of mismatches, string attributes as h5py hands them back,
the expected values and the root attributes of a result file, typed attribute checks, the Python
example of docs/hdf5-schema.md, the provenance group check, and the report the C++ tests read.
"""

import json

import numpy as np

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def as_str(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def load_expected(path):
    """The JSON file of expected values the C++ test wrote."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def check_root(f, schema, want):
    """The root attributes of a result file: schema, software version, input_file."""
    check(as_str(f.attrs["modescope_schema"]) == schema, "modescope_schema")
    check(as_str(f.attrs["modescope_version"]).startswith("ModeScope "), "modescope_version")
    check(as_str(f.attrs["input_file"]) == want["input_file"], "input_file")


def check_attrs(obj, want, where):
    """Attributes of `obj` by name: strings compare as str, ints must be stored as integers,
    other numbers as float64."""
    for k, v in want.items():
        if k not in obj.attrs:
            check(False, f"{where}@{k} missing")
            continue
        got = obj.attrs[k]
        if isinstance(v, str):
            check(as_str(got) == v, f"{where}@{k}: {got!r} != {v!r}")
        elif isinstance(v, int) and not isinstance(v, bool):
            check(np.issubdtype(np.asarray(got).dtype, np.integer) and int(got) == v,
                  f"{where}@{k}: {got!r} != {v!r} (integer)")
        else:
            check(np.asarray(got).dtype == np.float64 and float(got) == v,
                  f"{where}@{k}: {got!r} != {v!r} (float64)")


def doc_python_example(doc_path, section=None):
    """The first ```python block of the page, or of its `section` (a heading line) when given."""
    with open(doc_path, encoding="utf-8") as fh:
        text = fh.read()
    begin = text.index(section) if section else 0
    start = text.index("```python\n", begin) + len("```python\n")
    return text[start:text.index("```", start)]


def check_provenance(p, want):
    """The provenance group `p` against want = {attrs, wall_seconds, parameters}."""
    for k, v in want["attrs"].items():
        check(as_str(p.attrs[k]) == v, f"provenance {k}")
    check(float(p.attrs["wall_seconds"]) == want["wall_seconds"], "provenance wall_seconds")
    pn = p["parameter_name"].asstr()[...]
    pv = p["parameter_value"].asstr()[...]
    check([list(t) for t in zip(pn, pv)] == want["parameters"], "provenance parameters")


def report(what):
    """Prints one line per mismatch and the summary; returns the exit code (0: all matched)."""
    for line in problems:
        print("MISMATCH:", line)
    print(f"checked {what}: {'OK' if not problems else str(len(problems)) + ' problem(s)'}")
    return 0 if not problems else 1
