// The tau engine and its components on TAU pprof text (tests/data/profilers/README.md names each
// file's source): the Gray-Scott `pprof -s` (total and mean listings), the ExaRL plan's mean
// listing with TAU's per-communicator lines, and a 4-rank listing (node listings, user events,
// total and mean) with values chosen to be checked by hand. tests/reference/tau_reference.py
// checks every value against TAU's definitions.
#include <algorithm>
#include <catch2/catch.hpp>

#include "collect/components.hpp"
#include "collect/engines.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::load_collector;

namespace {

fs::path profile(const std::string& name) { return fs::path(TEST_DATA_DIR) / "profilers" / name; }

Collector tau() { return load_collector(repo_root() / "collectors" / "tau.yaml"); }

CollectResult collect_profile(const std::string& file, Collector c = tau()) {
  TempDir run;
  fs::copy_file(profile(file), run / "pprof.txt");
  return collect({c}, run.path());
}

}  // namespace

TEST_CASE("tau: pprof -s of Gray-Scott: the mean listing, totals as totals, % of the application's time",
          "[profilers][tau]") {
  Collector c = tau();
  campaign::collect::set_component(c, campaign::collect::make_component("bp4", "^BP4Writer::"));
  auto r = collect_profile("pprof-gray-scott.txt", c);
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  // FUNCTION SUMMARY (mean) over the 4 ranks; "2:38.281" is m:ss.mmm, "28,489" msec.
  CHECK(value(r, "tau_exclusive:.TAU application") == Approx(39.570));
  CHECK(value(r, "tau_inclusive:.TAU application") == Approx(48.738));
  CHECK(value(r, "tau_application_time") == Approx(48.738));
  CHECK(value(r, "tau_exclusive:MPI_Sendrecv()") == Approx(7.122));
  CHECK(value(r, "tau_calls:MPI_Wait()") == 806.5);
  CHECK(value(r, "tau_exclusive_total:.TAU application") == Approx(158.281));
  CHECK(value(r, "tau_inclusive_total:.TAU application") == Approx(194.955));
  CHECK(value(r, "tau_exclusive_total:MPI_Sendrecv()") == Approx(28.489));
  CHECK(value(r, "tau_calls_total:MPI_Sendrecv()") == 48000);
  // The 25 MPI_ routines of the mean listing over `.TAU application`'s inclusive 48.738 s.
  CHECK(value(r, "component:mpi") == Approx(8.67174155));
  CHECK(value(r, "component_percent:mpi") == Approx(100 * 8.67174155 / 48.738));
  CHECK(value(r, "component:bp4") == Approx(0.4407005));
  CHECK(value(r, "component_percent:bp4") == Approx(100 * 0.4407005 / 48.738));
  // No node listing: no per-rank values.
  CHECK(count(r, "pop_load_balance:mpi") == 0);
  CHECK(r.metrics.size() == 53 * 3 + 1 + 53 * 3 + 2 * 2);
}

TEST_CASE("tau: the ExaRL plan's mean listing: per-communicator lines apart, 14.64 % in MPI",
          "[profilers][tau]") {
  auto r = collect_profile("pprof-exarl-mean.txt");
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "tau_application_time") == Approx(1832.745));
  CHECK(value(r, "tau_exclusive:MPI_Probe()") == Approx(263.892));
  CHECK(
      value(
          r,
          "tau_exclusive_comm:MPI_Probe() [ <comm> = <ranks: 0, 1, 2, 3, 4, 5, 6, 7> <addr=0x44000000> ]") ==
      Approx(263.892));
  CHECK(value(r,
              "tau_calls_comm:MPI_Recv() [ <comm> = <ranks: 0, 1, 2, 3, 4, 5, 6, 7> "
              "<addr=0xffffffff84000003> ]") == 2.5);
  CHECK(
      count(r, "tau_inclusive:MPI_Probe() [ <comm> = <ranks: 0, 1, 2, 3, 4, 5, 6, 7> <addr=0x44000000> ]") ==
      0);
  // pprof's %Time column adds up to this: the untagged MPI routines over the application's inclusive
  // time. Summing the tagged lines too, over the sum of all lines, gave 25.43 %.
  CHECK(value(r, "component:mpi") == Approx(268.286987));
  CHECK(value(r, "component_percent:mpi") == Approx(14.638533293));
}

TEST_CASE("tau: node listings give per-rank values and POP's efficiencies", "[profilers][tau]") {
  auto r = collect_profile("pprof-4ranks-comm.txt");
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());  // the USER EVENTS table is skipped
  // compute(int): 52, 58, 64, 70 s on ranks 0-3: mean 61.
  CHECK(value(r, "tau_exclusive_rank:void compute(int) C", 2.0) == Approx(64));
  CHECK(value(r, "tau_exclusive:void compute(int) C") == Approx(61));
  // checkpoint() on rank 0 alone: the mean counts the others as 0, as pprof's mean does.
  CHECK(count(r, "tau_exclusive_rank:void checkpoint() C") == 1);
  // Each rank's runtime, `.TAU application`'s inclusive time: 1:07.921, 1:10.884, 1:16.348, 1:21.811.
  CHECK(value(r, "tau_application_time_rank", 0.0) == Approx(67.921));
  CHECK(value(r, "tau_application_time_rank", 3.0) == Approx(81.811));
  // MPI per rank (Allreduce, Barrier, Send, Init, Finalize, Comm_rank; no per-communicator line):
  // 10.420762, 9.184262, 7.947762, 6.711262 s. Useful = runtime - MPI: 57.500238, 61.699738,
  // 68.400238, 75.099738 s; mean 65.674988, max 75.099738; runtime 81.811 (rank 3's).
  CHECK(value(r, "component:mpi") == Approx(8.566012));
  CHECK(value(r, "pop_load_balance:mpi") == Approx(65.674988 / 75.099738).epsilon(1e-12));
  CHECK(value(r, "pop_communication_efficiency:mpi") == Approx(75.099738 / 81.811).epsilon(1e-12));
  CHECK(value(r, "pop_parallel_efficiency:mpi") == Approx(65.674988 / 81.811).epsilon(1e-12));
  // The time actually spent in MPI_Barrier(): 0.2505, 0.501, 0.7515, 1.002 s, mean 0.62625 s.
  CHECK(value(r, "tau_exclusive:MPI_Barrier()") == Approx(0.62625));
  CHECK(count(r, "tau_barrier_time:MPI_Barrier()") == 0);
  CHECK(value(r, "tau_exclusive:MPI_Send()") == Approx(0.138));
  CHECK(value(r, "tau_exclusive_comm:MPI_Send() [ <comm> = <ranks: 0, 1> <addr=0xffffffff84000002> ]") ==
        Approx(0.010));
}

TEST_CASE("tau: without a mean listing node 0's is read; damage is a warning, no listing an error",
          "[profilers][tau]") {
  std::vector<campaign::collect::Metric> metrics;
  std::vector<std::string> warnings;
  campaign::collect::Warnings capped(warnings);
  campaign::collect::Output out{metrics, capped, true};
  auto metric = [&](const std::string& name) -> std::optional<double> {
    for (const auto& m : metrics)
      if (m.name == name && !m.step) return m.value;
    return std::nullopt;
  };
  const std::string row_app =
      "100.0        2,000        5,000           1           2    5000000 .TAU application\n";
  const std::string text =
      "NODE 1;CONTEXT 0;THREAD 0:\n" + row_app +
      " 60.0        3,000        3,000          10           0     300000 MPI_Recv()\n"
      "NODE 0;CONTEXT 0;THREAD 0:\n" +
      row_app +
      " 20.0        1,000        1,000          10           0     100000 MPI_Recv()\n"
      " 10.0      garbage          500           1           0     500000 broken\n"
      "FUNCTION SUMMARY (total):\n"
      "100.0        4,000       10,000           2           4    5000000 .TAU application\n"
      " 40.0        4,0";
  campaign::collect::run_tau({"pprof.txt", text}, out);
  capped.finish();
  CHECK(metric("tau_exclusive:MPI_Recv()") == Approx(1));  // node 0's listing
  CHECK(metric("tau_application_time") == Approx(5));
  CHECK(metric("tau_exclusive_total:.TAU application") == Approx(4));
  CHECK(metric("tau_exclusive_rank:MPI_Recv()") == std::nullopt);  // per rank: with a step
  CHECK(std::count_if(metrics.begin(), metrics.end(), [](const auto& m) {
          return m.name == "tau_application_time_rank" && m.step == 1.0 && m.value == 5;
        }) == 1);
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[0], Catch::Matchers::StartsWith("pprof.txt:7: not a pprof row, ignored"));
  CHECK_THAT(warnings[1], Catch::Matchers::StartsWith("pprof.txt:10: last line has no newline"));
  CHECK_THROWS_WITH(campaign::collect::run_tau({"pprof.txt", "Reading Profile files in profile.*\n"}, out),
                    Catch::Matchers::StartsWith("pprof.txt: no pprof listing"));
}
