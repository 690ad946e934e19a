// The resource model: what a node offers (cores, GPUs, memory), what a case asks of each node it
// runs on, and the one fit function (`fit`) that says whether a case can run on nodes and what
// share of them it holds; Pool::place places cases with it. The local executor, the pack planner,
// the pack driver, `plan`'s node-hours and the checks of `validate` all use it, so a case that fits
// in one of them fits in all.
//
// Invariant: pure (no clock, no files, no processes); a Pool never gives one core or GPU twice,
// and an exclusive demand never shares a node.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace campaign::resource {

// What one node offers to cases. `memory_mb` 0: memory is not counted (the profile does not say).
struct Node {
  long cores = 1;
  long gpus = 0;
  long memory_mb = 0;
  bool operator==(const Node&) const = default;
};

// What a case asks of every node it spans (each of its nodes runs the same number of ranks), and how
// many nodes. `exclusive`: whole nodes, nothing beside it (and every resource of them is its own).
struct Demand {
  long nodes = 1;
  long cores = 1;      // per node: ranks per node x cpus per rank
  long gpus = 0;       // per node: ranks per node x GPUs per rank
  long memory_mb = 0;  // per node; 0: none asked
  bool exclusive = false;
  bool operator==(const Demand&) const = default;
};

// What can keep a case off nodes: one resource of a node, or the number of nodes.
enum class Resource { cores, gpus, memory, nodes };

// One thing `d` asks more of than nodes can ever give it, even empty ones.
struct Shortfall {
  Resource what = Resource::cores;
  long want = 0, have = 0;  // per node (cores, GPUs, MB of memory), or nodes
  bool operator==(const Shortfall&) const = default;
};

// Whether a case fits nodes like `n` at all, and how much of each it holds.
struct Fit {
  std::vector<Shortfall> short_of;  // cores, GPUs, memory, nodes, in that order; empty: it fits
  double share = 1.0;               // of each node it spans: its largest share, 1 when exclusive
  bool fits() const { return short_of.empty(); }
  // The shortfall of `r`; nullptr when there is none.
  const Shortfall* of(Resource r) const;
  // The first shortfall in words ("5 cores per node, more than the node's 4"); "" when it fits.
  std::string why() const;
};

// The one fit function: whether `d` can ever run on `count` nodes like `n` (0: as many as it asks),
// even alone on empty ones, and its share of each of them (cores', GPUs' or memory's, the largest;
// a case's node-hours are nodes x share x hours). Pool::place (the local executor, the pack planner
// and driver), the pack manifest, the local executor's submissions, `validate`'s checks
// (matrix/geometry) and `plan`'s node-hours all ask it, so a case that fits in one fits in all.
Fit fit(const Node& n, const Demand& d, long count = 0);

// True when `held_cores` of node `n`'s cores are held: no case can start on it (every case holds a
// core at least). The local executor's tick then skips its look at the waiting jobs.
bool no_core_free(const Node& n, long held_cores);

// GPUs per rank (README, "Resources"): 0, a whole number, or a share 1/k of one GPU: k ranks on each
// GPU, as HyperQueue's fractional resources. On a node, `ranks` ranks hold ranks x g GPUs, or
// ceil(ranks / k) when they share; never 0 for a positive share.
bool valid_gpus_per_rank(double g);  // 0, whole, or 1/k for a whole k >= 2
long ranks_per_gpu(double g);        // k of a share 1/k; 1 otherwise
long gpus_of_ranks(double g, long ranks);

// The GPUs (indices 0..count-1 of those a job holds on its node) that rank `local_rank` of its
// `ranks` ranks there is shown: with at least as many GPUs as ranks, its own count / ranks of them
// (when they divide evenly; else all of them); with fewer, one: ranks 0..k-1 the first, the next k
// the second (k = ceil(ranks / count)), as Slurm's --gpu-bind=single:k. Empty when count is 0.
std::vector<long> rank_gpus(long local_rank, long ranks, long count);

// The order in which cases are started when several wait (the pack driver, the planner): most
// nodes first, then most GPUs, cores and memory per node, exclusive before shared.
bool bigger(const Demand& a, const Demand& b);

// The cores and GPUs a case holds on one node (indices 0..n-1 on that node).
struct Slice {
  size_t node = 0;
  std::vector<long> cores, gpus;
  bool operator==(const Slice&) const = default;
};
using Placement = std::vector<Slice>;  // one per node, nodes ascending

// The GPUs of `slice` that a case asking `d` is shown: those it asked for. An exclusive case holds
// every GPU of its node but is shown the ones it would get beside others (the lowest it holds), so
// `exclusive` changes what runs beside it, never which devices its ranks use.
std::vector<long> shown_gpus(const Demand& d, const Slice& slice);

// The free resources of a set of identical nodes.
class Pool {
 public:
  Pool(size_t nodes, Node each);

  // Where `d` fits now: on the lowest-numbered nodes with room, taking each node's lowest free
  // cores and GPUs; nullopt when it does not fit now. Does not take anything.
  std::optional<Placement> place(const Demand& d) const;
  // Marks a placement (of place(), or one read back from a record) as held, or free again. take()
  // throws std::logic_error when any of it is already held: a caller's bookkeeping error.
  void take(const Demand& d, const Placement& p);
  void give_back(const Demand& d, const Placement& p);

  size_t size() const { return nodes_.size(); }
  const Node& node() const { return node_; }
  size_t busy_nodes() const;  // nodes of which something is held
  long free_cores(size_t node) const;
  long free_gpus(size_t node) const;

 private:
  struct State {
    std::vector<bool> core, gpu;  // held
    long memory_mb = 0;           // held
    long holders = 0;
    bool exclusive = false;
  };
  bool fits(const State& s, const Demand& d) const;

  Node node_;
  std::vector<State> nodes_;
};

// "16G", "512M", "1.5T", "2048" (MB) as megabytes; nullopt when not a size.
std::optional<long> parse_memory_mb(const std::string& text);

}  // namespace campaign::resource
