#include <catch2/catch.hpp>

#include "matrix/plan.hpp"
#include "plan_of.hpp"
#include "spec/library.hpp"

using namespace campaign;
using namespace campaign::matrix;
using namespace campaign::matrix::testing;

namespace {
std::vector<std::string> names(const Plan& p) {
  std::vector<std::string> out;
  for (auto& c : p.cases) out.push_back(c.name);
  return out;
}
}  // namespace

TEST_CASE("cartesian product in declaration order, last axis fastest") {
  auto p = plan_of("name: t\nmatrix: {a: [x, y], b: [1, 2, 3]}\njob: {command: echo}\n");
  CHECK(names(p) == std::vector<std::string>{"x-1", "x-2", "x-3", "y-1", "y-2", "y-3"});
}

TEST_CASE("zip groups vary together, exclude drops, repeat multiplies") {
  auto p = plan_of(R"(name: t
matrix:
  ranks: [1, 2, 4]
  n: [10, 20, 40]
  mode: [a, b]
  zip: [[ranks, n]]
  exclude: [{mode: b, ranks: [2, 4]}]
  repeat: 2
case_name: "{{mode}}-{{ranks}}-{{n}}-r{{repeat}}"
job: {command: echo}
)");
  CHECK(names(p) == std::vector<std::string>{"a-1-10-r1", "a-1-10-r2", "b-1-10-r1", "b-1-10-r2", "a-2-20-r1",
                                             "a-2-20-r2", "a-4-40-r1", "a-4-40-r2"});
}

TEST_CASE("derived values, attributes and the job's geometry") {
  auto p = plan_of(R"(name: t
params: {ranks_per_node: 4}
matrix:
  partition: [{name: gpu, per_rank: 256}, {name: cpu, per_rank: 32}]
  ranks: [1, 8]
derived:
  n_train: per_rank * ranks
  half: n_train / 2
job:
  ranks: ranks
  ranks_per_node: 1
  command: echo {{n_train}} {{half}} {{nodes}}
)");
  REQUIRE(p.cases.size() == 4);
  const Case& gpu8 = p.cases[1];
  CHECK(gpu8.name == "gpu-8");
  CHECK(p.param(gpu8, "n_train") == "2048");
  CHECK(p.param(gpu8, "half") == "1024");
  CHECK(gpu8.nodes == 8);
  CHECK(gpu8.ranks_per_node == 1);
  CHECK(gpu8.cpus_per_rank == 12);  // all the node's cores
  CHECK(gpu8.gpus_per_rank == 1);
  CHECK(p.partition_of(p.cases[3]).name == "mc");  // `cpu` is an alias on Daint
  CHECK(p.cases[3].cpus_per_rank == 36);
  CHECK(p.node_hours == Approx((1 + 8 + 1 + 8) * 1.0));
}

TEST_CASE("any two of ranks, nodes and ranks per node give the third") {
  auto geometry = [](const std::string& job) {
    auto p = plan_of("name: t\njob: {command: x, partition: cpu, " + job + "}\n");
    auto& c = p.cases.at(0);
    return std::vector<long>{c.ranks, c.nodes, c.ranks_per_node};
  };
  CHECK(geometry("ranks: 72, ranks_per_node: 36") == std::vector<long>{72, 2, 36});
  CHECK(geometry("nodes: 3, ranks_per_node: 4") == std::vector<long>{12, 3, 4});
  CHECK(geometry("ranks: 10, nodes: 3") == std::vector<long>{10, 3, 4});
  CHECK(geometry("ranks: 5") == std::vector<long>{5, 5, 1});
  CHECK(geometry("ranks: 2, ranks_per_node: 4") == std::vector<long>{2, 1, 2});
  CHECK_THROWS_WITH(geometry("ranks: 9, nodes: 2, ranks_per_node: 4"),
                    Catch::Contains("cannot hold 9 ranks"));
}

TEST_CASE("case keys are stable and depend on the coordinates only") {
  auto a = plan_of("name: t\nmatrix: {r: [1, 2]}\nderived: {x: r * 2}\njob: {command: echo}\n");
  auto b = plan_of("name: t\nmatrix: {r: [1, 2]}\nderived: {x: r * 3}\njob: {command: other}\n");
  CHECK(a.cases[0].key == b.cases[0].key);
  CHECK(a.cases[0].key != a.cases[1].key);
  CHECK(a.cases[0].key.size() == 16);
}

TEST_CASE("steps wait for the cases they share axes with") {
  auto p = plan_of(R"(name: t
matrix: {data: [real, dummy], ranks: [1, 2]}
job: {command: echo}
steps:
  stage:
    matrix: {data: [real, dummy]}
    case_name: stage-{{data}}
  train:
    after: [stage]
  setup:
    matrix: {}
    case_name: setup
  report:
    after: [train, setup]
    matrix: {}
    case_name: final
)");
  auto index = [&](const std::string& n) {
    for (size_t i = 0; i < p.cases.size(); ++i)
      if (p.cases[i].name == n) return i;
    FAIL("no case " << n);
    return size_t(0);
  };
  const Case& train = p.cases[index("train-real-2")];
  CHECK(train.after == std::vector<size_t>{index("stage-real")});
  CHECK(p.cases[index("final")].after.size() == 5);  // 4 train cases + setup
  for (auto& c : p.cases)
    for (size_t a : c.after) CHECK(a < index(c.name));  // dependencies come first
}

TEST_CASE("a disabled step drops out with its dependencies") {
  auto p = plan_of(R"(name: t
matrix: {r: [1]}
job: {command: echo}
steps:
  prep: {enabled: false, matrix: {}}
  run: {after: [prep]}
)");
  REQUIRE(p.cases.size() == 1);
  CHECK(p.cases[0].after.empty());
}

TEST_CASE("100 percent of the cases of a large matrix are planned") {
  auto p = plan_of(
      "name: t\nmatrix: {a: [1,2,3,4,5,6,7,8,9,10], b: [1,2,3,4,5,6,7,8,9,10], c: [1,2,3,4,5,6,7,8,9,10]}\n"
      "derived: {n: a * b * c}\njob: {command: \"echo {{n}}\", ranks: 1}\n",
      "local");
  CHECK(p.cases.size() == 1000);
  CHECK(p.param(p.cases.back(), "n") == "1000");
}

TEST_CASE("expression errors have the format of the analyses' ones") {
  auto error_of = [](const std::string& derived) -> std::string {
    try {
      plan_of("name: t\nmatrix: {ranks: [1, 2]}\nderived: {n: '" + derived + "'}\njob: {command: echo}\n");
    } catch (const InputError& e) {
      CHECK(e.key() == "derived.n");
      return e.message();
    }
    return "no error";
  };
  CHECK(error_of("flor(ranks)") ==
        "unknown function 'flor' in expression 'flor(ranks)', did you mean 'floor'?");
  CHECK(error_of("2 * rank") == "unknown parameter 'rank' in expression '2 * rank', did you mean 'ranks'?");
  CHECK_THAT(error_of("(ranks"), Catch::StartsWith("cannot parse expression '(ranks': "));
  auto p = plan_of(
      "name: t\nmatrix: {ranks: [8]}\nderived: {n: 'round(log2(ranks) / 2) + mod(ranks, 3) + pow(ranks, "
      "2)'}\njob: {command: echo}\n");
  CHECK(p.param(p.cases[0], "n") == "68");
}

TEST_CASE("instances: K copies in one job of K x nodes, K an expression over parameters") {
  auto p = plan_of(R"(name: t
matrix: {k: [2, 128]}
job: {command: "train --instance {{instance}} of {{instances}}", partition: gpu, nodes: 4, instances: k,
      walltime: 2h}
)");
  REQUIRE(p.cases.size() == 2);
  const Case& big = p.cases[1];
  CHECK(big.instances == 128);
  CHECK(big.nodes == 4);  // per instance
  CHECK(big.ranks == 4);
  CHECK(big.job_nodes() == 512);
  CHECK(big.job_ranks() == 512);
  CHECK(p.param(big, "instances") == "128");
  CHECK(p.param(big, "instance") == "0");
  CHECK(p.node_hours == Approx((8 + 512) * 2.0));
  // Without `instances` a case is one instance.
  auto one = plan_of("name: t\njob: {command: x, nodes: 2}\n");
  CHECK(one.cases[0].instances == 1);
  CHECK(one.cases[0].job_nodes() == 2);
}

TEST_CASE("instances must be whole, at least 1, and fit the partition together") {
  auto err = [](const std::string& job) {
    try {
      plan_of("name: t\njob: {command: x, partition: mc, " + job + "}\n", "testcluster");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err("nodes: 1, instances: 0"), Catch::Contains("c.yaml:2:") &&
                                                Catch::Contains("job.instances") &&
                                                Catch::Contains("at least 1"));
  CHECK_THAT(err("nodes: 1, instances: 2.5"), Catch::Contains("job.instances") && Catch::Contains("whole"));
  CHECK_THAT(err("nodes: 2, instances: 3"),
             Catch::Contains("job.instances") && Catch::Contains("3 instances x 2 nodes exceed the 4 nodes"));
  CHECK(err("nodes: 1, instances: 4") == "no error");
}

TEST_CASE("what a case asks of its nodes: cores, GPUs, memory, exclusive (per case through a template)") {
  auto p = plan_of(R"(name: t
matrix:
  mode: [{name: shared, whole: false}, {name: alone, whole: true}]
case_name: "{{mode}}"
job: {command: echo, partition: gpu, ranks: 2, ranks_per_node: 2, cpus_per_rank: 3, gpus_per_rank: 0,
      memory: 8G, exclusive: "{{whole}}"}
)",
                   "perlmutter");
  REQUIRE(p.cases.size() == 2);
  CHECK(p.demand_of(p.cases[0]) == resource::Demand{1, 6, 0, 8192, false});
  CHECK(p.demand_of(p.cases[1]) == resource::Demand{1, 6, 0, 8192, true});
  // Node-hours: its share of the node (6 of 64 cores), whole when exclusive.
  CHECK(p.node_hours_of(p.cases[0]) == Approx(6.0 / 64.0));
  CHECK(p.node_hours_of(p.cases[1]) == Approx(1.0));
  // One GPU of four decides the share.
  auto g =
      plan_of("name: t\njob: {command: echo, partition: gpu, ranks: 1, cpus_per_rank: 1, gpus_per_rank: 1}\n",
              "perlmutter");
  CHECK(g.node_hours_of(g.cases[0]) == Approx(0.25));
}

TEST_CASE("on one host (local) a case's ranks share the machine, whatever its nodes") {
  auto p = plan_of("name: t\njob: {command: echo, nodes: 2, ranks_per_node: 1, cpus_per_rank: 1}\n", "local");
  CHECK(p.demand_of(p.cases[0]) == resource::Demand{1, 2, 0, 0, false});
  // Unset, cpus per rank is the machine's cores over all the case's ranks.
  auto d = plan_of("name: t\njob: {command: echo, ranks: 2}\n", "local");
  CHECK(d.cases[0].cpus_per_rank == std::max(1L, d.system.partitions[0].cores_per_node / 2));
  // Oversubscribed: never more than the machine's cores.
  auto o =
      plan_of("name: t\njob: {command: echo, ranks: 64, cpus_per_rank: 1, oversubscribe: true}\n", "local");
  CHECK(o.demand_of(o.cases[0]).cores == o.system.partitions[0].cores_per_node);
}

TEST_CASE("resource errors name the key") {
  auto error_of = [](const std::string& yaml, const std::string& sys) -> std::string {
    try {
      plan_of(yaml, sys);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(error_of("name: t\njob: {command: echo, exclusive: maybe}\n", "daint"),
             Catch::Contains("c.yaml:2:33: job.exclusive: expected true or false, got 'maybe'"));
  CHECK_THAT(error_of("name: t\njob: {command: echo, memory: lots}\n", "daint"),
             Catch::Contains("job.memory: not a size: 'lots'"));
  CHECK_THAT(error_of("name: t\njob: {command: echo, ranks: 4096, cpus_per_rank: 1}\n", "local"),
             Catch::Contains("job.cpus_per_rank: 4096 ranks x 1 cpus per rank exceed the"));
  CHECK_THAT(
      error_of("name: t\njob: {command: echo, partition: gpu, gpus_per_rank: 5}\n", "perlmutter"),
      Catch::Contains("job.gpus_per_rank: 1 ranks per node x 5 GPUs per rank exceed the 4 GPUs per node"));
  CHECK_THAT(error_of("name: t\njob: {command: echo, partition: mc, memory: 5G}\n", "testcluster"),
             Catch::Contains("job.memory: 5120 MB exceed the 4000 MB per node of partition 'mc'"));
}
