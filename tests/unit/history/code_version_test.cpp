// The code version recorded with a run: git commit, commit date and dirty
// flag of a real work tree (made here with a fixed date), and how they read.
#include "history/code_version.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "report/input.hpp"
#include "transport/local_shell.hpp"

using namespace campaign;
using namespace campaign::history;
using campaign::report::describe_code;
namespace fs = std::filesystem;

namespace {

struct GitRepo {
  fs::path dir = fs::temp_directory_path() / ("campaign-git-test-" + std::to_string(::getpid()));
  transport::LocalShell shell;

  GitRepo() {
    fs::remove_all(dir);
    fs::create_directories(dir / "src");
    std::ofstream(dir / "src" / "train.py") << "print('v1')\n";
    git({"init", "-q"});
    git({"add", "."});
    commit("v1", "2021-03-04T05:06:07Z");
  }
  ~GitRepo() { fs::remove_all(dir); }
  transport::CommandResult git(std::vector<std::string> args, const std::string& date = "") {
    std::vector<std::string> argv = {"env"};
    if (!date.empty()) argv.insert(argv.end(), {"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date});
    argv.insert(argv.end(),
                {"git", "-C", dir.string(), "-c", "user.name=t", "-c", "user.email=t@example.org"});
    argv.insert(argv.end(), args.begin(), args.end());
    return shell.run(argv);
  }
  void commit(const std::string& msg, const std::string& date) {
    REQUIRE(git({"commit", "-q", "-m", msg}, date).ok());
  }
};

bool have_git() {
  transport::LocalShell shell;
  try {
    return shell.run({"git", "--version"}).ok();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

// Tagged [.git]: run by ctest as unit_history_git, skipped there when git is missing.
TEST_CASE("git_version reads HEAD's commit, committer date and local changes", "[history][code][.git]") {
  if (!have_git()) FAIL("git is not installed (tools/setup.sh installs it)");
  GitRepo repo;
  auto v = git_version(repo.shell, repo.dir / "src");  // a folder inside the work tree
  REQUIRE(v);
  CHECK(v->commit.size() == 40);
  REQUIRE(v->date);
  CHECK(v->date->time_since_epoch().count() == 1614834367);  // 2021-03-04T05:06:07Z
  CHECK_FALSE(v->dirty);
  CHECK(v->display() == v->commit.substr(0, 10));

  std::ofstream(repo.dir / "src" / "train.py") << "print('v2')\n";
  auto dirty = git_version(repo.shell, repo.dir);
  REQUIRE(dirty);
  CHECK(dirty->dirty);
  CHECK(dirty->display() == v->commit.substr(0, 10) + "-dirty");

  repo.git({"add", "."});
  repo.commit("v2", "2022-01-01T00:00:00Z");
  auto head = git_version(repo.shell, repo.dir);
  auto first = git_version(repo.shell, repo.dir, "HEAD~1");
  REQUIRE(head);
  REQUIRE(first);
  CHECK(head->commit != v->commit);
  CHECK(first->commit == v->commit);
  CHECK_FALSE(git_version(repo.shell, repo.dir, "no-such-rev"));
  CHECK_FALSE(git_version(repo.shell, fs::temp_directory_path() / "campaign-no-such-dir"));
}

TEST_CASE("describe_code names the label, the commit, its date and local changes", "[history][code]") {
  CodeRecord row;
  CHECK(describe_code(row).empty());
  row.version = "v1.2";
  CHECK(describe_code(row) == "v1.2");
  row.commit = "0123456789abcdef0123456789abcdef01234567";
  row.date = Time(std::chrono::seconds(1614834367));
  CHECK(describe_code(row) == "v1.2, commit 0123456789 of 2021-03-04 05:06 UTC");
  row.version = "0123456789-dirty";  // no label: the version is the short commit
  row.dirty = true;
  CHECK(describe_code(row) == "commit 0123456789 of 2021-03-04 05:06 UTC (modified)");

  CodeVersion v;
  v.label = "nightly-42";
  v.commit = row.commit;
  CodeRecord applied = v.record();
  CHECK(applied.version == "nightly-42");
  CHECK(applied.commit == row.commit);
}
