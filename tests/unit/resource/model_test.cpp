#include "resource/model.hpp"

#include <catch2/catch.hpp>

using campaign::resource::Demand;
using campaign::resource::Node;
using campaign::resource::Placement;
using campaign::resource::Pool;
using campaign::resource::Resource;
using campaign::resource::Shortfall;

TEST_CASE("fit names the resource a case can never get", "[resource]") {
  Node n{4, 2, 8000};
  auto why = [&](Demand d) { return fit(n, d).why(); };
  CHECK(fit(n, Demand{1, 4, 2, 8000, false}).fits());
  CHECK(why(Demand{1, 5, 0, 0, false}) == "5 cores per node, more than the node's 4");
  CHECK(why(Demand{1, 1, 3, 0, false}) == "3 GPUs per node, more than the node's 2");
  CHECK(why(Demand{1, 1, 0, 9000, false}) == "9000 MB of memory per node, more than the node's 8000");
  // Memory is not counted where the node does not say.
  CHECK(fit(Node{4, 0, 0}, Demand{1, 1, 0, 1 << 20, false}).fits());
  // Every shortfall, in order: cores, GPUs, memory, nodes.
  auto all = fit(n, Demand{3, 5, 3, 9000, false}, 2).short_of;
  REQUIRE(all.size() == 4);
  CHECK(all[0] == Shortfall{Resource::cores, 5, 4});
  CHECK(all[1] == Shortfall{Resource::gpus, 3, 2});
  CHECK(all[2] == Shortfall{Resource::memory, 9000, 8000});
  CHECK(all[3] == Shortfall{Resource::nodes, 3, 2});
}

TEST_CASE("fit counts nodes only where their number is given", "[resource]") {
  Node n{4, 0, 0};
  CHECK(fit(n, Demand{64, 1, 0, 0, false}).fits());
  CHECK(fit(n, Demand{2, 1, 0, 0, false}, 2).fits());
  CHECK(fit(n, Demand{3, 1, 0, 0, false}, 2).why() == "3 nodes, more than the 2 there are");
  CHECK(fit(n, Demand{0, 1, 0, 0, false}).why() == "no nodes");
  CHECK(fit(n, Demand{3, 1, 0, 0, false}, 2).of(Resource::cores) == nullptr);
}

TEST_CASE("fit's share: a quarter of the cores is a quarter of the node, unless exclusive", "[resource]") {
  Node perlmutter{64, 4, 0};
  CHECK(fit(perlmutter, Demand{1, 16, 0, 0, false}).share == Approx(0.25));
  // One GPU of four with 2 cores: the GPUs decide.
  CHECK(fit(perlmutter, Demand{1, 2, 1, 0, false}).share == Approx(0.25));
  CHECK(fit(perlmutter, Demand{1, 2, 1, 0, true}).share == 1.0);
  CHECK(fit(Node{4, 0, 1000}, Demand{1, 1, 0, 1000, false}).share == 1.0);
}

TEST_CASE("a pool places cases by cores and GPUs, several per node while they fit", "[resource]") {
  Pool pool(2, Node{4, 2, 0});
  Demand one_core{1, 1, 0, 0, false};
  for (int i = 0; i < 8; ++i) {
    auto p = pool.place(one_core);
    REQUIRE(p);
    // The lowest-numbered node with room first: four on node 0, then four on node 1.
    CHECK(p->front().node == static_cast<size_t>(i / 4));
    CHECK(p->front().cores == std::vector<long>{i % 4});
    pool.take(one_core, *p);
  }
  CHECK_FALSE(pool.place(one_core));
  CHECK(pool.busy_nodes() == 2);
}

TEST_CASE("each GPU is given once; a GPU case waits for a GPU, not a node", "[resource]") {
  Pool pool(1, Node{4, 2, 0});
  Demand gpu_case{1, 1, 1, 0, false};
  auto a = pool.place(gpu_case);
  REQUIRE(a);
  pool.take(gpu_case, *a);
  auto b = pool.place(gpu_case);
  REQUIRE(b);
  pool.take(gpu_case, *b);
  CHECK(a->front().gpus == std::vector<long>{0});
  CHECK(b->front().gpus == std::vector<long>{1});
  CHECK_FALSE(pool.place(gpu_case));             // no third GPU
  CHECK(pool.place(Demand{1, 2, 0, 0, false}));  // but two cores for a CPU case
  pool.give_back(gpu_case, *a);
  auto c = pool.place(gpu_case);
  REQUIRE(c);
  CHECK(c->front().gpus == std::vector<long>{0});
}

TEST_CASE("an exclusive case takes whole nodes and shares none", "[resource]") {
  Pool pool(2, Node{4, 2, 0});
  Demand small{1, 1, 0, 0, false}, whole{1, 1, 0, 0, true};
  auto s = pool.place(small);
  pool.take(small, *s);
  auto w = pool.place(whole);
  REQUIRE(w);
  CHECK(w->front().node == 1);  // node 0 has a case on it
  CHECK(w->front().cores.size() == 4);
  CHECK(w->front().gpus.size() == 2);
  pool.take(whole, *w);
  // Node 1 is held whole: a small case goes to node 0, a second exclusive one nowhere.
  auto s2 = pool.place(small);
  REQUIRE(s2);
  CHECK(s2->front().node == 0);
  CHECK_FALSE(pool.place(whole));
  pool.give_back(whole, *w);
  CHECK(pool.place(whole));
}

TEST_CASE("a multi-node case needs room on each of its nodes", "[resource]") {
  Pool pool(3, Node{4, 0, 0});
  Demand three{1, 3, 0, 0, false}, span{2, 2, 0, 0, false};
  auto a = pool.place(three);
  pool.take(three, *a);  // node 0 has 1 core left
  auto p = pool.place(span);
  REQUIRE(p);
  CHECK(p->size() == 2);
  CHECK((*p)[0].node == 1);
  CHECK((*p)[1].node == 2);
  pool.take(span, *p);
  CHECK_FALSE(pool.place(Demand{2, 3, 0, 0, false}));
}

TEST_CASE("memory is a resource where the node counts it", "[resource]") {
  Pool pool(1, Node{8, 0, 1000});
  Demand d{1, 1, 0, 600, false};
  auto a = pool.place(d);
  pool.take(d, *a);
  CHECK_FALSE(pool.place(d));
  CHECK(pool.place(Demand{1, 1, 0, 400, false}));
}

TEST_CASE("taking what is held is a bookkeeping error", "[resource]") {
  Pool pool(1, Node{2, 0, 0});
  Demand d{1, 1, 0, 0, false};
  Placement p{{0, {0}, {}}};
  pool.take(d, p);
  CHECK_THROWS_AS(pool.take(d, p), std::logic_error);
}

TEST_CASE("memory sizes", "[resource]") {
  using campaign::resource::parse_memory_mb;
  CHECK(parse_memory_mb("16G") == 16384);
  CHECK(parse_memory_mb("512M") == 512);
  CHECK(parse_memory_mb("512MB") == 512);
  CHECK(parse_memory_mb("1.5T") == 1572864);
  CHECK(parse_memory_mb("2048") == 2048);
  CHECK_FALSE(parse_memory_mb("lots"));
  CHECK_FALSE(parse_memory_mb("4X"));
  CHECK_FALSE(parse_memory_mb(""));
}

TEST_CASE("GPUs per rank: 0, whole, or a share 1/k; ranks sharing GPUs never get none", "[resource]") {
  using campaign::resource::gpus_of_ranks;
  using campaign::resource::ranks_per_gpu;
  using campaign::resource::valid_gpus_per_rank;
  for (double g : {0.0, 1.0, 2.0, 0.5, 0.25, 1.0 / 3.0}) CHECK(valid_gpus_per_rank(g));
  for (double g : {-1.0, 0.3, 0.4, 1.5, 2.5}) CHECK_FALSE(valid_gpus_per_rank(g));
  CHECK(ranks_per_gpu(0.5) == 2);
  CHECK(ranks_per_gpu(1.0 / 3.0) == 3);
  CHECK(ranks_per_gpu(2) == 1);
  CHECK(ranks_per_gpu(0) == 1);
  // On a node: ranks x g, or ceil(ranks / k) when they share.
  CHECK(gpus_of_ranks(2, 4) == 8);
  CHECK(gpus_of_ranks(0.5, 4) == 2);
  CHECK(gpus_of_ranks(0.5, 3) == 2);
  CHECK(gpus_of_ranks(0.5, 1) == 1);
  CHECK(gpus_of_ranks(0.25, 2) == 1);
  CHECK(gpus_of_ranks(1.0 / 3.0, 6) == 2);
  CHECK(gpus_of_ranks(0, 4) == 0);
}

TEST_CASE("each rank is shown its GPUs: a block of its own, or k ranks per GPU in rank order", "[resource]") {
  using campaign::resource::rank_gpus;
  using V = std::vector<long>;
  // Two ranks, four GPUs: two each.
  CHECK(rank_gpus(0, 2, 4) == V{0, 1});
  CHECK(rank_gpus(1, 2, 4) == V{2, 3});
  // Four ranks, two GPUs: two per GPU (as --gpu-bind=single:2).
  CHECK(rank_gpus(0, 4, 2) == V{0});
  CHECK(rank_gpus(1, 4, 2) == V{0});
  CHECK(rank_gpus(2, 4, 2) == V{1});
  CHECK(rank_gpus(3, 4, 2) == V{1});
  // Three ranks, two GPUs: 2 on the first, 1 on the second; one GPU: all on it.
  CHECK(rank_gpus(2, 3, 2) == V{1});
  for (long r = 0; r < 4; ++r) CHECK(rank_gpus(r, 4, 1) == V{0});
  // GPUs that do not divide among the ranks: each sees all; none: none.
  CHECK(rank_gpus(0, 2, 3) == V{0, 1, 2});
  CHECK(rank_gpus(0, 2, 0).empty());
}

TEST_CASE("an exclusive case is shown the GPUs it asked for, the ones it would get beside others",
          "[resource]") {
  Pool pool(1, Node{4, 4, 0});
  Demand shared{1, 2, 1, 0, false}, alone{1, 2, 1, 0, true};
  auto a = pool.place(shared), b = pool.place(alone);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(b->front().gpus.size() == 4);  // it holds them all
  CHECK(campaign::resource::shown_gpus(alone, b->front()) ==
        campaign::resource::shown_gpus(shared, a->front()));
  CHECK(campaign::resource::shown_gpus(alone, b->front()) == std::vector<long>{0});
  CHECK(campaign::resource::shown_gpus(Demand{1, 2, 0, 0, true}, b->front()).empty());
}
