#include "pack/slots.hpp"

#include <catch2/catch.hpp>

using campaign::pack::next_starts;

namespace {
std::vector<size_t> started(const std::vector<campaign::pack::SlotStart>& s) {
  std::vector<size_t> out;
  for (auto& x : s) out.push_back(x.case_index);
  return out;
}
}  // namespace

TEST_CASE("biggest cases start first, then manifest order", "[pack]") {
  // 3 free nodes: the 2-node case 1, then the first 1-node case (0); 2 and 3 wait.
  auto s = next_starts({1, 2, 1, 2}, {true, true, true, true}, {false, false, false});
  REQUIRE(started(s) == std::vector<size_t>{1, 0});
  CHECK(s[0].nodes == std::vector<size_t>{0, 1});
  CHECK(s[1].nodes == std::vector<size_t>{2});
}

TEST_CASE("a case that does not fit is passed over for smaller ones", "[pack]") {
  // Node 1 busy: the 2-node case waits, the 1-node case takes a free node, never a busy one.
  auto s = next_starts({2, 1}, {true, true}, {false, true, false});
  REQUIRE(started(s) == std::vector<size_t>{0});
  CHECK(s[0].nodes == std::vector<size_t>{0, 2});
  s = next_starts({2, 1}, {true, true}, {false, true});
  REQUIRE(started(s) == std::vector<size_t>{1});
  CHECK(s[0].nodes == std::vector<size_t>{0});
}

TEST_CASE("started cases and full allocations start nothing", "[pack]") {
  CHECK(next_starts({1, 1}, {false, false}, {false, false}).empty());
  CHECK(next_starts({1, 1}, {true, true}, {true, true}).empty());
  CHECK(next_starts({}, {}, {false}).empty());
  // Larger than the allocation: never started (read_manifest refuses such manifests anyway).
  CHECK(next_starts({3}, {true}, {false, false}).empty());
}

TEST_CASE("the nodes given never exceed the free ones", "[pack]") {
  std::vector<long> nodes{1, 2, 1, 1, 2, 1, 1, 2};
  std::vector<bool> waiting(nodes.size(), true);
  std::vector<bool> busy{false, true, false, false};
  auto s = next_starts(nodes, waiting, busy);
  long used = 0;
  std::vector<int> taken(busy.size(), 0);
  for (auto& x : s) {
    CHECK(static_cast<long>(x.nodes.size()) == nodes[x.case_index]);
    used += nodes[x.case_index];
    for (size_t k : x.nodes) taken[k]++;
  }
  CHECK(used == 3);
  CHECK(taken == std::vector<int>{1, 0, 1, 1});
  CHECK(started(s) == std::vector<size_t>{1, 0});
}
