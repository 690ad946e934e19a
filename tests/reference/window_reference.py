"""The data-loading study's utilisation per epoch window and its curve over epoch progress,
written from the study's notebook (its loop over df_timings, np.convolve(..., mode="valid"),
scaled_stack, np.linspace(0, 1, len(y)) * 100), not from campaign's code, and compared with the
report campaign wrote from the same files.

  data DIR        writes the recording: per case DIR/<case>/utilisation-node1.csv (10 Hz, gpu0)
                  and epochs.csv, epochs of different lengths, the last one past the samples
  check DIR REPORT  the study's numbers from DIR against REPORT/util.json and util-progress.json
                  (exit 0: every value within 1e-9 relative)
  mean DIR        the grand mean of the groups' utilisation (bench/window_bench.cpp times this)
Cases are named <anything>-<loader>-io<limit>-r<repeat>.
"""
import json
import os
import sys

import numpy as np
import pandas as pd

from compare import Comparison

WARMUP, WINDOW = 1, 5
LOADERS, LIMITS, REPEATS = ["original", "ring_buffer"], [100, 200], 3


def case_name(loader, limit, rep):
    return "wr-%s-io%d-r%d" % (loader, limit, rep)


def write_data(root):
    rng = np.random.default_rng(24)
    for loader in LOADERS:
        for limit in LIMITS:
            for rep in range(1, REPEATS + 1):
                d = os.path.join(root, case_name(loader, limit, rep))
                os.makedirs(d)
                t0 = 1764075600.0 + 1000 * rep + 10000 * limit
                # Epoch lengths differ (2 to 5 s), so do their sample counts; gaps between epochs.
                starts, ends, t = [], [], t0 + 0.537
                for e in range(6):
                    length = rng.uniform(2.0, 5.0) * (1.5 if loader == "original" else 1.0)
                    starts.append(t), ends.append(t + length)
                    t += length + rng.uniform(0.05, 0.3)
                last = ends[-2] + 0.4  # the last epoch ends after the last sample
                times = np.round(np.arange(t0, last, 0.1) + rng.uniform(0, 0.004, 1), 3)
                level = 40 if loader == "original" else 70
                util = np.clip(level + 25 * np.sin(times * 1.7) + rng.normal(0, 8, len(times)), 0, 100)
                pd.DataFrame({"time": ["%.3f" % x for x in times], "device": "gpu0",
                              "utilization": ["%.4f" % u for u in util]}).to_csv(
                    os.path.join(d, "utilisation-node1.csv"), index=False)
                pd.DataFrame({"epoch": range(6), "start_time": ["%.6f" % s for s in starts],
                              "end_time": ["%.6f" % e for e in ends],
                              "epoch_time": ["%.6f" % (e - s) for s, e in zip(starts, ends)]}).to_csv(
                    os.path.join(d, "epochs.csv"), index=False)


def scaled_stack(arrays):
    """htc's scaled_stack: each 1-D array linearly interpolated (align_corners) to the longest."""
    m = max(len(a) for a in arrays)
    out = []
    for a in arrays:
        if len(a) < m:
            a = np.interp(np.arange(m) * (len(a) - 1) / (m - 1), np.arange(len(a)), a)
        out.append(np.asarray(a, dtype=float))
    return np.stack(out)


def study(root):
    rows = []
    for name in sorted(os.listdir(root)):
        _, loader, io, rep = name.split("-")
        util = pd.read_csv(os.path.join(root, name, "utilisation-node1.csv"))
        df_timings = pd.read_csv(os.path.join(root, name, "epochs.csv"))
        df_timings = df_timings[df_timings.epoch >= WARMUP]
        util_gpu, util_time = util.utilization.to_numpy(), util.time.to_numpy()
        epoch_utils_agg, epoch_utils = [], []
        for _, row in df_timings.iterrows():
            assert len(util_time[util_time < row["start_time"]]) > 0, "Missing util values in the beginning"
            if len(util_time[util_time > row["end_time"]]) == 0:
                continue  # "Some util values are missing in the end (epoch is not used)"
            util_epoch = util_gpu[(util_time >= row["start_time"]) & (util_time <= row["end_time"])]
            epoch_utils_agg.append(np.mean(util_epoch))
            epoch_utils.append(np.convolve(util_epoch, np.ones(WINDOW) / WINDOW, mode="valid"))
        rows.append({"loader": loader, "io_limit": io[2:], "gpu_util": np.mean(epoch_utils_agg),
                     "epoch_utils": np.mean(scaled_stack(epoch_utils), axis=0)})
    df = pd.DataFrame(rows)
    return df.groupby(["loader", "io_limit"], as_index=False).agg(
        gpu_util_mean=pd.NamedAgg(column="gpu_util", aggfunc="mean"),
        epoch_utils_mean=pd.NamedAgg(column="epoch_utils", aggfunc=lambda x: np.mean(scaled_stack(list(x)), axis=0)),
        epoch_utils_std=pd.NamedAgg(column="epoch_utils", aggfunc=lambda x: np.std(scaled_stack(list(x)), axis=0)),
    )


def check(root, report):
    ref = study(root)
    summary = json.load(open(os.path.join(report, "util.json")))
    curves = json.load(open(os.path.join(report, "util-progress.json")))
    c = Comparison("window")
    same = c.same

    for _, r in ref.iterrows():
        sfx = "" if r.loader == LOADERS[0] else "_" + r.loader
        row = [x for x in summary["rows"] if str(x["io_limit"]) == r.io_limit][0]
        same("utilization%s at io_limit %s" % (sfx, r.io_limit), row["utilization" + sfx], r.gpu_util_mean)
        line = "_%s_%s" % (r.io_limit, r.loader)
        mean, std = r.epoch_utils_mean, r.epoch_utils_std
        values = [x for x in curves["rows"] if x["utilization" + line] is not None]
        if len(values) != len(mean):
            c.differ("%s: %d points, reference %d" % (line, len(values), len(mean)))
            continue
        progress = np.linspace(0, 1, len(mean)) * 100
        for j, x in enumerate(values):
            same("progress%s[%d]" % (line, j), x["progress" + line], progress[j])
            same("utilization%s[%d]" % (line, j), x["utilization" + line], mean[j])
            same("utilization_std%s[%d]" % (line, j), x["utilization_std" + line], std[j])
    return c.result()


if __name__ == "__main__":
    if sys.argv[1] == "data":
        write_data(sys.argv[2])
    elif sys.argv[1] == "mean":
        print(repr(study(sys.argv[2]).gpu_util_mean.mean()))
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
