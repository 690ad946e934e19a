#include "pack/planner.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace campaign::pack;

TEST_CASE("the driver's schedule: biggest first, free nodes filled, small cases pass a big one that waits") {
  // 3 nodes: a (2 nodes, 100 s), b (2, 50), c (1, 30), d (1, 30) in biggest-first order a b c d.
  std::vector<Item> items{{3, 1, 30}, {1, 2, 50}, {0, 2, 100}, {2, 1, 30}};
  biggest_first(items);
  REQUIRE(items[0].id == 0);
  REQUIRE(items[1].id == 1);
  REQUIRE(items[2].id == 2);
  Schedule s = simulate(items, 3);
  // t=0: a (2 nodes), c (1 node); b waits. t=30: c ends, d starts. t=60: d ends; b still needs 2.
  // t=100: a ends, b starts, ends at 150.
  CHECK(s.start_s == std::vector<long>{0, 100, 0, 30});
  CHECK(s.makespan_s == 150);
  CHECK(s.peak_nodes == 3);
}

TEST_CASE("allocations hold cases while their schedule ends within the walltime, less the margin") {
  std::vector<Item> items;
  for (size_t i = 0; i < 60; ++i) items.push_back({i, i % 3 == 0 ? 2L : 1L, 600});
  Limits limits{4, 3 * 3600, 0, 60};
  auto allocs = allocate(items, limits);
  // 20 two-node and 40 one-node cases of 10 min: 80 node-slots of 10 min on 4 nodes = 200 min, in
  // at most 17 rounds of 10 min per 3 h allocation.
  REQUIRE(allocs.size() == 2);
  size_t total = 0;
  for (auto& a : allocs) {
    total += a.ids.size();
    CHECK(a.nodes == 4);
    CHECK(a.walltime_s <= limits.walltime_s);
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
  std::vector<Item> items{{0, 1, 600}, {1, 1, 300}};
  auto one = allocate(items, Limits{8, 4 * 3600, 0, 60});
  REQUIRE(one.size() == 1);
  CHECK(one[0].nodes == 2);
  CHECK(one[0].walltime_s == 660);  // 600 s + 60 s margin
  CHECK(one[0].node_hours() == Approx(2 * 660 / 3600.0));
  auto limited = allocate(items, Limits{8, 4 * 3600, 1, 60});
  CHECK(limited.size() == 2);
}

TEST_CASE("a case that cannot fit alone is a programming error, not a silent drop") {
  CHECK_THROWS(allocate({{0, 5, 60}}, Limits{4, 3600, 0, 60}));
  CHECK_THROWS(allocate({{0, 1, 3600}}, Limits{4, 3600, 0, 60}));
}
