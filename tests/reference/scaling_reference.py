"""Rates over repetitions and MLPerf time to train, written from the studies' definitions, not
from campaign's code, and compared with the report campaign wrote from the same files.

Throughput over repetitions (the CosmoFlow study): samples / the mean of the repetitions' times
(not the mean of their throughputs: the inverse of an average is not the average of inverses, as
DS-Analyzer's notebook notes), its std propagated from the times' sample std: samples * std / mean^2;
ideal = throughput(r0) * r / r0, weak eff = throughput / ideal; strong speedup = time(r0) / time(r),
eff = speedup * r0 / r. MLPerf time to train: run_stop - run_start (time_ms of the :::MLLOG
records), scored only when run_stop's status is success; its plain mean over the repetitions, and
MLPerf HPC's score (mlcommons.org/en/training-hpc-10, Metric: "final results are obtained by measuring
the benchmark a benchmark-specific number of times, discarding the lowest and highest results, and
averaging the remaining results"), none with fewer than 3 runs.

  data DIR          writes per case DIR/<case>/history.csv (epoch times differing between the
                    repetitions) and mlperf.log (run_start, run_stop; one repetition aborted)
  check DIR REPORT  compares REPORT/weak.json, strong.json and ttt.json (exit 0: within 1e-9)
"""
import json
import os
import sys

import numpy as np
import pandas as pd

from compare import Comparison

RANKS, REPEATS, WARMUP = [1, 2, 4], 3, 1


def case_name(ranks, rep):
    return "tr-n%d-r%d" % (ranks, rep)


def write_data(root):
    rng = np.random.default_rng(2024)
    for r in RANKS:
        for rep in range(1, REPEATS + 1):
            d = os.path.join(root, case_name(r, rep))
            os.makedirs(d)
            times = rng.uniform(8, 14, 5) / r ** 0.8
            pd.DataFrame({"epoch": range(5), "time": ["%.6f" % t for t in times], "loss": 1.0,
                          "val_loss": 1.0}).to_csv(os.path.join(d, "history.csv"), index=False)
            start = 1764075600000 + 100000 * rep + 1000000 * r
            stop = start + int(rng.uniform(60000, 90000) / r ** 0.7)
            status = "aborted" if (r, rep) == (2, 3) else "success"
            with open(os.path.join(d, "mlperf.log"), "w") as f:
                for t, kind, key, meta in [(start, "INTERVAL_START", "run_start", {}),
                                           (stop, "INTERVAL_END", "run_stop", {"status": status})]:
                    rec = {"namespace": "", "time_ms": t, "event_type": kind, "key": key, "value": None,
                           "metadata": dict({"file": "train.py", "lineno": 1}, **meta)}
                    f.write(":::MLLOG " + json.dumps(rec) + "\n")


def reference(root):
    rows = []
    for name in sorted(os.listdir(root)):
        ranks = int(name.split("-")[1][1:])
        h = pd.read_csv(os.path.join(root, name, "history.csv"))
        recs = [json.loads(l.split(" ", 1)[1]) for l in open(os.path.join(root, name, "mlperf.log"))]
        start = [x["time_ms"] for x in recs if x["key"] == "run_start"][0]
        stop = [x for x in recs if x["key"] == "run_stop"][0]
        ttt = (stop["time_ms"] - start) / 1000 if stop["metadata"]["status"] == "success" else np.nan
        rows.append({"ranks": ranks, "time": h[h.epoch >= WARMUP].time.mean(), "ttt": ttt})
    df = pd.DataFrame(rows)
    g = df.groupby("ranks").agg(t=("time", "mean"), t_std=("time", "std"),
                                ttt=("ttt", "mean"), ttt_std=("ttt", "std"),
                                ttt_score=("ttt", mlperf_score)).reset_index()
    return g


def mlperf_score(times):
    """Discarding the lowest and highest results, averaging the remaining ones."""
    runs = sorted(t for t in times if not np.isnan(t))
    return np.mean(runs[1:-1]) if len(runs) >= 3 else np.nan


def check(root, report):
    g = reference(root)
    c = Comparison("scaling")
    same = c.same

    weak = {x["ranks"]: x for x in json.load(open(os.path.join(report, "weak.json")))["rows"]}
    strong = {x["ranks"]: x for x in json.load(open(os.path.join(report, "strong.json")))["rows"]}
    ttt = {x["ranks"]: x for x in json.load(open(os.path.join(report, "ttt.json")))["rows"]}
    r0 = g.iloc[0]
    for _, p in g.iterrows():
        r, samples = int(p.ranks), 64 * p.ranks
        thr = samples / p.t
        ideal = 64 * r0.ranks / r0.t * r / r0.ranks
        for col, want in [("times", p.t), ("times_std", p.t_std), ("throughputs", thr),
                          ("throughputs_std", samples * p.t_std / p.t ** 2), ("ideal", ideal), ("eff", thr / ideal)]:
            same("weak %s at %d" % (col, r), weak[r][col], want)
        speedup = r0.t / p.t
        for col, want in [("throughputs", 256 / p.t), ("throughputs_std", 256 * p.t_std / p.t ** 2),
                          ("speedup", speedup), ("eff", speedup * r0.ranks / r)]:
            same("strong %s at %d" % (col, r), strong[r][col], want)
        speedup = r0.ttt / p.ttt
        # At 2 ranks the aborted repetition is not scored: two are left.
        for col, want in [("time_to_train", p.ttt), ("time_to_train_std", p.ttt_std), ("speedup", speedup),
                          ("eff", speedup * r0.ranks / r)]:
            same("mlperf_strong %s at %d" % (col, r), ttt[r][col], want)
        # At 2 ranks two runs: no score (an empty cell), not a mean of none.
        score = ttt[r].get("time_to_train_score")
        if np.isnan(p.ttt_score):
            if score is not None:
                c.differ("mlperf_strong time_to_train_score at %d: campaign %r, the rule none" % (r, score))
        else:
            same("mlperf_strong time_to_train_score at %d" % r, score, p.ttt_score)
    return c.result()


if __name__ == "__main__":
    if sys.argv[1] == "data":
        write_data(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
