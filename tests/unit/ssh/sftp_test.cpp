// SshShell's file operations over SFTP: put (atomic, creating directories, keeping the mode), get,
// exists, read_file (bounded), and their errors.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "fixture.hpp"

using campaign::ssh::SshShell;
using campaign::transport::TransportError;
using namespace ssh_test;

TEST_CASE("put creates directories, replaces atomically and keeps the mode", "[ssh][sftp]") {
  SshShell sh(sshd().options());
  const fs::path local = test_root() / "put-src" / "job.sh";
  write_file(local, "#!/bin/sh\necho one\n");
  fs::permissions(local, fs::perms(0750));
  const fs::path remote = test_root() / "put-dst" / "a" / "b" / "job.sh";

  sh.put(local, remote.string());
  CHECK(slurp(remote) == "#!/bin/sh\necho one\n");
  struct stat st {};
  REQUIRE(::stat(remote.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0750);

  write_file(local, "#!/bin/sh\necho two, longer\n");
  sh.put(local, remote.string());
  CHECK(slurp(remote) == "#!/bin/sh\necho two, longer\n");
  // No temporary file is left beside it.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(remote.parent_path())) ++entries;
  CHECK(entries == 1);
  CHECK(sh.stats().connects == 1);
}

TEST_CASE("put and get move megabytes intact", "[ssh][sftp]") {
  SshShell sh(sshd().options());
  std::string data;
  for (int i = 0; data.size() < 5'000'000; ++i) data += std::to_string(i * 7919) + (i % 13 ? ' ' : '\n');
  data += std::string("\0\xff end", 6);
  const fs::path local = test_root() / "big" / "in.dat";
  write_file(local, data);
  const std::string remote = (test_root() / "big" / "remote" / "data.bin").string();
  sh.put(local, remote);
  const fs::path back = test_root() / "big" / "back.dat";
  sh.get(remote, back);
  CHECK(slurp(back) == data);
  auto head = sh.read_file(remote, 1000);
  REQUIRE(head);
  CHECK(*head == data.substr(0, 1000));
  auto all = sh.read_file(remote, 10'000'000);
  REQUIRE(all);
  CHECK(all->size() == data.size());
  CHECK(*all == data);
}

TEST_CASE("exists, read_file and get report missing files and directories", "[ssh][sftp]") {
  SshShell sh(sshd().options());
  const fs::path dir = test_root() / "files";
  write_file(dir / "small.txt", "hello\n");
  write_file(dir / "empty", "");
  CHECK(sh.exists((dir / "small.txt").string()));
  CHECK(sh.exists(dir.string()));
  CHECK_FALSE(sh.exists((dir / "nope").string()));
  CHECK(sh.read_file((dir / "small.txt").string()) == std::optional<std::string>("hello\n"));
  CHECK(sh.read_file((dir / "empty").string()) == std::optional<std::string>(""));
  CHECK(sh.read_file((dir / "nope").string()) == std::nullopt);
  CHECK_THROWS_WITH(sh.read_file(dir.string()), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(sh.get((dir / "nope").string(), dir / "copy"), Catch::Contains("no such file"));
  CHECK_FALSE(fs::exists(dir / "copy"));
  CHECK_THROWS_AS(sh.put(dir / "missing-local", (dir / "x").string()), TransportError);
  // A parent that is a file cannot become a directory.
  CHECK_THROWS_WITH(sh.put(dir / "small.txt", (dir / "small.txt" / "under").string()),
                    Catch::Contains("not a directory"));
}

TEST_CASE("file names with spaces, quotes and $(...) pass literally", "[ssh][sftp][quote]") {
  SshShell sh(sshd().options());
  const fs::path dir = test_root() / "odd names";
  const std::string name = "it's a \"file\" $(touch pwned) `touch pwned` ; *";
  write_file(test_root() / "odd-src", "odd\n");
  sh.put(test_root() / "odd-src", (dir / name).string());
  CHECK(slurp(dir / name) == "odd\n");
  CHECK(sh.exists((dir / name).string()));
  CHECK(sh.run({"cat", (dir / name).string()}).out == "odd\n");
  sh.get((dir / name).string(), test_root() / "odd-back");
  CHECK(slurp(test_root() / "odd-back") == "odd\n");
  CHECK_FALSE(fs::exists(dir / "pwned"));
}
