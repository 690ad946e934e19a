// `campaign trace`: a campaign's timeline in the Trace Event Format (the JSON
// object form that chrome://tracing and Perfetto open), built from catalog rows
// by a pure function so that it can be tested on hand-made rows.
//
// Rows ("threads"): one per case, in the process "campaign <name>" (By::case_),
// or one per case inside a process per node it ran on (By::node; attempts that
// never got a node are under "(no node)"). On a case's row each attempt is a
// complete event "attempt N" holding its phases: queued (submitted -> started),
// running (started -> ended), collecting (ended -> collected or
// collect_failed). An attempt that ended any other way than completed gets an
// instant event named by its state (node_fail, timeout, ...) with the reason; an
// attempt returned to the plan, one named "returned to plan".
//
// Where collected, sub-rows below the case's: "<case> epochs" (epoch_start,
// epoch_end: step = epoch, Unix seconds) and "<case> rank R" with each
// iteration's data stall and compute (collectors/stalls.yaml: stall_time,
// compute_time and training_start of rank R; the stall is the part of the
// iteration before training_start).
//
// Times: the scheduler's (submitted, started, ended) when the attempt has them,
// else those of its state events; the catalog keeps whole seconds. ts and dur
// are integer microseconds since the Unix epoch. A phase still open ends at the
// latest time the record holds (the trace reads no clock).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.hpp"

namespace campaign::trace {

enum class By { case_, node };

struct Options {
  By by = By::case_;
  // Iterations of each rank drawn (the first ones); all when unset.
  std::optional<std::size_t> iterations{};
};

struct Input {
  CampaignRecord campaign{};
  std::vector<AttemptRow> attempts{};     // every attempt of the campaign, retries included
  std::vector<EventRow> events{};         // its events; only "state" events are read
  std::vector<Catalog::Series> series{};  // those named by series_names()
};

// The metric series the trace draws (templates as metric_series_of takes them).
std::set<std::string> series_names();

// Everything of one campaign the trace needs, from a catalog opened for reading.
Input read(Catalog& catalog, const CampaignRecord& campaign);

// The trace: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}.
nlohmann::json build(const Input& in, const Options& options = {});
// The same trace as JSON text (the document build() makes, traceEvents first), written event by
// event: what `campaign trace` writes, without holding the document's tree. `count`: its events.
std::string write(const Input& in, const Options& options = {}, std::size_t* count = nullptr);

}  // namespace campaign::trace
