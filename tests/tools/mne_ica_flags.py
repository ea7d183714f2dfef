#!/usr/bin/python3
"""MNE 1.3's artifact detectors on a ModeScope ICA decomposition, for the agreement test
(tests/integration/ica_flags_mne_test.cpp).

Usage: mne_ica_flags.py RECORDING ICA.h5 [--eog NAME,...] [--bipolar RIGHT,LEFT] [--ecg NAME]

The decomposition is handed to mne.preprocessing.ICA as read_ica_eeglab hands over EEGLAB's:
unmixing = U S V^T split into the unmixing matrix U S and the "PCA" rows V, no pre-whitening,
the channel means as pca_mean_. Channel positions are the ICA file's, on a 95 mm sphere, so the
muscle detector's geometry is ModeScope's. Prints one JSON object: for each EOG/ECG reference the
Pearson scores and the flagged components of find_bads_eog / find_bads_ecg(method='correlation'),
find_bads_ecg(method='ctps') scores and flags, and find_bads_muscle's scores and flags.
"""
import argparse
import json
import sys

import h5py
import mne
import numpy as np
from scipy import linalg


def text(values):
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recording")
    ap.add_argument("ica")
    ap.add_argument("--eog", default="")
    ap.add_argument("--bipolar", default="")
    ap.add_argument("--ecg", default="")
    a = ap.parse_args()
    mne.set_log_level("ERROR")

    with h5py.File(a.ica, "r") as f:
        labels = text(f["channels/label"][()])
        positions = f["channels/position"][()]
        unmixing = f["ica/unmixing"][()]
        mean = f["ica/mean"][()]
        first = int(f["ica"].attrs["first_sample"])
        samples = int(f["ica"].attrs["samples"])

    raw = mne.io.read_raw(a.recording, preload=True)

    def resolve(name):
        # EDF+ labels carry the type ("EOG VEOG", "EEG Fp1-REF"), PhysioNet's dots and its own
        # case ("Af7."): match the site inside them.
        for ch in raw.ch_names:
            site = ch.split(" ")[-1].split("-")[0].rstrip(".")
            if ch == name or site.lower() == name.lower():
                return ch
        raise SystemExit("no channel " + name + " in " + a.recording)

    given = [n for n in a.eog.split(",") if n]
    eog = [resolve(n) for n in given]
    ecg = resolve(a.ecg) if a.ecg else ""
    types = {name: "eog" for name in eog if name not in labels}
    if ecg:
        types[ecg] = "ecg"
    raw.set_channel_types(types)
    raw.crop(tmin=first / raw.info["sfreq"], tmax=(first + samples - 1) / raw.info["sfreq"])
    montage = mne.channels.make_dig_montage(
        ch_pos={l: p * 0.095 for l, p in zip(labels, positions)}, coord_frame="head")
    raw.set_montage(montage, on_missing="ignore")
    keys = dict(zip(eog, given))  # MNE's channel name -> the name the caller gave
    if a.bipolar:
        right, left = a.bipolar.split(",")
        bipolar = right + "-" + left
        raw = mne.set_bipolar_reference(raw, resolve(right), resolve(left), ch_name=bipolar,
                                        drop_refs=False, copy=True)
        raw.set_channel_types({bipolar: "eog"})
        eog.append(bipolar)
        keys[bipolar] = bipolar

    n = unmixing.shape[0]
    ica = mne.preprocessing.ICA(n_components=n, method="imported_eeglab")
    ica.current_fit = "eeglab"
    ica.ch_names = labels
    ica.n_pca_components = None
    ica.n_components_ = n
    ica.pre_whitener_ = np.full((len(labels), 1), 1e-6)  # MNE's volts back to the file's uV
    ica.pca_mean_ = mean
    u, s, vt = linalg.svd(unmixing, full_matrices=False)
    ica.unmixing_matrix_ = u * s
    ica.pca_components_ = vt
    ica.pca_explained_variance_ = s * s
    ica.info = mne.pick_info(raw.info, [raw.ch_names.index(l) for l in labels])
    ica._update_mixing_matrix()
    ica._update_ica_names()
    ica.reject_ = None

    out = {"components": n, "eog": {}, "ecg": {}}
    for name in eog:
        idx, scores = ica.find_bads_eog(raw, ch_name=name)
        out["eog"][keys[name]] = {"scores": np.atleast_1d(scores).tolist(),
                                  "flagged": sorted(int(i) for i in idx)}
    if ecg:
        idx, scores = ica.find_bads_ecg(raw, ch_name=ecg, method="correlation",
                                        measure="zscore", threshold=3.0)
        out["ecg"]["correlation"] = {"scores": np.atleast_1d(scores).tolist(),
                                     "flagged": sorted(int(i) for i in idx)}
        idx, scores = ica.find_bads_ecg(raw, ch_name=ecg, method="ctps")
        out["ecg"]["ctps"] = {"scores": np.atleast_1d(scores).tolist(),
                              "flagged": sorted(int(i) for i in idx),
                              "threshold": float(ica._get_ctps_threshold())}
    idx, scores = ica.find_bads_muscle(raw)
    out["muscle"] = {"scores": np.atleast_1d(scores).tolist(),
                     "flagged": sorted(int(i) for i in idx)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
