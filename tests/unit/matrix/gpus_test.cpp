// GPUs shared by ranks (README, "Resources"): the default share of a partition's GPUs, shares 1/k,
// and validate's refusal of a GPU case that would get none.
#include <catch2/catch.hpp>

#include "matrix/plan.hpp"
#include "plan_of.hpp"

using namespace campaign;
using namespace campaign::matrix;
using namespace campaign::matrix::testing;

namespace {

std::string error_of(const std::string& yaml, const std::string& sys) {
  try {
    plan_of(yaml, sys);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("unset, a GPU partition's ranks share its GPUs: whole ones while they last, else 1/k") {
  // testcluster's gpu nodes: 4 cores, 2 GPUs.
  auto p = plan_of(R"(name: t
matrix: {rpn: [1, 2, 3, 4]}
case_name: "n{{rpn}}"
job: {command: echo, partition: gpu, ranks_per_node: rpn, cpus_per_rank: 1}
)",
                   "testcluster");
  REQUIRE(p.cases.size() == 4);
  CHECK(p.cases[0].gpus_per_rank == 2);
  CHECK(p.cases[1].gpus_per_rank == 1);
  CHECK(p.cases[2].gpus_per_rank == 0.5);  // 3 ranks on 2 GPUs: 2 on one, 1 on the other
  CHECK(p.cases[3].gpus_per_rank == 0.5);
  CHECK(p.demand_of(p.cases[0]).gpus == 2);
  CHECK(p.demand_of(p.cases[1]).gpus == 2);
  CHECK(p.demand_of(p.cases[2]).gpus == 2);
  CHECK(p.demand_of(p.cases[3]).gpus == 2);
  // Perlmutter: 4 GPUs per node; 8 ranks per node share them two per GPU, 16 four per GPU.
  auto q = plan_of(
      "name: t\nmatrix: {rpn: [8, 16]}\ncase_name: n{{rpn}}\n"
      "job: {command: echo, partition: gpu, ranks_per_node: rpn, cpus_per_rank: 1}\n",
      "perlmutter");
  CHECK(q.cases[0].gpus_per_rank == 0.5);
  CHECK(q.cases[1].gpus_per_rank == 0.25);
  CHECK(q.demand_of(q.cases[1]).gpus == 4);
  // A partition without GPUs: none.
  auto c = plan_of("name: t\njob: {command: echo, partition: mc, ranks_per_node: 4, cpus_per_rank: 1}\n",
                   "testcluster");
  CHECK(c.cases[0].gpus_per_rank == 0);
  CHECK(c.demand_of(c.cases[0]).gpus == 0);
}

TEST_CASE("gpus_per_rank: 0.5 is two ranks per GPU; a share is 1/k, nothing else") {
  auto p = plan_of(
      "name: t\njob: {command: echo, partition: gpu, ranks: 4, ranks_per_node: 4, "
      "cpus_per_rank: 1, gpus_per_rank: 0.5}\n",
      "testcluster");
  CHECK(p.cases[0].gpus_per_rank == 0.5);
  CHECK(p.demand_of(p.cases[0]).gpus == 2);
  auto q = plan_of(
      "name: t\njob: {command: echo, partition: gpu, ranks: 4, ranks_per_node: 4, "
      "cpus_per_rank: 1, gpus_per_rank: 0.25}\n",
      "testcluster");
  CHECK(q.demand_of(q.cases[0]).gpus == 1);
  CHECK_THAT(
      error_of("name: t\njob: {command: echo, partition: gpu, ranks: 2, gpus_per_rank: 0.3}\n",
               "testcluster"),
      Catch::Contains("c.yaml:2:63: job.gpus_per_rank: must be 0, a whole number or a share 1/k of a GPU "
                      "(0.5: two ranks per GPU), got 0.3"));
  CHECK_THAT(error_of("name: t\njob: {command: echo, partition: gpu, ranks: 2, gpus_per_rank: 1.5}\n",
                      "testcluster"),
             Catch::Contains("job.gpus_per_rank: must be 0, a whole number or a share 1/k"));
  // More than the node has, as a share too: 4 ranks per node x 1 GPU on a 2-GPU node.
  CHECK_THAT(
      error_of("name: t\njob: {command: echo, partition: gpu, ranks_per_node: 4, cpus_per_rank: 1, "
               "gpus_per_rank: 1}\n",
               "testcluster"),
      Catch::Contains("job.gpus_per_rank: 4 ranks per node x 1 GPUs per rank exceed the 2 GPUs per node"));
}

TEST_CASE("validate refuses a GPU case that would get no GPU, unless it says gpus_per_rank: 0") {
  // An expression that comes out 0 (as the old floored default did: 2 GPUs / 4 ranks).
  CHECK_THAT(error_of("name: t\nmatrix: {n: [4]}\njob: {command: echo, partition: gpu, ranks: n, "
                      "ranks_per_node: n, cpus_per_rank: 1, gpus_per_rank: rint(2 / n - 0.1)}\n",
                      "testcluster"),
             Catch::Contains("c.yaml:3:100: job.gpus_per_rank: comes out 0: the case would get no GPU of "
                             "partition 'gpu' (2 per node); say `gpus_per_rank: 0`"));
  // Said: the key itself, or a parameter it names.
  CHECK(error_of("name: t\njob: {command: echo, partition: gpu, ranks: 4, ranks_per_node: 4, "
                 "cpus_per_rank: 1, gpus_per_rank: 0}\n",
                 "testcluster") == "no error");
  CHECK(error_of("name: t\nmatrix: {g: [0, 1]}\njob: {command: echo, partition: gpu, ranks: 2, "
                 "ranks_per_node: 2, cpus_per_rank: 1, gpus_per_rank: g}\n",
                 "testcluster") == "no error");
  // A partition without GPUs has none to lose.
  CHECK(error_of("name: t\nmatrix: {n: [4]}\njob: {command: echo, partition: mc, ranks: n, "
                 "ranks_per_node: n, cpus_per_rank: 1, gpus_per_rank: rint(2 / n - 0.1)}\n",
                 "testcluster") == "no error");
}
