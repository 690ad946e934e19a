// The single-writer lock, held by a forked child process: a second writer is
// refused with the holder's pid and host, readers are not, and the lock goes
// away with the holder even when it is killed with SIGKILL.
#include "catalog/lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "catalog/catalog.hpp"
#include "catalog/schema.hpp"
#include "helpers.hpp"

using namespace campaign;
using campaign::test::TempDir;

namespace {

std::string this_host() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// Forks a child that runs `setup`, says on a pipe whether it succeeded, then runs `then` and exits;
// returns once the child has said it did.
pid_t fork_ready(const std::function<bool()>& setup, const std::function<void()>& then) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    char ok = '0';
    try {
      ok = setup() ? '1' : '0';
    } catch (...) {
    }
    if (write(fds[1], &ok, 1) != 1 || ok != '1') _exit(1);
    then();
    _exit(0);
  }
  close(fds[1]);
  char c = 0;
  REQUIRE(read(fds[0], &c, 1) == 1);
  close(fds[0]);
  REQUIRE(c == '1');
  return pid;
}

// A child process that opens the catalog for writing, says so on a pipe and
// waits to be killed.
class Holder {
 public:
  explicit Holder(const std::filesystem::path& workdir) {
    std::optional<Catalog> cat;  // the child's copy holds the catalog
    pid_ = fork_ready(
        [&] {
          cat.emplace(Catalog::open(workdir));
          return true;
        },
        [] {
          for (;;) pause();
        });
  }
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;
  ~Holder() { kill9(); }

  pid_t pid() const { return pid_; }

  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

// A pid that no process has: a child's, once it has exited and been reaped.
pid_t dead_pid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

// A process that holds the lock while its file names a holder that is gone (as a child of a holder
// killed by SIGKILL between its spawn and its exec would): it lets go when the gate opens.
class Inheritor {
 public:
  Inheritor(const std::filesystem::path& workdir, pid_t named) {
    int gate[2];
    REQUIRE(pipe(gate) == 0);
    pid_ = fork_ready(
        [&] {
          close(gate[1]);
          int fd = ::open(WriterLock::path_in(workdir).c_str(), O_RDWR | O_CREAT, 0644);
          const std::string line = "pid=" + std::to_string(named) + " host=" + this_host() + " since=1\n";
          return fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
                 ::pwrite(fd, line.data(), line.size(), 0) == static_cast<ssize_t>(line.size());
        },
        [&] {
          char c;
          if (read(gate[0], &c, 1) < 0) _exit(3);  // the gate opened (or the test ended)
        });
    close(gate[0]);
    gate_ = gate[1];
  }
  Inheritor(const Inheritor&) = delete;
  Inheritor& operator=(const Inheritor&) = delete;
  ~Inheritor() { open_gate(); }

  void open_gate() {
    if (gate_ < 0) return;
    close(gate_);  // read() returns 0: the child exits, its lock with it
    gate_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
  }

 private:
  pid_t pid_ = -1;
  int gate_ = -1;
};

}  // namespace

TEST_CASE("a holder gone while a process it started still holds the lock: waited for, then taken",
          "[catalog][lock]") {
  TempDir dir;
  Inheritor inheritor(dir.path(), dead_pid());
  int tries = 0;
  // The gate opens only once acquire() has found the lock held and its holder gone.
  WriterLock lock = WriterLock::acquire(dir.path(), {std::chrono::seconds(60), [&] {
                                                       if (tries++ == 0) inheritor.open_gate();
                                                     }});
  CHECK(tries >= 1);
  CHECK(WriterLock::read_holder(dir.path())->pid == getpid());
}

TEST_CASE(
    "a live holder is refused at once; a gone holder's lock still held after the wait is refused, "
    "saying so",
    "[catalog][lock]") {
  TempDir dir;
  int tries = 0;
  const DeadHolderWait counted{std::chrono::seconds(60), [&] { ++tries; }};
  {
    Inheritor live(dir.path(), getpid());  // names this process: alive
    CHECK_THROWS_AS(WriterLock::acquire(dir.path(), counted), LockedError);
    CHECK(tries == 0);
  }
  Inheritor stuck(dir.path(), dead_pid());
  std::string msg;
  try {
    WriterLock::acquire(dir.path(), {std::chrono::milliseconds(0), {}});
  } catch (const LockedError& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find("(no longer running: a process it started still holds the lock)") != std::string::npos);
}

TEST_CASE("a second writer is refused with the holder's pid and host", "[catalog][lock]") {
  TempDir dir;
  Holder holder(dir.path());

  std::string msg;
  try {
    Catalog::open(dir.path());
  } catch (const LockedError& e) {
    msg = e.what();
  }
  INFO(msg);
  const std::string expected = (dir.path() / "campaign.db").string() + " is in use by pid " +
                               std::to_string(holder.pid()) + " on host " + this_host() + " since ";
  CHECK(msg.rfind(expected, 0) == 0);
  CHECK(msg.find("campaign.lock") != std::string::npos);

  auto h = WriterLock::read_holder(dir.path());
  REQUIRE(h);
  CHECK(h->pid == holder.pid());
  CHECK(h->host == this_host());

  // Readers need no lock.
  Catalog ro = Catalog::open(dir.path(), Access::read_only);
  CHECK(ro.schema_version() == current_schema_version());
}

TEST_CASE("the lock dies with its holder, even with SIGKILL", "[catalog][lock]") {
  TempDir dir;
  Holder holder(dir.path());
  CHECK_THROWS_AS(Catalog::open(dir.path()), LockedError);
  holder.kill9();

  // The file still names the dead holder; the OS lock is gone, so it is ignored.
  Catalog cat = Catalog::open(dir.path());
  auto h = WriterLock::read_holder(dir.path());
  REQUIRE(h);
  CHECK(h->pid == getpid());
  CHECK(cat.check().empty());
}

TEST_CASE("the lock excludes a second open in the same process", "[catalog][lock]") {
  TempDir dir;
  {
    WriterLock first = WriterLock::acquire(dir.path());
    CHECK_THROWS_AS(WriterLock::acquire(dir.path()), LockedError);
    WriterLock moved = std::move(first);
    CHECK_THROWS_AS(WriterLock::acquire(dir.path()), LockedError);
    moved.release();
    WriterLock again = WriterLock::acquire(dir.path());  // released early
  }
  WriterLock after = WriterLock::acquire(dir.path());  // released by the destructor
}

TEST_CASE("stale or garbled lock file text does not block", "[catalog][lock]") {
  TempDir dir;
  { std::ofstream(WriterLock::path_in(dir.path())) << "pid=999999 host=elsewhere since=1\n"; }
  auto stale = WriterLock::read_holder(dir.path());
  REQUIRE(stale);
  CHECK(stale->pid == 999999);
  CHECK(stale->host == "elsewhere");
  CHECK(stale->describe().find("pid 999999 on host elsewhere since 19") == 0);
  { WriterLock lock = WriterLock::acquire(dir.path()); }

  { std::ofstream(WriterLock::path_in(dir.path())) << "garbage"; }
  CHECK_FALSE(WriterLock::read_holder(dir.path()));
  WriterLock lock = WriterLock::acquire(dir.path());
  CHECK(WriterLock::read_holder(dir.path())->pid == getpid());
}

TEST_CASE("sibling connections write from other threads of the lock's holder (issue 34)", "[catalog]") {
  TempDir dir;
  Catalog cat = Catalog::open(dir.path());
  // Another writer process is still refused while the siblings write.
  std::vector<Catalog> siblings;
  siblings.push_back(cat.sibling());
  siblings.push_back(cat.sibling());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 50; ++i) {
          CampaignRow row;
          row.name = "part" + std::to_string(t) + "-" + std::to_string(i);
          row.spec_text = "name: x";
          row.spec_hash = "h";
          row.system = "s" + std::to_string(t);
          row.workdir = dir.path().string();
          siblings[static_cast<size_t>(t)].upsert_campaign(row);
        }
      } catch (...) {
        ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(cat.campaigns().size() == 100);
  CHECK_THROWS_AS(Catalog::open(dir.path(), Access::read_only).sibling(), CatalogError);
}
