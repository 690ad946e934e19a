#!/usr/bin/python3
"""DS-Analyzer's summary table and what-if simulation, written for the tests
from its notebook's definitions (the data-stall study), sharing no code with
campaign's analysis/stalls.* and analysis/whatif.*.

Reads the stalls-rank<R>.csv files of one run directory (minicosmo's format:
Iteration, Epoch, Fetch time (sec), Fetch done time (sec), Training start
(sec), Iteration time (sec), Training Stall time (sec), ...) and follows the
notebook's steps: per GPU (rank) columns per iteration (`Start time_gpu{i}` =
fetch done - fetch time, `Fetch time (sec)_gpu{i}`, ...), the simulation of
each FETCH_ALIGN x START_ALIGN combination (`simulate_dataload`,
`simulate_training`), the per-iteration `sim_train_df` columns, then the
summary over the iterations whose `Index number` (index within the epoch) is
past the skipped ones, in epoch 1 only: mean and std of each column and Effective
Delay time (%). The notebook keeps `perf_df[perf_df["Epoch"] == 1]` (In [1],
line 55 of the study's text) and `simulation_df[simulation_df["Epoch"] == 1]`
(In [3], line 122); --epochs all keeps every epoch >= --warmup instead (the
project's named variant). Vectorised over iterations with numpy where the notebook loops with
iterrows; the order of the arithmetic is the notebook's. The notebook's
per-GPU alignment is called `rank` here.

Where the notebook uses datetimes (parsed exactly to the microsecond,
`pd.to_datetime(..., format='%Y-%m-%d %H:%M:%S.%f')`, In [3], line 103), times
are float seconds from the run's earliest fetch done, the fetch done times read
from their text as whole microseconds (integers) so that the differences are
exact; a float of Unix seconds would have a 0.24 us grain.

    ds_analyzer.py RUN_DIR [--warmup 1] [--epochs first|all] [--skip 11] [--threshold 0.030]
                   [--check REPORT_DIR CASE [--analysis stalls]]

Prints the summary row and one row per combination as CSV; with --check,
compares them with campaign's REPORT_DIR/<analysis>.csv (the row of CASE)
and <analysis>-whatif-<CASE>.csv, every column within 1e-9 relative (compare.py;
a value 0 here must be 0 there to 1e-9), and exits 1 on any difference.
"""

import argparse
import glob
import itertools
import math
import os
import re
import sys

import numpy as np
import pandas as pd

from compare import Comparison

ALIGNS = ["rank", "avg", "min"]
SUMMARY = ["Avg iteration time (sec)", "Avg training stall time (sec)", "Avg delay time (sec)",
           "Effective Delay time (%)", "Avg preprocessing start diff (sec)", "Avg preprocessing diff (sec)"]
# The sim_train_df column each summary column averages (the notebook's summary cell).
SOURCE = {"Avg iteration time (sec)": "Iteration time (sec)",
          "Avg training stall time (sec)": "Training stall time (sec)",
          "Avg delay time (sec)": "Delay time (sec)",
          "Avg preprocessing start diff (sec)": "Batch fetch start time diff (sec)",
          "Avg preprocessing diff (sec)": "Batch fetch time diff (sec)"}


def microseconds(text):
    """Decimal Unix seconds ("1700000001.123456") as whole microseconds, exactly: integer seconds and
    integer microseconds, never a float of the whole (the notebook's datetimes are exact to the us)."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("+-").partition(".")
    if frac[6:].strip("0"):
        raise ValueError(f"{text}: finer than a microsecond")
    return sign * (int(whole or "0") * 1_000_000 + int((frac + "000000")[:6]))


def load(run_dir):
    """The notebook's simulation_df: one row per (Epoch, Index number), per-GPU columns."""
    frames = []
    for path in sorted(glob.glob(os.path.join(run_dir, "stalls-rank*.csv"))):
        df = pd.read_csv(path, float_precision="round_trip", dtype={"Fetch done time (sec)": str})
        df["GPU"] = int(re.search(r"stalls-rank(\d+)\.csv$", path).group(1))
        frames.append(df)
    perf = pd.concat(frames, ignore_index=True).sort_values(["GPU", "Iteration"])
    done_us = perf["Fetch done time (sec)"].map(microseconds).astype("int64")
    # Integers below 2^53: the difference is exact, its seconds rounded once.
    perf["Start time"] = (done_us - done_us.min()) / 1e6 - perf["Fetch time (sec)"]
    perf["Index number"] = perf.groupby(["GPU", "Epoch"]).cumcount()
    wide = perf.pivot(index=["Epoch", "Index number"], columns="GPU",
                      values=["Start time", "Fetch time (sec)", "Iteration time (sec)",
                              "Training Stall time (sec)"])
    gpus = sorted(perf["GPU"].unique())
    wide.columns = [f"{name}_gpu{g}" for name, g in wide.columns]
    return wide.sort_index().reset_index(), gpus


def simulate(df, gpus, fetch_align, start_align):
    """The notebook's sim_train_df for one combination (its simulate_dataload + simulate_training)."""
    start_col = [f"Start time_gpu{g}" for g in gpus]
    fetch_col = [f"Fetch time (sec)_gpu{g}" for g in gpus]
    start = df[start_col].to_numpy()
    fetch = df[fetch_col].to_numpy()
    iteration = df[[f"Iteration time (sec)_gpu{g}" for g in gpus]].to_numpy()
    stall = df[[f"Training Stall time (sec)_gpu{g}" for g in gpus]].to_numpy()
    n = len(gpus)
    # simulate_dataload
    if start_align == "avg":
        hi, lo = df[start_col].max(axis=1).to_numpy(), df[start_col].min(axis=1).to_numpy()
        sim_start = np.repeat((hi - ((hi - lo) / 2))[:, None], n, axis=1)
    elif start_align == "min":
        sim_start = np.repeat(df[start_col].min(axis=1).to_numpy()[:, None], n, axis=1)
    else:
        sim_start = start
    if fetch_align == "avg":
        sim_fetch = np.repeat(df[fetch_col].mean(axis=1).to_numpy()[:, None], n, axis=1)
    elif fetch_align == "min":
        sim_fetch = np.repeat(df[fetch_col].min(axis=1).to_numpy()[:, None], n, axis=1)
    else:
        sim_fetch = fetch
    sim_done = sim_start + sim_fetch
    # simulate_training
    info_done = start + fetch
    pure = iteration - stall.max(axis=1)[:, None]
    later = info_done > sim_done
    earlier = info_done < sim_done
    shrunk = stall - (info_done - sim_done)
    shrunk = np.where(shrunk < 0.0, 0.000002, shrunk)
    grown = np.where(stall > 0.01, stall + (sim_done - info_done), stall)
    new_stall = np.where(later, shrunk, np.where(earlier, grown, stall))
    training_times = new_stall.max(axis=1)[:, None] + pure
    out = pd.DataFrame({"Epoch": df["Epoch"], "Index number": df["Index number"]})
    out["Iteration time (sec)"] = training_times.max(axis=1)
    out["Training stall time (sec)"] = new_stall.max(axis=1)
    out["Delay time (sec)"] = new_stall.max(axis=1) - new_stall.min(axis=1)
    out["Batch fetch time diff (sec)"] = sim_fetch.max(axis=1) - sim_fetch.min(axis=1)
    out["Batch fetch start time diff (sec)"] = sim_start.max(axis=1) - sim_start.min(axis=1)
    return out


def measured(df, gpus):
    """The per-iteration columns of the measured data (the notebook's per-GPU branch)."""
    def spread(name):
        v = df[[f"{name}_gpu{g}" for g in gpus]]
        return v.max(axis=1) - v.min(axis=1)
    stall = df[[f"Training Stall time (sec)_gpu{g}" for g in gpus]]
    out = pd.DataFrame({"Epoch": df["Epoch"], "Index number": df["Index number"]})
    out["Iteration time (sec)"] = df[[f"Iteration time (sec)_gpu{g}" for g in gpus]].max(axis=1)
    out["Training stall time (sec)"] = stall.max(axis=1)
    out["Delay time (sec)"] = stall.max(axis=1) - stall.min(axis=1)
    out["Batch fetch time diff (sec)"] = spread("Fetch time (sec)")
    out["Batch fetch start time diff (sec)"] = spread("Start time")
    return out


def summary(df, warmup, skip, threshold, epochs="first"):
    """The notebook's summary cell: mean, std and the effective delay over the kept iterations."""
    if epochs == "first":
        # perf_df[perf_df["Epoch"] == 1] (line 55), simulation_df[simulation_df["Epoch"] == 1] (line 122):
        # epoch 1 is the first after the warm-up epoch 0.
        first = df.loc[df["Epoch"] >= warmup, "Epoch"].min()
        df = df[df["Epoch"] == first]
    else:
        df = df[df["Epoch"] >= warmup]
    # df[df["Index number"]>10] (line 327): the first `skip` (11) iterations of the epoch left out.
    df = df[df["Index number"] > skip - 1]
    row = {"iterations": len(df)}
    for name in SUMMARY:
        if name == "Effective Delay time (%)":
            row[name] = float(len(df[df["Delay time (sec)"] > threshold])) / float(len(df)) * 100.0
            continue
        row[name] = df[SOURCE[name]].mean()
        row[name + "_std"] = df[SOURCE[name]].std()
    return row


def reference(run_dir, warmup, skip, threshold, epochs="first"):
    df, gpus = load(run_dir)
    base = summary(measured(df, gpus), warmup, skip, threshold, epochs)
    base["ranks"] = len(gpus)
    rows = []
    before = summary(simulate(df, gpus, "rank", "rank"), warmup, skip, threshold,
                     epochs)["Avg iteration time (sec)"]
    for fetch_align, start_align in itertools.product(ALIGNS, ALIGNS):
        r = summary(simulate(df, gpus, fetch_align, start_align), warmup, skip, threshold, epochs)
        r.update({"fetch": fetch_align, "start": start_align})
        r["Saving (sec)"] = before - r["Avg iteration time (sec)"]
        r["Saving (%)"] = 100 * r["Saving (sec)"] / before
        rows.append(r)
    return base, rows


def same(c, name, got, want):
    """One value through the references' comparison; NaN (a std of one iteration) only equals NaN."""
    got, want = float(got), float(want)
    if math.isnan(got) or math.isnan(want):
        if not (math.isnan(got) and math.isnan(want)):
            c.differ("%s: campaign %r, reference %r" % (name, got, want))
        return
    if want == 0:  # a spread of equal values, a saving of nothing: exactly 0 on both sides
        c.same(name, got + 1.0, 1.0)
        return
    c.same(name, got, want)


def check(base, rows, report_dir, case, analysis):
    c = Comparison(case)
    summary_csv = pd.read_csv(os.path.join(report_dir, f"{analysis}.csv"), float_precision="round_trip")
    got = summary_csv[summary_csv["case"] == case]
    if len(got) != 1:
        c.differ(f"{analysis}.csv has {len(got)} rows of case {case}")
        return c
    for k, v in base.items():
        same(c, f"{analysis}.csv {k}", got.iloc[0][k], v)
    stem = re.sub(r"[^A-Za-z0-9_.=]", "_", case)  # as campaign names a table's files
    whatif = pd.read_csv(os.path.join(report_dir, f"{analysis}-whatif-{stem}.csv"), float_precision="round_trip")
    if len(whatif) != len(rows):
        c.differ(f"{analysis}-whatif-{stem}.csv has {len(whatif)} rows, the reference {len(rows)}")
    for r in rows:
        w = whatif[(whatif["fetch"] == r["fetch"]) & (whatif["start"] == r["start"])]
        if len(w) != 1:
            c.differ(f"no what-if row {r['fetch']}/{r['start']}")
            continue
        for k, v in r.items():
            if k not in ("fetch", "start", "iterations"):
                same(c, f"what-if {r['fetch']}/{r['start']} {k}", w.iloc[0][k], v)
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--warmup", type=float, default=1, help="epochs below it are left out (default 1)")
    ap.add_argument("--epochs", choices=["first", "all"], default="first",
                    help="first: the first epoch >= warmup only, the notebook's Epoch == 1 (default); all")
    ap.add_argument("--skip", type=int, default=11, help="iterations left out at each epoch's start (11)")
    ap.add_argument("--threshold", type=float, default=0.030, help="effective delay threshold, s (0.030)")
    ap.add_argument("--check", nargs=2, metavar=("REPORT_DIR", "CASE"))
    ap.add_argument("--analysis", default="stalls")
    a = ap.parse_args()
    base, rows = reference(a.run_dir, a.warmup, a.skip, a.threshold, a.epochs)
    cols = ["fetch", "start", "iterations"] + [c for n in SUMMARY for c in (n, n + "_std")
                                               if c in rows[0]] + ["Saving (sec)", "Saving (%)"]
    table = pd.DataFrame([dict(base, fetch="measured", start="")] + rows)
    table[cols + ["ranks"]].to_csv(sys.stdout, index=False, float_format="%.17g")
    if a.check:
        sys.stdout = sys.stderr  # the comparison's lines after the table
        sys.exit(check(base, rows, a.check[0], a.check[1], a.analysis).result())


if __name__ == "__main__":
    main()
