#!/usr/bin/python3
"""Independent reference for tests/unit/ica_mne_test.cpp: MNE-Python's extended Infomax run with
EEGLAB runica's settings (fed these settings, MNE agrees with runica.m run in GNU Octave at mean
|correlation| 0.9994 on the 64-channel demo recording, 1 Hz high-passed).

usage: mne_infomax_runica.py DATA.f32 CHANNELS SAMPLES COMPONENTS SEED OUT.txt [MAX_STEPS]

DATA.f32 holds CHANNELS x SAMPLES little-endian float32, channel-major. Pre-processing is runica's:
channel means removed; for COMPONENTS < CHANNELS a projection onto the top principal components
(runica 'pca'); then sphere = 2 * inv(sqrtm(cov)) (cov with 1/(N-1)). mne.preprocessing.infomax
then runs with learning rate 0.00065/ln(CHANNELS), block ceil(min(5 ln N, 0.3 N)), stop 1e-6
(1e-7 above 32 components), anneal 0.98 past 60 degrees, MAX_STEPS (default 512) steps, blow-up 1e9 / 0.8 and no
small-angle stop. OUT.txt receives "STEPS SECONDS" (steps actually run) on the first line, then
the COMPONENTS x CHANNELS unmixing matrix (infomax weights times the sphere, PCA projection
included), one row per line.
"""
import math
import sys
import time

import logging

import numpy as np
from mne.preprocessing import infomax
from mne.utils import logger


class StepCounter(logging.Handler):
    """Counts MNE's per-step log lines: infomax() returns max_iter as its step count when the
    stopping rule fires, so the real count comes from the log."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.steps = 0

    def emit(self, record):
        if record.getMessage().startswith("step "):
            self.steps += 1


def main():
    path, chans, samples, comps, seed, out = sys.argv[1:7]
    max_steps = int(sys.argv[7]) if len(sys.argv) > 7 else 512
    chans, samples, comps, seed = int(chans), int(samples), int(comps), int(seed)
    data = np.fromfile(path, dtype="<f4").astype(np.float64).reshape(chans, samples)
    data -= data.mean(axis=1, keepdims=True)

    projection = np.eye(chans)
    if comps < chans:
        evals, evecs = np.linalg.eigh(data @ data.T / samples)
        projection = evecs[:, np.argsort(evals)[::-1][:comps]].T  # comps x chans
    reduced = projection @ data
    evals, evecs = np.linalg.eigh(np.cov(reduced))
    sphere = 2.0 * (evecs / np.sqrt(evals)) @ evecs.T  # 2 inv(sqrtm(cov)), symmetric
    sphered = sphere @ reduced

    counter = StepCounter()
    logger.addHandler(counter)
    start = time.time()
    weights = infomax(
        sphered.T,
        extended=True,
        l_rate=0.00065 / math.log(chans),
        block=int(math.ceil(min(5 * math.log(samples), 0.3 * samples))),
        w_change=1e-7 if comps > 32 else 1e-6,
        anneal_deg=60.0,
        anneal_step=0.98,
        max_iter=max_steps,
        blowup=1e9,
        blowup_fac=0.8,
        n_small_angle=None,
        random_state=seed,
        verbose=True,
    )
    seconds = time.time() - start
    logger.removeHandler(counter)
    steps = counter.steps
    unmixing = weights @ sphere @ projection
    with open(out, "w") as f:
        f.write("%d %.3f\n" % (steps, seconds))
        for row in unmixing:
            f.write(" ".join("%.17g" % v for v in row) + "\n")


if __name__ == "__main__":
    main()
