"""TAU's numbers from a pprof text, written from TAU's documentation and the ExaRL plan, not from
campaign's code, and compared with what `campaign import` recorded in a catalog.

pprof prints one listing per "NODE n;CONTEXT c;THREAD t:", then "FUNCTION SUMMARY (total):" and
"FUNCTION SUMMARY (mean):"; each row is %Time, Exclusive msec, Inclusive total msec, #Call,
#Subrs, Inclusive usec/call, Name, with times of a minute and more as m:ss.mmm. A line
"ROUTINE [ <comm> = ... ]" is TAU's per-communicator breakdown of ROUTINE's own line.
Definitions (issue 24): % of time in MPI = the untagged MPI_ routines' exclusive time over
`.TAU application`'s inclusive time, in the mean listing (pprof's %Time adds up to it). With node
listings, the POP Centre of Excellence's efficiencies (co-design.pop-coe.eu/metrics), useful
computation time = a rank's runtime (its `.TAU application` inclusive time) outside MPI:
  load balance             = average useful time / maximum useful time  (load_balance_efficiency)
  communication efficiency = maximum useful time / total runtime        (communication_efficiency.html:
                             "CommE = Maximum Useful Computation Time / Total Runtime")
  parallel efficiency      = load balance x communication efficiency    (parallel_efficiency.html:
                             "PE = Load Balance * Communication Efficiency")
the total runtime being the longest rank's. A mean listing alone (the ExaRL plan's) has no ranks:
no efficiencies.

Usage: tau_reference.py PPROF CATALOG CASE   (exit 0: every value within 1e-9 relative)
"""
import re
import sqlite3
import sys

import numpy as np

from compare import Comparison

pprof, catalog, case = sys.argv[1:4]


def msec(text):
    text = text.replace(",", "")
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds if ":" not in text else seconds * 1000


listings = []  # (kind, node, {name: (excl ms, incl ms, calls)})
for line in open(pprof):
    head = line.strip()
    m = re.match(r"NODE (\d+);CONTEXT (\d+);THREAD (\d+):", head)
    if m:
        listings.append(("node", int(m.group(1)), {}))
    elif head.startswith("FUNCTION SUMMARY (total)"):
        listings.append(("total", None, {}))
    elif head.startswith("FUNCTION SUMMARY (mean)"):
        listings.append(("mean", None, {}))
    elif head.startswith("USER EVENTS"):
        listings.append(("events", None, {}))
    elif re.match(r"[0-9.]", head) and listings and listings[-1][0] != "events":
        f = head.split(None, 6)
        listings[-1][2][f[6].strip()] = (msec(f[1]), msec(f[2]), float(f[3]))

by_kind = {k: rows for k, _, rows in listings if k in ("total", "mean")}
nodes = {}
for kind, node, rows in listings:
    if kind == "node":
        nodes.setdefault(node, {}).update(rows)
main = by_kind.get("mean") or nodes[min(nodes)]
comm = re.compile(r" \[ <comm> = ")

want = {}
for name, (excl, incl, calls) in main.items():
    if comm.search(name):
        want[("tau_exclusive_comm:" + name, None)] = excl / 1000
        want[("tau_calls_comm:" + name, None)] = calls
    else:
        want[("tau_exclusive:" + name, None)] = excl / 1000
        want[("tau_inclusive:" + name, None)] = incl / 1000
        want[("tau_calls:" + name, None)] = calls
app = main[".TAU application"][1]
want[("tau_application_time", None)] = app / 1000
mpi = sum(e for n, (e, _, _) in main.items() if n.startswith("MPI_") and not comm.search(n))
want[("component:mpi", None)] = mpi / 1000
want[("component_percent:mpi", None)] = 100 * mpi / app
for name, (excl, incl, calls) in by_kind.get("total", {}).items():
    if not comm.search(name):
        want[("tau_exclusive_total:" + name, None)] = excl / 1000
        want[("tau_inclusive_total:" + name, None)] = incl / 1000
        want[("tau_calls_total:" + name, None)] = calls
if nodes:
    routines = {n for rows in nodes.values() for n in rows if not comm.search(n)}
    for r in routines:
        for n in sorted(nodes):
            if r in nodes[n]:
                want[("tau_exclusive_rank:" + r, n)] = nodes[n][r][0] / 1000
    runtime = np.array([nodes[n][".TAU application"][1] for n in sorted(nodes)]) / 1000
    for i, n in enumerate(sorted(nodes)):
        want[("tau_application_time_rank", n)] = runtime[i]
    mpi_rank = np.array([sum(e for r, (e, _, _) in nodes[n].items() if r.startswith("MPI_") and not comm.search(r))
                         for n in sorted(nodes)]) / 1000
    useful = runtime - mpi_rank
    load_balance = useful.mean() / useful.max()
    communication = useful.max() / runtime.max()
    want[("pop_load_balance:mpi", None)] = load_balance
    want[("pop_communication_efficiency:mpi", None)] = communication
    want[("pop_parallel_efficiency:mpi", None)] = load_balance * communication
    print("POP: load balance %.6f, communication efficiency %.6f, parallel efficiency %.6f; mean time in "
          "MPI_Barrier() %.6f s" % (load_balance, communication, load_balance * communication,
                                     main.get("MPI_Barrier()", (0, 0, 0))[0] / 1000))

# The catalog's metrics of the case: rows of `metrics`, and `metric_series` packed per name (vals:
# float64 per value; steps: NULL for one whole-run value, k for steps k, k+1, ..., or int64 per value).
db = sqlite3.connect("file:%s?mode=ro" % catalog, uri=True)
join = " JOIN attempts a ON m.attempt_id = a.id JOIN cases c ON a.case_id = c.id WHERE c.name = ?"
got = {(name, step): value for name, step, value in db.execute("SELECT m.name, m.step, m.value FROM metrics m" + join,
                                                                 (case,))}
for name, steps, vals in db.execute("SELECT m.name, m.steps, m.vals FROM metric_series m" + join, (case,)):
    v = np.frombuffer(vals, dtype="<f8")
    if steps is None:
        got[(name, None)] = float(v[0])
        continue
    s = np.arange(steps, steps + len(v)) if isinstance(steps, int) else np.frombuffer(steps, dtype="<i8")
    got.update({(name, int(k)): float(x) for k, x in zip(s, v)})
c = Comparison(case + " (TAU)")
for key, value in sorted(want.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1)):
    c.same("%s" % (key,), got.get(key), value)
for key in got:
    if key[0].startswith(("tau_", "pop_")) and key not in want:
        c.differ("not in the reference: %s" % (key,))
sys.exit(c.result())
