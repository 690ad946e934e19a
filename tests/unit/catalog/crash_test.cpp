// Crash safety in the ninja spirit: a forked child drives a campaign through
// its whole life (submit, queue, run, fail, retry, complete, collect), one
// transaction per step, reporting each commit on a pipe; the parent kills it
// with SIGKILL at random moments, reopens the catalog and checks that
//  - the writer lock died with the child;
//  - the catalog is sound (integrity, foreign keys, every state the replay of
//    its events, attempt numbering);
//  - every attempt is in the last state the child reported committed (or,
//    if it reported nothing on that attempt, the state the parent saw at its
//    previous check), or in the one step after it (committed, killed before
//    reporting): nothing committed is lost, nothing half-done is visible.
// Each new child resumes from what the catalog says, so the run also shows
// that resuming after kill -9 finishes the campaign without duplicates.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "catalog/catalog.hpp"
#include "helpers.hpp"

using namespace campaign;
using campaign::test::numbered;
using campaign::test::TempDir;

namespace {

constexpr int kCases = 30;
constexpr int kMetrics = 50;

// Cases whose index is a multiple of 3 fail twice before they complete.
bool fails(int case_index, int attempt_number) { return case_index % 3 == 0 && attempt_number < 3; }

int case_index(const AttemptRow& a) { return std::stoi(a.case_key.substr(1)); }

struct Report {
  std::int64_t attempt;
  std::int32_t state;
};

// The one step the child's script takes from `state`; nullopt at the end.
// new_attempt_for_retry is reported as the new attempt being planned.
std::optional<State> next_of(State s, int index, int number) {
  switch (s) {
    case State::planned:
      return State::submitting;
    case State::submitting:
      return State::queued;
    case State::queued:
      return State::running;
    case State::running:
      return fails(index, number) ? State::failed : State::completed;
    case State::completed:
      return State::collected;
    default:
      return std::nullopt;
  }
}

// The child: advance every case by one step per round until all are
// collected, reporting each commit; after `cap` reports (when not negative) it
// waits to be killed. Never returns.
[[noreturn]] void drive(const std::filesystem::path& workdir, int report_fd, int cap) {
  try {
    Catalog cat = Catalog::open(workdir);
    const std::int64_t campaign = cat.find_campaign("crash")->id;
    int reports = 0;
    auto report = [&](std::int64_t attempt, State s) {
      Report r{attempt, static_cast<std::int32_t>(s)};
      if (write(report_fd, &r, sizeof r) != sizeof r) _exit(3);
      if (cap >= 0 && ++reports >= cap)
        for (;;) pause();
    };
    std::vector<Metric> metrics;
    for (int i = 0; i < kMetrics; ++i) metrics.push_back({"epoch_time", i, 1.0 + i, "s"});
    for (;;) {
      bool moved = false;
      for (const AttemptRow& a : cat.latest_attempts(campaign)) {
        const int index = case_index(a);
        switch (a.state) {
          case State::planned:
            cat.begin_submit(a.id, "crash-" + a.case_key + "-" + std::to_string(a.number), 600, 1);
            break;
          case State::submitting:
            cat.record_job_id(a.id, std::to_string(1000 + a.id));
            break;
          case State::queued:
            cat.update_state(a.id, State::running, {.started = Time(std::chrono::seconds(a.id))});
            break;
          case State::running:
            cat.update_state(a.id, fails(index, a.number) ? State::failed : State::completed,
                             {.exit_code = fails(index, a.number) ? 1 : 0, .elapsed_s = 60});
            break;
          case State::completed:
            cat.record_collection(a.id, metrics);
            break;
          case State::failed: {
            std::int64_t next = cat.new_attempt_for_retry(a.case_id, "exit 1");
            report(next, State::planned);
            moved = true;
            continue;
          }
          default:
            continue;
        }
        report(a.id, *next_of(a.state, index, a.number));
        moved = true;
      }
      if (!moved) _exit(0);
    }
  } catch (const std::exception& e) {
    std::cerr << "crash test child: " << e.what() << "\n";
    _exit(1);
  }
}

}  // namespace

TEST_CASE("kill -9 at random moments never loses or tears a commit", "[catalog][crash]") {
  TempDir dir;
  {
    Catalog cat = Catalog::open(dir.path());
    const auto campaign = cat.upsert_campaign({.name = "crash", .system = "local"});
    std::vector<CaseRow> rows;
    for (int i = 0; i < kCases; ++i) {
      CaseRow r;
      r.key = numbered("k", i);
      r.name = r.key;
      r.run_dir = "runs/" + r.key;
      rows.push_back(r);
    }
    cat.sync_cases(campaign, rows);
  }

  const unsigned seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  // Kill after a random number of reported commits plus a random pause, so
  // the kill lands anywhere: while opening, mid-transaction, between them.
  std::uniform_int_distribution<int> commits_before_kill(0, 8);
  std::uniform_int_distribution<int> pause_us(0, 400);
  // In the first kKillRounds rounds the child stops a few commits past the
  // parent's count and waits for the kill: on a loaded machine the parent's
  // pause could outlast the whole campaign (3 kills in a CI run). At most 8
  // commits a round, 160 in all, fewer than the campaign's 250: each of these
  // rounds ends in a kill, whatever the machine's load.
  constexpr int kKillRounds = 20;
  std::uniform_int_distribution<int> capped_before(0, 4), past(1, 4);

  std::map<std::int64_t, State> known;  // attempt -> state at the previous check
  int kills = 0, rounds = 0, commits = 0;
  bool finished = false;
  while (!finished) {
    ++rounds;
    REQUIRE(rounds < 1000);
    const bool capped = rounds <= kKillRounds;
    const int before = capped ? capped_before(rng) : commits_before_kill(rng);
    const int cap = capped ? before + past(rng) : -1;
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      drive(dir.path(), fds[1], cap);
    }
    close(fds[1]);

    std::map<std::int64_t, State> reported;  // this round: attempt -> last state committed
    auto take = [&](const Report& r) {
      reported[r.attempt] = static_cast<State>(r.state);
      ++commits;
    };
    Report r;
    for (int n = before; n > 0 && read(fds[0], &r, sizeof r) == sizeof r; --n) take(r);
    std::this_thread::sleep_for(std::chrono::microseconds(pause_us(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) {
      REQUIRE(WTERMSIG(status) == SIGKILL);
      ++kills;
    } else {
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);  // the child's own errors are printed above
      finished = true;
    }
    while (read(fds[0], &r, sizeof r) == sizeof r) take(r);
    close(fds[0]);

    // The lock died with the child, and the catalog is sound.
    Catalog cat = Catalog::open(dir.path());
    auto problems = cat.check();
    INFO("round " << rounds);
    for (const auto& p : problems) UNSCOPED_INFO(p);
    REQUIRE(problems.empty());

    const std::int64_t campaign = cat.find_campaign("crash")->id;
    std::set<std::int64_t> seen;
    for (const AttemptRow& c : cat.latest_attempts(campaign)) {
      for (const AttemptRow& a : cat.attempts_of_case(c.case_id)) {
        seen.insert(a.id);
        // Only the child's last commit before the kill can be unreported.
        State last = State::planned;  // made by sync_cases or a retry, unseen so far
        if (auto r = reported.find(a.id); r != reported.end())
          last = r->second;
        else if (auto k = known.find(a.id); k != known.end())
          last = k->second;
        const auto next = next_of(last, case_index(a), a.number);
        INFO("attempt " << a.id << " #" << a.number << " of " << a.case_key << ": catalog says "
                        << to_string(a.state) << ", expected " << to_string(last) << " or the next step");
        CHECK((a.state == last || (next && a.state == *next)));
        if (a.state == State::collected) CHECK(cat.metrics_of_attempt(a.id).size() == kMetrics);
        known[a.id] = a.state;
      }
    }
    // Every attempt the child reported exists: nothing committed was lost.
    for (const auto& [id, state] : reported) CHECK(seen.count(id) == 1);
  }

  std::cout << "catalog crash test: " << kills << " kills, " << commits << " reported commits, " << rounds
            << " rounds\n";
  CHECK(kills >= kKillRounds);

  // The campaign ran to completion exactly once per case.
  Catalog cat = Catalog::open(dir.path(), Access::read_only);
  const std::int64_t campaign = cat.find_campaign("crash")->id;
  auto latest = cat.latest_attempts(campaign);
  REQUIRE(latest.size() == kCases);
  for (const AttemptRow& a : latest) {
    INFO(a.case_key);
    CHECK(a.state == State::collected);
    CHECK(a.number == (case_index(a) % 3 == 0 ? 3 : 1));
  }
  CHECK(cat.metrics_of(campaign).size() == kCases * kMetrics);
}
