// `campaign pack-exec MANIFEST`: the driver inside a packed allocation. It starts each case's script
// (`bash run_dir/job.sh`, in its own process group) as soon as what it asks of the allocation's
// nodes is free, biggest first (pack/slots.hpp), and frees it when the case ends.
//
// Several cases share a node while its cores and GPUs last (resource::Pool); where no launcher binds
// GPUs (the local executor: manifest's driver_binds_gpus) the driver names each case's own in
// CUDA_VISIBLE_DEVICES (or ROCR_VISIBLE_DEVICES), and a case without GPUs sees none.
//
// Invariants: a case is started at most once per allocation: its start marker (`run_dir/.start`,
// written atomically before the launch and naming the allocation and what it was given) is what a
// restarted driver finds and skips, holding what it was given while a process of the case holds its
// lock (pack/case_lock.hpp; without one: until its exit marker appears or its walltime has passed),
// and not ending before then: the allocation's end would cut it (on Slurm the allocation's script
// restarts a driver killed by a signal other than SIGTERM/SIGINT). The marker is written again,
// `launched`, once the case's script runs; a marker not `launched` whose lock is free and whose
// script wrote no start stamp is a launch the driver before never made: the restarted driver makes
// it. A case never started has no start marker, or one not `launched` (the orchestrator returns it
// to planned); the case script writes its own exit marker, the driver decides no retries; after
// SIGTERM or SIGINT nothing more starts, running cases get SIGTERM, then SIGKILL after the
// manifest's grace.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pack/manifest.hpp"

namespace campaign::pack {

// What `run_dir/.start` says (one JSON object).
struct StartMarker {
  std::string allocation;          // the allocation's job name
  std::string job_name;            // the case attempt's job name (its step's name)
  double time = 0;                 // Unix time of the launch, seconds
  std::vector<std::string> nodes;  // node names given to the case; empty when not known
  std::vector<size_t> slots;       // the allocation's node indices given to the case
  resource::Placement placement;   // and the cores and GPUs of each (slots alone in older markers)
  // Written false before the launch, true once the case's script runs: the evidence of a start where
  // the scheduler keeps no step records (engine/decide.hpp). Markers of older drivers lack it: true.
  bool launched = true;
};
std::string to_json(const StartMarker& m);
// nullopt when there is no marker or it cannot be read as one.
std::optional<StartMarker> read_start_marker(const std::filesystem::path& run_dir);
std::optional<StartMarker> parse_start_marker(const std::string& text);

struct DriverOptions {
  // The allocation's node names (in the case script as CAMPAIGN_NODES, comma-separated); empty:
  // unknown, the driver counts the manifest's nodes.
  std::vector<std::string> nodes;
  std::ostream* log = nullptr;  // one line per start and end; null: standard output
};

// Runs the allocation's cases; returns 0 when each case that could run has ended, 143 when a
// SIGTERM or SIGINT stopped it. Blocks SIGINT, SIGTERM and SIGCHLD in the calling thread (a
// single-threaded program's main thread). Throws Error when nothing can be set up.
int run_allocation(const Allocation& a, const DriverOptions& options = {});

}  // namespace campaign::pack
