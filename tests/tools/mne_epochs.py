#!/usr/bin/python3
"""Epochs and averages of an EDF file by MNE-Python, compared with a ModeScope epochs file.

Usage: mne_epochs.py EDF EPOCHS.h5 EVENTS TMIN TMAX BMIN BMAX REJECT_UV

EVENTS is comma-separated annotation texts. MNE reads the EDF itself (its own parser), makes
events with events_from_annotations, cuts mne.Epochs with the same window, baseline,
peak-to-peak rejection (reject={'eeg': REJECT_UV * 1e-6}, 0 = none) and reject_by_annotation,
and averages per condition. Prints one JSON object: the kept event onsets of both, and the
largest differences of the averages and standard errors (in uV), so the C++ test
(tests/integration/mne_epochs_test.cpp) decides.
"""
import json
import sys

import h5py
import mne
import numpy as np


def main():
    edf, h5, events_text, tmin, tmax, bmin, bmax, reject = sys.argv[1:9]
    tmin, tmax, bmin, bmax, reject = map(float, (tmin, tmax, bmin, bmax, reject))
    types = events_text.split(",")
    mne.set_log_level("ERROR")
    raw = mne.io.read_raw_edf(edf, preload=True)
    events, ids = mne.events_from_annotations(raw)
    event_id = {t: ids[t] for t in types}
    with h5py.File(h5, "r") as f:
        ours = [c.decode() if isinstance(c, bytes) else c for c in f["channels"][()]]
    # ModeScope normalises labels ("Fc5." -> "FC5"); match MNE's by letters, case-insensitively.
    key = {n.strip(".").upper(): n for n in raw.ch_names}
    picks = [key[c.upper()] for c in ours]
    epochs = mne.Epochs(raw, events, event_id=event_id, tmin=tmin, tmax=tmax,
                        baseline=(bmin, bmax), reject={"eeg": reject * 1e-6} if reject > 0 else None,
                        reject_by_annotation=True, preload=True, picks=picks)
    out = {"mne_version": mne.__version__, "conditions": []}
    with h5py.File(h5, "r") as f:
        conditions = [c.decode() if isinstance(c, bytes) else c for c in f["conditions"][()]]
        mean = f["averages/mean"][()]
        se = f["averages/standard_error"][()]
        onsets = f["epoch_onset"][()]
        cond_of = f["epoch_condition"][()]
        channels = [c.decode() if isinstance(c, bytes) else c for c in f["channels"][()]]
        out["ours_times"] = [float(f["times"][0]), float(f["times"][-1]), int(len(f["times"]))]
    out["mne_times"] = [float(epochs.times[0]), float(epochs.times[-1]), int(len(epochs.times))]
    out["channels_ours"] = len(channels)
    out["channels_mne"] = len(epochs.ch_names)
    sf = raw.info["sfreq"]
    for k, name in enumerate(types):
        ep = epochs[name]
        data = ep.get_data() * 1e6  # uV
        mne_mean = ep.average().data * 1e6
        mne_se = data.std(axis=0, ddof=1) / np.sqrt(data.shape[0])
        ours = [float(o) for o, c in zip(onsets, cond_of) if c == conditions.index(name)]
        theirs = [float(s) / sf for s in ep.events[:, 0]]
        out["conditions"].append({
            "name": name,
            "kept_ours": len(ours),
            "kept_mne": len(theirs),
            "onset_max_diff_s": float(np.max(np.abs(np.subtract(ours, theirs))))
            if len(ours) == len(theirs) and ours else None,
            "mean_max_abs_diff_uv": float(np.max(np.abs(mean[conditions.index(name)] - mne_mean))),
            "mean_max_abs_uv": float(np.max(np.abs(mne_mean))),
            "se_max_abs_diff_uv": float(np.max(np.abs(se[conditions.index(name)] - mne_se))),
            "se_max_abs_uv": float(np.max(np.abs(mne_se))),
        })
    out["dropped_mne"] = int(sum(1 for d in epochs.drop_log if d and d != ("IGNORED",)))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
