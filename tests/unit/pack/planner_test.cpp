#include "pack/planner.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace campaign::pack;
using campaign::resource::Demand;
using campaign::resource::Node;

namespace {
// Nodes of 4 cores; a case of `n` whole nodes asks for all 4 cores of each.
const Node kNode{4, 0, 0};
Item whole(size_t id, long nodes, long walltime_s) { return {id, Demand{nodes, 4, 0, 0, false}, walltime_s}; }
Limits limits(long nodes, long walltime_s, long cases, long margin_s) {
  Limits l;
  l.nodes = nodes;
  l.node = kNode;
  l.walltime_s = walltime_s;
  l.cases = cases;
  l.margin_s = margin_s;
  return l;
}
}  // namespace

TEST_CASE("the driver's schedule: biggest first, free nodes filled, small cases pass a big one that waits") {
  // 3 nodes: a (2 nodes, 100 s), b (2, 50), c (1, 30), d (1, 30) in biggest-first order a b c d.
  std::vector<Item> items{whole(3, 1, 30), whole(1, 2, 50), whole(0, 2, 100), whole(2, 1, 30)};
  biggest_first(items);
  REQUIRE(items[0].id == 0);
  REQUIRE(items[1].id == 1);
  REQUIRE(items[2].id == 2);
  Schedule s = simulate(items, 3, kNode);
  // t=0: a (2 nodes), c (1 node); b waits. t=30: c ends, d starts. t=60: d ends; b still needs 2.
  // t=100: a ends, b starts, ends at 150.
  CHECK(s.start_s == std::vector<long>{0, 100, 0, 30});
  CHECK(s.makespan_s == 150);
  CHECK(s.peak_nodes == 3);
}

TEST_CASE("allocations hold cases while their schedule ends within the walltime, less the margin") {
  std::vector<Item> items;
  for (size_t i = 0; i < 60; ++i) items.push_back(whole(i, i % 3 == 0 ? 2L : 1L, 600));
  Limits lim = limits(4, 3 * 3600, 0, 60);
  auto allocs = allocate(items, lim);
  // 20 two-node and 40 one-node cases of 10 min: 80 node-slots of 10 min on 4 nodes = 200 min, in
  // at most 17 rounds of 10 min per 3 h allocation.
  REQUIRE(allocs.size() == 2);
  size_t total = 0;
  for (auto& a : allocs) {
    total += a.ids.size();
    CHECK(a.nodes == 4);
    CHECK(a.walltime_s <= lim.walltime_s);
    CHECK(a.walltime_s % 60 == 0);
  }
  CHECK(total == 60);
  // The first allocation is full: 17 rounds less the margin hold 16 rounds of 4 node-slots.
  CHECK(allocs[0].walltime_s > 3 * 3600 - 660);
  std::vector<int> seen(60, 0);
  for (auto& a : allocs)
    for (auto id : a.ids) ++seen[id];
  CHECK(std::count(seen.begin(), seen.end(), 1) == 60);
}

TEST_CASE("an allocation asks only for the nodes and time its cases use, and respects the case limit") {
  std::vector<Item> items{whole(0, 1, 600), whole(1, 1, 300)};
  auto one = allocate(items, limits(8, 4 * 3600, 0, 60));
  REQUIRE(one.size() == 1);
  CHECK(one[0].nodes == 2);
  CHECK(one[0].walltime_s == 660);  // 600 s + 60 s margin
  CHECK(one[0].node_hours() == Approx(2 * 660 / 3600.0));
  auto limited = allocate(items, limits(8, 4 * 3600, 1, 60));
  CHECK(limited.size() == 2);
}

TEST_CASE("a case that cannot fit alone is a programming error, not a silent drop") {
  CHECK_THROWS(allocate({whole(0, 5, 60)}, limits(4, 3600, 0, 60)));
  CHECK_THROWS(allocate({{0, Demand{1, 8, 0, 0, false}, 60}}, limits(4, 3600, 0, 60)));  // 8 cores of 4
  CHECK_THROWS(allocate({whole(0, 1, 3601)}, limits(4, 3600, 0, 60)));
  auto alone = allocate({whole(0, 1, 3600), whole(1, 1, 60)}, limits(1, 3600, 0, 60));
  REQUIRE(alone.size() == 2);  // a case of the whole limit fits alone, without the margin
  CHECK(alone[0].walltime_s == 3600);
}

TEST_CASE("one-core cases fill nodes by cores: 32 of 6 s on four 4-core nodes take 12 s") {
  std::vector<Item> items;
  for (size_t i = 0; i < 32; ++i) items.push_back({i, Demand{1, 1, 0, 0, false}, 6});
  biggest_first(items);
  Schedule s = simulate(items, 4, kNode);
  CHECK(s.makespan_s == 12);
  CHECK(s.peak_nodes == 4);
  CHECK(std::count(s.start_s.begin(), s.start_s.end(), 0) == 16);
  // Exclusive, each takes its node whole: 8 rounds.
  for (auto& it : items) it.demand.exclusive = true;
  CHECK(simulate(items, 4, kNode).makespan_s == 48);
  // The allocation asks for what the schedule uses: 4 nodes, 12 s + margin.
  auto allocs = allocate(items, limits(4, 3600, 0, 60));
  REQUIRE(allocs.size() == 1);
  CHECK(allocs[0].walltime_s == 120);  // 48 s + 60 s, to the minute
}

TEST_CASE("GPU cases are placed by GPUs: 4 one-GPU cases on 2 nodes of 2 GPUs run at once") {
  std::vector<Item> items;
  for (size_t i = 0; i < 4; ++i) items.push_back({i, Demand{1, 1, 1, 0, false}, 30});
  Schedule s = simulate(items, 2, Node{4, 2, 0});
  CHECK(s.makespan_s == 30);
  CHECK(s.peak_nodes == 2);
  // One GPU per node: two rounds.
  CHECK(simulate(items, 2, Node{4, 1, 0}).makespan_s == 60);
}

TEST_CASE("20,000 one-core cases: allocations of 59 rounds of 16, each at the walltime limit") {
  // One node of 16 cores, 1 h per allocation less a 60 s margin: 59 rounds of 60 s cases, 16 at a
  // time, 944 cases an allocation; 20,000 make 21 full ones and one of 176.
  Limits l = limits(1, 3600, 0, 60);
  l.node = Node{16, 0, 0};
  std::vector<Item> items;
  for (size_t i = 0; i < 20000; ++i) items.push_back({i, Demand{1, 1, 0, 0, false}, 60});
  auto a = allocate(items, l);
  REQUIRE(a.size() == 22);
  for (size_t k = 0; k + 1 < a.size(); ++k) {
    CHECK(a[k].ids.size() == 944);
    CHECK(a[k].walltime_s == 3600);
  }
  CHECK(a.back().ids.size() == 176);
  CHECK(a.back().walltime_s == 720);  // 11 rounds (660 s) + the margin
  CHECK(a[0].ids.front() == 0);
  CHECK(a[1].ids.front() == 944);  // manifest order kept across allocations
}

TEST_CASE("after the longest run that fits, smaller cases still fill the allocation's gap") {
  // 2 nodes, 1,000 s: a (2 nodes, 900 s) fills it; b (2 nodes, 200 s) does not fit after it, nor does
  // its twin c is not tried again; d (1 node, 40 s) does (900 + 40 + 60 margin).
  std::vector<Item> items{whole(0, 2, 900), whole(1, 2, 200), whole(2, 2, 200), whole(3, 1, 40)};
  auto a = allocate(items, limits(2, 1000, 0, 60));
  REQUIRE(a.size() == 2);
  CHECK(a[0].ids == std::vector<size_t>{0, 3});
  CHECK(a[1].ids == std::vector<size_t>{1, 2});
}
