// Shell::read_files: many small files (the exit markers of every active job) in one round trip over
// SSH, with the same answers as read_file one by one; and the staging additions to sync: listing
// only some run directories, and sending a single file.
#include <catch2/catch.hpp>

#include "fixture.hpp"
#include "ssh/sync.hpp"

using campaign::ssh::SshShell;
using campaign::transport::LocalShell;
using campaign::transport::Shell;
using namespace ssh_test;

namespace {

using Texts = std::vector<std::optional<std::string>>;

void check_read_files(Shell& shell, const fs::path& base) {
  write_file(base / "a" / ".exit", "0\n");
  write_file(base / "it's $(touch pwned) b" / ".exit", "137\n");
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  write_file(base / "bin", binary);
  write_file(base / "empty", "");
  fs::create_directories(base / "dir");
  std::vector<std::string> paths = {(base / "a" / ".exit").string(),
                                    (base / "missing" / ".exit").string(),
                                    (base / "it's $(touch pwned) b" / ".exit").string(),
                                    (base / "bin").string(),
                                    (base / "empty").string(),
                                    (base / "dir").string()};
  auto texts = shell.read_files(paths);
  REQUIRE(texts.size() == paths.size());
  CHECK(texts[0] == std::optional<std::string>("0\n"));
  CHECK_FALSE(texts[1]);
  CHECK(texts[2] == std::optional<std::string>("137\n"));
  CHECK(texts[3] == std::optional<std::string>(binary));
  CHECK(texts[4] == std::optional<std::string>(""));
  CHECK_FALSE(texts[5]);  // a directory is not a file
  CHECK_FALSE(fs::exists(base / "pwned"));
  CHECK_FALSE(fs::exists("pwned"));
  // max_bytes cuts each file.
  auto cut = shell.read_files({(base / "bin").string()}, 10);
  CHECK(cut[0] == std::optional<std::string>(binary.substr(0, 10)));
  CHECK(shell.read_files({}).empty());
}

}  // namespace

TEST_CASE("read_files over SSH: one command for many files", "[ssh][markers]") {
  SshShell sh(sshd().options());
  check_read_files(sh, test_root() / "read-files-ssh");

  // 1,000 markers (over 100 KB of paths): a command per 64 KB of paths, not 1,000 round trips.
  const fs::path many = test_root() / "read-files-many";
  std::vector<std::string> paths;
  for (int i = 0; i < 1000; ++i) {
    std::string dir(80, 'r');
    dir += std::to_string(i);
    if (i % 3 == 0) write_file(many / dir / ".exit", std::to_string(i % 256) + "\n");
    paths.push_back((many / dir / ".exit").string());
  }
  size_t bytes = 0;
  for (auto& p : paths) bytes += p.size() + 3;
  const long before = sh.stats().commands;
  auto texts = sh.read_files(paths, 64);
  CHECK(sh.stats().commands - before >= 2);
  CHECK(sh.stats().commands - before <= static_cast<long>(bytes / (64 * 1024) + 1));
  REQUIRE(texts.size() == 1000);
  for (int i = 0; i < 1000; ++i) {
    INFO(i);
    if (i % 3 == 0)
      CHECK(texts[static_cast<size_t>(i)] == std::optional<std::string>(std::to_string(i % 256) + "\n"));
    else
      CHECK_FALSE(texts[static_cast<size_t>(i)]);
  }
}

TEST_CASE("read_files over LocalShell answers the same", "[ssh][markers]") {
  LocalShell local;
  check_read_files(local, test_root() / "read-files-local");
}

TEST_CASE("read_files through a dead link is a TransportError", "[ssh][markers][reconnect]") {
  Sshd own(test_root() / "read-files-dead");
  auto options = own.options();
  options.reconnect_attempts = 1;
  SshShell sh(options);
  sh.connect();
  own.stop();
  CHECK_THROWS_AS(sh.read_files({"/etc/hostname"}), campaign::transport::TransportError);
}

TEST_CASE("sync_down can list only some run directories", "[ssh][sync]") {
  SshShell sh(sshd().options());
  const fs::path remote = test_root() / "under" / "remote root";
  const fs::path mirror = test_root() / "under" / "mirror";
  write_file(remote / "case a" / "history.csv", "a\n");
  write_file(remote / "case a" / "slurm-7.out", "out\n");
  write_file(remote / "-case-b" / "history.csv", "b\n");
  write_file(remote / "case [c]" / "history.csv", "c\n");
  write_file(remote / "case [c]" / "big.h5", "huge\n");
  write_file(remote / ".local" / "jobs" / "1.json", "{}\n");
  write_file(remote / "inputs" / "history.csv", "not a run\n");
  using campaign::ssh::fnmatch_escape;
  const std::vector<std::string> include = {
      fnmatch_escape("case a") + "/history.csv", fnmatch_escape("case a") + "/slurm-7.out",
      fnmatch_escape("-case-b") + "/*.csv", fnmatch_escape("case [c]") + "/*"};
  auto r = campaign::ssh::sync_down(sh, remote.string(), mirror, include, {"*.h5"},
                                    {"case a", "-case-b", "case [c]", "no such case"});
  CHECK(r.transferred == std::vector<std::string>{"-case-b/history.csv", "case [c]/history.csv",
                                                  "case a/history.csv", "case a/slurm-7.out"});
  CHECK_FALSE(fs::exists(mirror / ".local"));
  CHECK_FALSE(fs::exists(mirror / "inputs"));
  CHECK_FALSE(fs::exists(mirror / "case [c]" / "big.h5"));
  CHECK(fnmatch_escape("a*b?[c]\\") == "a\\*b\\?\\[c\\]\\\\");
}

TEST_CASE("sync_up_file sends one file only when it changed", "[ssh][sync]") {
  SshShell sh(sshd().options());
  const fs::path local = test_root() / "one-file" / "it's a $(file).txt";
  const fs::path remote = test_root() / "one-file" / "remote" / "sub" / "renamed $(x).txt";
  write_file(local, "first\n");
  auto first = campaign::ssh::sync_up_file(sh, local, remote.string());
  CHECK(first.transferred == std::vector<std::string>{"renamed $(x).txt"});
  CHECK(slurp(remote) == "first\n");
  CHECK(campaign::ssh::sync_up_file(sh, local, remote.string()).transferred.empty());
  write_file(local, "secon\n");
  CHECK(campaign::ssh::sync_up_file(sh, local, remote.string()).transferred.size() == 1);
  CHECK(slurp(remote) == "secon\n");
  CHECK_THROWS_AS(campaign::ssh::sync_up_file(sh, local.parent_path(), remote.string()),
                  campaign::transport::TransportError);
}

TEST_CASE("sync_down brings small files in one command, large ones by SFTP", "[ssh][sync]") {
  SshShell sh(sshd().options());
  const fs::path remote = test_root() / "small-files" / "remote";
  const fs::path mirror = test_root() / "small-files" / "mirror";
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  for (int i = 0; i < 50; ++i) {
    // Built piecewise: GCC 12 warns, wrongly, on "literal" + std::string here.
    std::string dir = "case", name = "f", text = binary;
    dir += std::to_string(i % 5);
    name += std::to_string(i);
    text += std::to_string(i);
    write_file(remote / dir / name, text);
  }
  write_file(remote / "case0" / "empty", "");
  const std::string large(3 << 20, 'L');
  write_file(remote / "case1" / "large.out", large);

  const long before = sh.stats().commands;
  auto r = campaign::ssh::sync_down(sh, remote.string(), mirror);
  CHECK(r.transferred.size() == 52);
  CHECK(sh.stats().commands - before == 2);  // the listing and one read_files; large.out by SFTP
  CHECK(slurp(mirror / "case3" / "f13") == binary + "13");
  CHECK(slurp(mirror / "case0" / "empty").empty());
  CHECK(slurp(mirror / "case1" / "large.out") == large);
  // The mirror keeps the remote times, so nothing is fetched again.
  CHECK(campaign::ssh::sync_down(sh, remote.string(), mirror).transferred.empty());
  CHECK(fs::last_write_time(mirror / "case3" / "f13") == fs::last_write_time(remote / "case3" / "f13"));
}
