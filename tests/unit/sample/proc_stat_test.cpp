#include "sample/proc_stat.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace campaign::sample;

TEST_CASE("/proc/stat: busy and total ticks from the first line") {
  // A 2-CPU node's /proc/stat (Linux 6.1): user nice system idle iowait irq softirq steal guest gn.
  const char* text =
      "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 175628 0\n"
      "cpu0 1393280 32966 572056 13343292 6130 0 17875 0 23933 0\n"
      "intr 114930548 113199788 3 0 5 263 0 4 [...]\n";
  auto t = parse_proc_stat(text);
  REQUIRE(t);
  // total = user..steal; guest is already inside user.
  CHECK(t->total == 10132153ull + 290696 + 3084719 + 46828483 + 16683 + 0 + 25195 + 0);
  CHECK(t->busy == t->total - 46828483 - 16683);
  CHECK_FALSE(parse_proc_stat("cpu0 1 2 3 4\n"));
  CHECK_FALSE(parse_proc_stat("cpu  1 2\n"));
  CHECK_FALSE(parse_proc_stat(""));
}

TEST_CASE("whole-node utilisation is the busy share of the ticks between two readings") {
  CpuTimes a{100, 1000}, b{175, 1100};
  CHECK(*cpu_percent(a, b) == Approx(75.0));
  CHECK_FALSE(cpu_percent(a, a));  // no tick passed
  CHECK_FALSE(cpu_percent(b, a));  // counters went back: not a pair of readings
}

TEST_CASE("/proc/<pid>/stat: ppid, utime+stime, starttime, whatever the command name holds") {
  // Fields: pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss ...
  const char* text =
      "4242 (py thon) (x)) S 4200 4242 4200 0 -1 4194560 2616 0 0 0 "
      "150 25 7 3 20 0 3 0 987654 10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  auto s = parse_pid_stat(text);
  REQUIRE(s);
  CHECK(s->pid == 4242);
  CHECK(s->ppid == 4200);
  CHECK(s->ticks == 175);  // utime + stime; the children's cutime/cstime are not the process's
  CHECK(s->start == 987654);
  CHECK(s->rss_pages == 300);  // field 24, after vsize (23)
  // A real-time process: negative priority.
  auto rt = parse_pid_stat("7 (migration/0) S 2 0 0 0 -1 69238848 0 0 0 0 0 12 0 0 -100 0 1 0 3 0 0\n");
  REQUIRE(rt);
  CHECK(rt->ticks == 12);
  CHECK(rt->rss_pages == 0);
  // A line that stops after starttime still reads, without a resident size.
  auto short_line = parse_pid_stat("7 (x) S 2 0 0 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 3\n");
  REQUIRE(short_line);
  CHECK(short_line->rss_pages == 0);
  CHECK_FALSE(parse_pid_stat("4242 (cut short) S 1 2 3\n"));
  CHECK_FALSE(parse_pid_stat("garbage"));
}

TEST_CASE("a tree's ticks between readings: growth per process, new ones from 0, gone ones no more") {
  TreeTicks before{{{10, 1}, 100}, {{11, 5}, 50}, {{12, 6}, 30}};
  TreeTicks after{{{10, 1}, 130},  // +30
                  {{11, 5}, 55},   // +5
                  {{13, 9}, 4},    // new: +4
                  {{12, 8}, 2}};   // pid 12 reused by another process: new, +2 (not 2 - 30)
  CHECK(tree_delta(before, after) == 41);
  CHECK(tree_delta(after, after) == 0);
  CHECK(core_percent(41, 0.5, 100) == Approx(82.0));    // 0.41 s of CPU in 0.5 s
  CHECK(core_percent(250, 1.0, 100) == Approx(250.0));  // more than one core
  CHECK(core_percent(5, 0, 100) == 0);
}

TEST_CASE("reading /proc: this node and this process's tree") {
  auto t = read_cpu_times();
  REQUIRE(t);
  CHECK(t->total > 0);
  int self = static_cast<int>(::getpid());
  TreeTicks tree = read_tree(self, 0);
  REQUIRE(tree.size() >= 1);
  CHECK(tree.begin()->first.first == self);
  CHECK(read_tree(self, self).empty());  // excluding the root excludes everything
}
