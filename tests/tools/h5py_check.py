"""Shared by the h5py schema checkers (h5py_reads_schema.py, h5py_reads_emd_schema.py): the
list of mismatches, string attributes as h5py hands them back, the Python example of
docs/hdf5-schema.md, the provenance group check, and the report the C++ tests read.
"""

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def as_str(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


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
