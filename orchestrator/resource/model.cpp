#include "resource/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace campaign::resource {

const Shortfall* Fit::of(Resource r) const {
  for (const Shortfall& s : short_of)
    if (s.what == r) return &s;
  return nullptr;
}

std::string Fit::why() const {
  if (short_of.empty()) return "";
  const Shortfall& s = short_of.front();
  auto more = [&](const char* what) {
    return std::to_string(s.want) + " " + what + " per node, more than the node's " + std::to_string(s.have);
  };
  switch (s.what) {
    case Resource::cores:
      return more("cores");
    case Resource::gpus:
      return more("GPUs");
    case Resource::memory:
      return more("MB of memory");
    case Resource::nodes:
      break;
  }
  if (s.want < 1) return "no nodes";
  return std::to_string(s.want) + " nodes, more than the " + std::to_string(s.have) + " there are";
}

Fit fit(const Node& n, const Demand& d, long count) {
  Fit f;
  if (d.cores > n.cores) f.short_of.push_back({Resource::cores, d.cores, n.cores});
  if (d.gpus > n.gpus) f.short_of.push_back({Resource::gpus, d.gpus, n.gpus});
  if (n.memory_mb > 0 && d.memory_mb > n.memory_mb)
    f.short_of.push_back({Resource::memory, d.memory_mb, n.memory_mb});
  if (d.nodes < 1 || (count > 0 && d.nodes > count)) f.short_of.push_back({Resource::nodes, d.nodes, count});
  if (!d.exclusive) {
    double s = static_cast<double>(d.cores) / static_cast<double>(std::max(1L, n.cores));
    if (n.gpus > 0) s = std::max(s, static_cast<double>(d.gpus) / static_cast<double>(n.gpus));
    if (n.memory_mb > 0) s = std::max(s, static_cast<double>(d.memory_mb) / static_cast<double>(n.memory_mb));
    f.share = std::min(1.0, s);
  }
  return f;
}

bool valid_gpus_per_rank(double g) {
  if (!std::isfinite(g) || g < 0) return false;
  if (g == std::floor(g)) return true;
  if (g > 1) return false;
  const double k = std::round(1.0 / g);
  return k >= 2 && std::fabs(1.0 / k - g) <= 1e-9;
}

long ranks_per_gpu(double g) {
  if (!(g > 0 && g < 1)) return 1;
  return std::max(2L, std::lround(1.0 / g));
}

long gpus_of_ranks(double g, long ranks) {
  if (!(g > 0) || ranks < 1) return 0;
  if (g >= 1) return ranks * std::lround(g);
  const long k = ranks_per_gpu(g);
  return (ranks + k - 1) / k;
}

std::vector<long> rank_gpus(long local_rank, long ranks, long count) {
  std::vector<long> out;
  if (count < 1 || ranks < 1 || local_rank < 0 || local_rank >= ranks) {
    for (long i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  if (count >= ranks) {
    if (count % ranks != 0) {
      for (long i = 0; i < count; ++i) out.push_back(i);
      return out;
    }
    const long each = count / ranks;
    for (long i = 0; i < each; ++i) out.push_back(local_rank * each + i);
    return out;
  }
  const long k = (ranks + count - 1) / count;
  out.push_back(local_rank / k);
  return out;
}

bool bigger(const Demand& a, const Demand& b) {
  if (a.nodes != b.nodes) return a.nodes > b.nodes;
  if (a.exclusive != b.exclusive) return a.exclusive;
  if (a.gpus != b.gpus) return a.gpus > b.gpus;
  if (a.cores != b.cores) return a.cores > b.cores;
  return a.memory_mb > b.memory_mb;
}

std::vector<long> shown_gpus(const Demand& d, const Slice& slice) {
  const size_t n = std::min(slice.gpus.size(), static_cast<size_t>(std::max(0L, d.gpus)));
  return std::vector<long>(slice.gpus.begin(), slice.gpus.begin() + static_cast<std::ptrdiff_t>(n));
}

Pool::Pool(size_t nodes, Node each) : node_(each), nodes_(nodes) {
  for (auto& s : nodes_) {
    s.core.assign(static_cast<size_t>(std::max(0L, each.cores)), false);
    s.gpu.assign(static_cast<size_t>(std::max(0L, each.gpus)), false);
  }
}

bool Pool::fits(const State& s, const Demand& d) const {
  if (s.exclusive) return false;
  if (d.exclusive) return s.holders == 0;
  auto free = [](const std::vector<bool>& v) {
    return static_cast<long>(std::count(v.begin(), v.end(), false));
  };
  if (free(s.core) < d.cores || free(s.gpu) < d.gpus) return false;
  return node_.memory_mb <= 0 || s.memory_mb + d.memory_mb <= node_.memory_mb;
}

std::optional<Placement> Pool::place(const Demand& d) const {
  if (!fit(node_, d, static_cast<long>(nodes_.size())).fits()) return std::nullopt;
  Placement p;
  for (size_t k = 0; k < nodes_.size() && static_cast<long>(p.size()) < d.nodes; ++k) {
    const State& s = nodes_[k];
    if (!fits(s, d)) continue;
    Slice slice{k, {}, {}};
    // Exclusive: every core and GPU of the node is the case's own.
    long cores = d.exclusive ? node_.cores : d.cores, gpus = d.exclusive ? node_.gpus : d.gpus;
    for (size_t i = 0; i < s.core.size() && static_cast<long>(slice.cores.size()) < cores; ++i)
      if (!s.core[i]) slice.cores.push_back(static_cast<long>(i));
    for (size_t i = 0; i < s.gpu.size() && static_cast<long>(slice.gpus.size()) < gpus; ++i)
      if (!s.gpu[i]) slice.gpus.push_back(static_cast<long>(i));
    p.push_back(std::move(slice));
  }
  if (static_cast<long>(p.size()) < d.nodes) return std::nullopt;
  return p;
}

void Pool::take(const Demand& d, const Placement& p) {
  for (const Slice& slice : p) {
    if (slice.node >= nodes_.size()) throw std::logic_error("placement on a node the pool does not have");
    State& s = nodes_[slice.node];
    if (s.exclusive || (d.exclusive && s.holders > 0))
      throw std::logic_error("node " + std::to_string(slice.node) + " is not free");
    auto hold = [&](std::vector<bool>& v, long i) {
      if (i < 0 || static_cast<size_t>(i) >= v.size() || v[static_cast<size_t>(i)])
        throw std::logic_error("index " + std::to_string(i) + " of node " + std::to_string(slice.node) +
                               " is held already or out of range");
      v[static_cast<size_t>(i)] = true;
    };
    for (long i : slice.cores) hold(s.core, i);
    for (long i : slice.gpus) hold(s.gpu, i);
    s.memory_mb += d.memory_mb;
    if (d.exclusive) s.exclusive = true;
    s.holders += 1;
  }
}

void Pool::give_back(const Demand& d, const Placement& p) {
  for (const Slice& slice : p) {
    if (slice.node >= nodes_.size()) continue;
    State& s = nodes_[slice.node];
    for (long i : slice.cores)
      if (i >= 0 && static_cast<size_t>(i) < s.core.size()) s.core[static_cast<size_t>(i)] = false;
    for (long i : slice.gpus)
      if (i >= 0 && static_cast<size_t>(i) < s.gpu.size()) s.gpu[static_cast<size_t>(i)] = false;
    s.memory_mb = std::max(0L, s.memory_mb - d.memory_mb);
    s.holders = std::max(0L, s.holders - 1);
    if (d.exclusive || s.holders == 0) s.exclusive = false;
  }
}

size_t Pool::busy_nodes() const {
  return static_cast<size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const State& s) { return s.holders > 0; }));
}

bool no_core_free(const Node& n, long held_cores) { return held_cores >= n.cores; }

long Pool::free_cores(size_t node) const {
  const State& s = nodes_.at(node);
  return s.exclusive ? 0 : static_cast<long>(std::count(s.core.begin(), s.core.end(), false));
}

long Pool::free_gpus(size_t node) const {
  const State& s = nodes_.at(node);
  return s.exclusive ? 0 : static_cast<long>(std::count(s.gpu.begin(), s.gpu.end(), false));
}

std::optional<long> parse_memory_mb(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double mb = 0;
  if (unit.empty() || unit == "M" || unit == "m")
    mb = v;
  else if (unit == "K" || unit == "k")
    mb = v / 1024;
  else if (unit == "G" || unit == "g")
    mb = v * 1024;
  else if (unit == "T" || unit == "t")
    mb = v * 1024 * 1024;
  else
    return std::nullopt;
  if (!std::isfinite(mb) || mb < 0) return std::nullopt;
  return static_cast<long>(std::ceil(mb));
}

}  // namespace campaign::resource
