// Staging trees: sync_up sends only new or changed files (by size, then SHA-256), sync_down fetches
// only new or changed collector files (by size and time), both with patterns and awkward names, over
// SshShell and, since they only need a Shell, over LocalShell too.
#include "ssh/sync.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "fixture.hpp"

using campaign::ssh::SshShell;
using campaign::ssh::sync_down;
using campaign::ssh::sync_up;
using campaign::transport::LocalShell;
using campaign::transport::Shell;
using campaign::transport::TransportError;
using namespace ssh_test;

namespace {

using Paths = std::vector<std::string>;

void check_sync_up(Shell& shell, const fs::path& base) {
  const fs::path local = base / "local";
  const fs::path remote = base / "remote dir";
  write_file(local / "a.txt", "alpha\n");
  write_file(local / "sub dir" / "b c.txt", "bee\n");
  write_file(local / "it's $(touch pwned)", "quote\n");
  write_file(local / ".git" / "HEAD", "ref\n");
  write_file(local / "build" / "x.o", "obj\n");
  write_file(local / "pkg" / "m.pyc", "bytecode\n");
  const Paths exclude = {".git", "build/", "*.pyc"};

  auto first = sync_up(shell, local, remote.string(), exclude);
  CHECK(first.files == 3);
  CHECK(first.transferred == Paths{"a.txt", "it's $(touch pwned)", "sub dir/b c.txt"});
  CHECK(first.bytes == 6 + 6 + 4);
  CHECK(slurp(remote / "sub dir" / "b c.txt") == "bee\n");
  CHECK(slurp(remote / "it's $(touch pwned)") == "quote\n");
  CHECK_FALSE(fs::exists(remote / ".git"));
  CHECK_FALSE(fs::exists(remote / "build"));
  CHECK_FALSE(fs::exists(remote / "pkg"));
  CHECK_FALSE(fs::exists(remote / "pwned"));

  CHECK(sync_up(shell, local, remote.string(), exclude).transferred.empty());

  write_file(local / "a.txt", "alphA\n");  // same size, new content
  CHECK(sync_up(shell, local, remote.string(), exclude).transferred == Paths{"a.txt"});
  CHECK(slurp(remote / "a.txt") == "alphA\n");

  write_file(local / "sub dir" / "b c.txt", "bumble bee\n");  // new size
  fs::remove(remote / "it's $(touch pwned)");                 // gone remotely
  write_file(remote / "extra", "left alone\n");               // only remote
  auto third = sync_up(shell, local, remote.string(), exclude);
  CHECK(third.transferred == Paths{"it's $(touch pwned)", "sub dir/b c.txt"});
  CHECK(slurp(remote / "sub dir" / "b c.txt") == "bumble bee\n");
  CHECK(slurp(remote / "extra") == "left alone\n");
}

void check_sync_down(Shell& shell, const fs::path& base) {
  const fs::path remote = base / "remote runs";
  const fs::path mirror = base / "mirror";
  write_file(remote / "c1" / "out.csv", "epoch,time\n0,1.5\n");
  write_file(remote / "c1" / "log.txt", "noise\n");
  write_file(remote / "c1" / ".exit", "0\n");
  write_file(remote / "c 2" / "out.csv", "epoch,time\n0,2.5\n");
  write_file(remote / "c 2" / "ckpt" / "model.csv", "big\n");
  const Paths include = {"*.csv", ".exit"}, exclude = {"ckpt"};

  auto first = sync_down(shell, remote.string(), mirror, include, exclude);
  CHECK(first.files == 3);
  CHECK(first.transferred == Paths{"c 2/out.csv", "c1/.exit", "c1/out.csv"});
  CHECK(slurp(mirror / "c 2" / "out.csv") == "epoch,time\n0,2.5\n");
  CHECK_FALSE(fs::exists(mirror / "c1" / "log.txt"));
  CHECK_FALSE(fs::exists(mirror / "c 2" / "ckpt"));

  CHECK(sync_down(shell, remote.string(), mirror, include, exclude).transferred.empty());

  // Same size, new content and time: fetched again.
  write_file(remote / "c1" / "out.csv", "epoch,time\n0,9.5\n");
  const timespec later[2] = {{0, UTIME_OMIT}, {2'000'000'000, 123456789}};
  ::utimensat(AT_FDCWD, (remote / "c1" / "out.csv").c_str(), later, 0);
  CHECK(sync_down(shell, remote.string(), mirror, include, exclude).transferred == Paths{"c1/out.csv"});
  CHECK(slurp(mirror / "c1" / "out.csv") == "epoch,time\n0,9.5\n");

  // Everything when no include is given.
  CHECK(sync_down(shell, remote.string(), base / "all").files == 5);
  CHECK_THROWS_WITH(sync_down(shell, (base / "nowhere").string(), mirror), Catch::Contains("does not exist"));
}

}  // namespace

TEST_CASE("sync_up over SSH sends new and changed files only", "[ssh][sync]") {
  SshShell sh(sshd().options());
  check_sync_up(sh, test_root() / "sync-up-ssh");
  CHECK(sh.stats().connects == 1);
}

TEST_CASE("sync_down over SSH mirrors selected collector files", "[ssh][sync]") {
  SshShell sh(sshd().options());
  check_sync_down(sh, test_root() / "sync-down-ssh");
}

TEST_CASE("sync works over LocalShell too", "[ssh][sync]") {
  LocalShell local;
  check_sync_up(local, test_root() / "sync-up-local");
  check_sync_down(local, test_root() / "sync-down-local");
}

TEST_CASE("sync_up batches many files into few commands", "[ssh][sync]") {
  SshShell sh(sshd().options());
  const fs::path local = test_root() / "many" / "local";
  for (int i = 0; i < 300; ++i) {
    // Long names, so that batching matters. (Built piecewise: GCC 12 warns, wrongly, on
    // "literal" + std::string here.)
    std::string name(150, 'x'), dir = "d";
    name += std::to_string(i);
    dir += std::to_string(i % 7);
    write_file(local / dir / name, std::to_string(i));
  }
  auto first = sync_up(sh, local, (test_root() / "many" / "remote").string());
  CHECK(first.transferred.size() == 300);
  const long commands = sh.stats().commands;
  auto second = sync_up(sh, local, (test_root() / "many" / "remote").string());
  CHECK(second.transferred.empty());
  CHECK(sh.stats().commands - commands == 1);  // ~50 KB of names: one comparison command
  CHECK_THROWS_AS(sync_up(sh, test_root() / "no-such-local", "x"), TransportError);
}
