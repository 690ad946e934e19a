// The local executor's admission (local/admission.hpp): cores and GPUs, FIFO, backfill that never
// starves a wide job.
#include "local/admission.hpp"

#include <catch2/catch.hpp>

using campaign::local::Admission;
using campaign::local::admit;
using campaign::local::RunningJob;
using campaign::local::WaitingJob;
using campaign::resource::Demand;
using campaign::resource::Node;

namespace {
std::vector<long> ids(const std::vector<Admission>& a) {
  std::vector<long> out;
  for (auto& x : a) out.push_back(x.id);
  return out;
}
Demand cores(long n, long gpus = 0) { return Demand{1, n, gpus, 0, false}; }
}  // namespace

TEST_CASE("jobs are admitted by the cores they ask for, not one per rank", "[local]") {
  // Four 1-rank jobs of 2 CPUs on 2 cores: one at a time.
  Node laptop{2, 0, 0};
  std::vector<WaitingJob> w{{1, cores(2), 60}, {2, cores(2), 60}, {3, cores(2), 60}, {4, cores(2), 60}};
  auto a = admit(laptop, {}, w, 0);
  CHECK(ids(a) == std::vector<long>{1});
  // Job 1 runs: nothing more starts until it ends.
  std::vector<RunningJob> running{{cores(2), a[0].where, 60000}};
  w.erase(w.begin());
  CHECK(admit(laptop, running, w, 1000).empty());
  // On 16 cores, eight at once.
  std::vector<WaitingJob> many;
  for (long i = 1; i <= 10; ++i) many.push_back({i, cores(2), 60});
  CHECK(admit(Node{16, 0, 0}, {}, many, 0).size() == 8);
}

TEST_CASE("each job gets its own GPUs; a GPU job waits for a GPU", "[local]") {
  Node workstation{16, 1, 0};
  std::vector<WaitingJob> w;
  for (long i = 1; i <= 8; ++i) w.push_back({i, cores(2, 1), 600});
  auto a = admit(workstation, {}, w, 0);
  REQUIRE(ids(a) == std::vector<long>{1});
  CHECK(a[0].where.front().gpus == std::vector<long>{0});
  // Two GPUs: two jobs, different GPUs.
  a = admit(Node{16, 2, 0}, {}, w, 0);
  REQUIRE(a.size() == 2);
  CHECK(a[0].where.front().gpus != a[1].where.front().gpus);
}

TEST_CASE("an exclusive job runs alone", "[local]") {
  Node n{8, 0, 0};
  std::vector<WaitingJob> w{{1, Demand{1, 1, 0, 0, true}, 60}, {2, cores(1), 60}};
  auto a = admit(n, {}, w, 0);
  REQUIRE(ids(a) == std::vector<long>{1});
  CHECK(a[0].where.front().cores.size() == 8);
}

TEST_CASE("a wide job is not starved by small ones (EASY backfill)", "[local]") {
  Node n{4, 0, 0};
  // A 3-core job runs until t=100 s; the wide 4-core job waits for it; small 1-core jobs fit now.
  auto busy = admit(n, {}, {{9, cores(3), 100}}, 0);
  std::vector<RunningJob> running{{cores(3), busy[0].where, 100000}};
  // A small job that ends by t=100 s may start (it does not delay the wide one)...
  std::vector<WaitingJob> w{{1, cores(4), 60}, {2, cores(1), 50}};
  CHECK(ids(admit(n, running, w, 0)) == std::vector<long>{2});
  // ...one that would still run at t=100 s may not: it would take a core the wide job needs then.
  w = {{1, cores(4), 60}, {2, cores(1), 500}};
  CHECK(admit(n, running, w, 0).empty());
  // Strict order otherwise: a job behind the wide one never overtakes it into what it waits for.
  w = {{1, cores(4), 60}, {2, cores(1), 500}, {3, cores(1), 10}};
  CHECK(ids(admit(n, running, w, 0)) == std::vector<long>{3});
}

TEST_CASE("a job whose end is unknown reserves nothing for later jobs", "[local]") {
  Node n{4, 0, 0};
  auto busy = admit(n, {}, {{9, cores(3), 0}}, 0);
  std::vector<RunningJob> running{{cores(3), busy[0].where, 0}};  // no walltime
  std::vector<WaitingJob> w{{1, cores(4), 60}, {2, cores(1), 500}};
  CHECK(ids(admit(n, running, w, 0)) == std::vector<long>{2});
}

TEST_CASE("running jobs of older records are placed where they fit", "[local]") {
  Node n{2, 0, 0};
  std::vector<RunningJob> running{{cores(1), {}, 0}};
  auto a = admit(n, running, {{1, cores(1), 0}, {2, cores(1), 0}}, 0);
  CHECK(ids(a) == std::vector<long>{1});
}
