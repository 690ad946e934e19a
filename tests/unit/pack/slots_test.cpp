#include "pack/slots.hpp"

#include <catch2/catch.hpp>

using campaign::pack::next_starts;
using campaign::resource::Demand;
using campaign::resource::Node;
using campaign::resource::Pool;

namespace {
std::vector<size_t> started(const std::vector<campaign::pack::SlotStart>& s) {
  std::vector<size_t> out;
  for (auto& x : s) out.push_back(x.case_index);
  return out;
}
// Nodes of 4 cores; a case of `n` whole nodes asks for all 4 of each.
const Node kNode{4, 2, 0};
Demand whole(long n) { return Demand{n, 4, 0, 0, false}; }
std::vector<Demand> wholes(const std::vector<long>& nodes) {
  std::vector<Demand> out;
  for (long n : nodes) out.push_back(whole(n));
  return out;
}
// A pool of `nodes`, those marked busy held by a whole-node case.
Pool pool_of(const std::vector<bool>& busy) {
  Pool p(busy.size(), kNode);
  for (size_t k = 0; k < busy.size(); ++k)
    if (busy[k]) p.take(whole(1), {{k, {0, 1, 2, 3}, {}}});
  return p;
}
}  // namespace

TEST_CASE("biggest cases start first, then manifest order", "[pack]") {
  // 3 free nodes: the 2-node case 1, then the first 1-node case (0); 2 and 3 wait.
  Pool p = pool_of({false, false, false});
  auto s = next_starts(wholes({1, 2, 1, 2}), {true, true, true, true}, p);
  REQUIRE(started(s) == std::vector<size_t>{1, 0});
  CHECK(s[0].nodes() == std::vector<size_t>{0, 1});
  CHECK(s[1].nodes() == std::vector<size_t>{2});
  CHECK(p.busy_nodes() == 3);
}

TEST_CASE("a case that does not fit is passed over for smaller ones", "[pack]") {
  // Node 1 busy: the 2-node case waits, the 1-node case takes a free node, never a busy one.
  Pool p = pool_of({false, true, false});
  auto s = next_starts(wholes({2, 1}), {true, true}, p);
  REQUIRE(started(s) == std::vector<size_t>{0});
  CHECK(s[0].nodes() == std::vector<size_t>{0, 2});
  p = pool_of({false, true});
  s = next_starts(wholes({2, 1}), {true, true}, p);
  REQUIRE(started(s) == std::vector<size_t>{1});
  CHECK(s[0].nodes() == std::vector<size_t>{0});
}

TEST_CASE("started cases and full allocations start nothing", "[pack]") {
  Pool p = pool_of({false, false});
  CHECK(next_starts(wholes({1, 1}), {false, false}, p).empty());
  p = pool_of({true, true});
  CHECK(next_starts(wholes({1, 1}), {true, true}, p).empty());
  p = pool_of({false});
  CHECK(next_starts({}, {}, p).empty());
  // Larger than the allocation: never started (read_manifest refuses such manifests anyway).
  p = pool_of({false, false});
  CHECK(next_starts(wholes({3}), {true}, p).empty());
}

TEST_CASE("the nodes given never exceed the free ones", "[pack]") {
  std::vector<long> nodes{1, 2, 1, 1, 2, 1, 1, 2};
  std::vector<bool> waiting(nodes.size(), true);
  Pool p = pool_of({false, true, false, false});
  auto s = next_starts(wholes(nodes), waiting, p);
  long used = 0;
  std::vector<int> taken(4, 0);
  for (auto& x : s) {
    CHECK(static_cast<long>(x.nodes().size()) == nodes[x.case_index]);
    used += nodes[x.case_index];
    for (size_t k : x.nodes()) taken[k]++;
  }
  CHECK(used == 3);
  CHECK(taken == std::vector<int>{1, 0, 1, 1});
  CHECK(started(s) == std::vector<size_t>{1, 0});
}

TEST_CASE("one-core cases share a node, four to a 4-core node", "[pack]") {
  Pool p(4, kNode);
  std::vector<Demand> d(32, Demand{1, 1, 0, 0, false});
  auto s = next_starts(d, std::vector<bool>(32, true), p);
  REQUIRE(s.size() == 16);
  std::vector<int> per_node(4, 0);
  for (auto& x : s) per_node[x.nodes().front()]++;
  CHECK(per_node == std::vector<int>{4, 4, 4, 4});
}

TEST_CASE("GPU cases take a GPU each, two to a node of two", "[pack]") {
  Pool p(2, kNode);
  std::vector<Demand> d(5, Demand{1, 1, 1, 0, false});
  auto s = next_starts(d, std::vector<bool>(5, true), p);
  REQUIRE(s.size() == 4);  // 2 nodes x 2 GPUs: the fifth waits
  CHECK(s[0].placement.front().gpus == std::vector<long>{0});
  CHECK(s[1].placement.front().gpus == std::vector<long>{1});
  CHECK(s[0].nodes() == s[1].nodes());
  CHECK(s[2].nodes() != s[0].nodes());
}

TEST_CASE("bigger first: GPU and wider cases before small CPU ones", "[pack]") {
  Pool p(1, kNode);
  std::vector<Demand> d{Demand{1, 1, 0, 0, false}, Demand{1, 3, 0, 0, false}, Demand{1, 1, 1, 0, false}};
  auto s = next_starts(d, {true, true, true}, p);
  // The GPU case first, then the 3-core one; the 1-core CPU case has no core left.
  CHECK(started(s) == std::vector<size_t>{2, 1});
}

TEST_CASE("a kept start queue starts what walking every waiting case again would", "[pack]") {
  // The reference: the rule as written (slots.hpp), every waiting case sorted and tried at each call.
  auto walk_all = [](const std::vector<Demand>& d, std::vector<bool>& waiting, Pool& pool) {
    std::vector<size_t> order(d.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return campaign::resource::bigger(d[a], d[b]); });
    std::vector<size_t> out;
    for (size_t i : order) {
      if (!waiting[i]) continue;
      auto p = pool.place(d[i]);
      if (!p) continue;
      pool.take(d[i], *p);
      waiting[i] = false;
      out.push_back(i);
    }
    return out;
  };
  // Mixed cases on 3 nodes of 4 cores and 2 GPUs: whole nodes, exclusive, GPU and core slices.
  std::vector<Demand> d;
  for (int i = 0; i < 60; ++i) {
    const int k = (i * 7) % 5;
    d.push_back(k == 0   ? Demand{2, 4, 0, 0, false}
                : k == 1 ? Demand{1, 1, 1, 0, false}
                : k == 2 ? Demand{1, 2, 0, 0, false}
                : k == 3 ? Demand{1, 1, 0, 0, true}
                         : Demand{1, 1, 0, 0, false});
  }
  std::vector<bool> waiting(d.size(), true);
  waiting[5] = waiting[17] = false;  // held by an earlier driver
  Pool kept(3, kNode), fresh(3, kNode);
  campaign::pack::StartQueue queue(d, waiting);
  std::vector<std::pair<size_t, campaign::resource::Placement>> running;
  for (int round = 0; !queue.empty(); ++round) {
    auto got = queue.next(kept);
    auto want = walk_all(d, waiting, fresh);
    REQUIRE(started(got) == want);
    for (auto& s : got) running.emplace_back(s.case_index, s.placement);
    REQUIRE_FALSE(running.empty());
    // The oldest one or two end (both pools alike), and the next call fills their room.
    for (int e = 0; e < 1 + round % 2 && !running.empty(); ++e) {
      kept.give_back(d[running.front().first], running.front().second);
      fresh.give_back(d[running.front().first], running.front().second);
      running.erase(running.begin());
    }
  }
  CHECK(std::none_of(waiting.begin(), waiting.end(), [](bool w) { return w; }));
}
