#include "local/admission.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

namespace campaign::local {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// The reservation of the first job that does not fit: when it can start (kNever: no walltime
// guarantees it) and what is free then once it has started.
struct Reservation {
  int64_t at = kNever;
  resource::Pool after;
};

Reservation reserve(const resource::Pool& now, std::vector<std::pair<int64_t, const RunningJob*>> ends,
                    const resource::Demand& head) {
  std::sort(ends.begin(), ends.end(), [](auto& a, auto& b) { return a.first < b.first; });
  Reservation r{kNever, now};
  for (auto& [end, job] : ends) {
    if (end == kNever) break;
    r.after.give_back(job->demand, job->held);
    if (auto p = r.after.place(head)) {
      r.at = end;
      r.after.take(head, *p);
      return r;
    }
  }
  return r;  // never guaranteed: later jobs may take what fits now
}

}  // namespace

std::vector<Admission> admit(const resource::Node& machine, const std::vector<RunningJob>& running,
                             const std::vector<WaitingJob>& waiting, int64_t now_ms) {
  resource::Pool pool(1, machine);
  std::vector<RunningJob> placed;
  for (const RunningJob& r : running) {
    RunningJob j = r;
    if (j.held.empty()) {
      auto p = pool.place(j.demand);
      if (!p) continue;  // over-committed by an earlier version: nothing to hold for it
      j.held = *p;
    }
    try {
      pool.take(j.demand, j.held);
    } catch (const std::logic_error&) {
      continue;  // a record naming what another holds: keep the other's
    }
    placed.push_back(std::move(j));
  }
  std::optional<Reservation> reservation;
  std::vector<Admission> out;
  for (const WaitingJob& w : waiting) {
    auto p = pool.place(w.demand);
    if (!reservation) {
      if (p) {
        pool.take(w.demand, *p);
        placed.push_back({w.demand, *p, w.walltime_s > 0 ? now_ms + w.walltime_s * 1000 : 0});
        out.push_back({w.id, std::move(*p)});
        continue;
      }
      std::vector<std::pair<int64_t, const RunningJob*>> ends;
      for (auto& j : placed) ends.emplace_back(j.end_ms > 0 ? j.end_ms : kNever, &j);
      reservation = reserve(pool, std::move(ends), w.demand);
      continue;
    }
    if (!p) continue;
    const bool ends_before = w.walltime_s > 0 && now_ms + w.walltime_s * 1000 <= reservation->at;
    std::optional<resource::Placement> later;
    if (!ends_before) {
      later = reservation->after.place(w.demand);
      if (!later && reservation->at != kNever) continue;  // it would delay the reserved job
    }
    pool.take(w.demand, *p);
    if (later) reservation->after.take(w.demand, *later);
    placed.push_back({w.demand, *p, w.walltime_s > 0 ? now_ms + w.walltime_s * 1000 : 0});
    out.push_back({w.id, std::move(*p)});
  }
  return out;
}

}  // namespace campaign::local
