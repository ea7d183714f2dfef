#!/usr/bin/python3
"""What MNE-Python reads from EDF/BDF files, as JSON, for tests/integration/mne_agreement_test.

Usage: /usr/bin/python3 tests/tools/mne_summary.py FILE...
Prints one JSON list with an object per file (MNE's warnings go to stderr):
  file, n_channels (annotation channels excluded), ch_names, sfreq, rates (per channel, from the
  samples per record), samples_per_channel, record_length, n_times, duration (n_times / sfreq),
  annotations [[onset, duration, description]], stim {channel: [[onset_s, code]]} from
  mne.find_events with ModeScope's trigger rule, and data {channel: {first, last, mean}} in the
  file's physical unit for channels MNE did not resample. On failure: {file, error}.
"""
import json
import os
import sys

import numpy as np


def summary(path):
    import mne
    mne.set_log_level("ERROR")
    if path.lower().endswith(".bdf"):
        raw = mne.io.read_raw_bdf(path, preload=False)
    else:
        raw = mne.io.read_raw_edf(path, preload=False)
    ex = raw._raw_extras[0]
    sfreq = float(raw.info["sfreq"])
    record = float(np.atleast_1d(ex["record_length"])[0])
    tal = set(int(i) for i in np.atleast_1d(ex.get("tal_idx", [])))
    # n_samps covers every signal in the file, annotation signals included.
    n_samps = [int(n) for i, n in enumerate(ex["n_samps"]) if i not in tal]
    n_records = int(ex["n_records"])
    out = {
        "file": os.path.basename(path),
        "n_channels": len(raw.ch_names),
        "ch_names": list(raw.ch_names),
        "sfreq": sfreq,
        "record_length": record,
        "rates": [n / record for n in n_samps],
        "samples_per_channel": [n * n_records for n in n_samps],
        "n_times": int(raw.n_times),
        "duration": raw.n_times / sfreq,
        "annotations": [[float(a["onset"]), float(a["duration"]), str(a["description"])]
                        for a in raw.annotations],
    }
    stim = {}
    for idx in ex.get("stim_channel_idxs", []):
        name = raw.ch_names[idx]
        # ModeScope's rule (engine/io/trigger_channel.h): every change of (code & 0xFFFF) to a
        # non-zero value, the first sample included.
        ev = mne.find_events(raw, stim_channel=name, consecutive=True, shortest_event=1,
                             mask=0xFFFF, mask_type="and", initial_event=True, verbose="ERROR")
        stim[name] = [[float(s) / sfreq, int(c)] for s, _, c in ev]
    out["stim"] = stim
    data = {}
    units = np.asarray(ex["units"], dtype=float)
    stim_names = set(stim)
    for i, name in enumerate(raw.ch_names):
        if abs(n_samps[i] / record - sfreq) > 1e-9 or name in stim_names:
            continue  # MNE resampled this channel to sfreq; its samples are not the file's
        x = raw.get_data(picks=[i])[0] / units[i]
        data[name] = {"first": x[:16].tolist(), "last": x[-16:].tolist(), "mean": float(x.mean())}
    out["data"] = data
    return out


def main(paths):
    results = []
    for p in paths:
        try:
            results.append(summary(p))
        except Exception as e:  # reported per file; the C++ test decides what it means
            results.append({"file": os.path.basename(p), "error": f"{type(e).__name__}: {e}"})
    json.dump(results, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
