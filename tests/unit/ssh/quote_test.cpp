// The pieces that need no server: quoting for the remote shell (checked by letting a real sh parse
// the string back), jump host specs, and the sync path patterns.
#include <catch2/catch.hpp>
#include <random>

#include "ssh/remote_command.hpp"
#include "ssh/session.hpp"
#include "ssh/sync.hpp"
#include "transport/local_shell.hpp"

using campaign::ssh::ConnectError;
using campaign::ssh::Endpoint;
using campaign::ssh::path_matches;
using campaign::ssh::remote_command;
using campaign::transport::LocalShell;
using campaign::transport::TransportError;

namespace {

// What `sh -c STRING` passes to its program: the words as printf prints them, NUL-separated.
std::vector<std::string> words_seen_by_sh(const std::vector<std::string>& words) {
  std::vector<std::string> argv = {"printf", "%s\\0"};
  argv.insert(argv.end(), words.begin(), words.end());
  LocalShell local;
  auto r = local.run({"sh", "-c", remote_command(argv)});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  size_t pos = 0;
  for (size_t nul; (nul = r.out.find('\0', pos)) != std::string::npos; pos = nul + 1)
    out.push_back(r.out.substr(pos, nul - pos));
  return out;
}

}  // namespace

TEST_CASE("remote_command survives a real shell word for word", "[ssh][quote]") {
  std::vector<std::string> nasty = {
      "plain",          "with space",  "it's",        "'",  "''", "\"double\"", "$(touch /nonexistent/pwned)",
      "`id`",           "$HOME",       "${x:-y}",     "*",  "~",  "~root/x",    "a;b|c&d",
      "line\nbreak",    "tab\there",   "back\\slash", "-n", "--", "",           "!",
      "#not a comment", "\x01\x7f\xff"};
  CHECK(words_seen_by_sh(nasty) == nasty);
}

TEST_CASE("remote_command round-trips random bytes", "[ssh][quote]") {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> byte(1, 255), length(0, 12), count(1, 6);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::string> words;
    for (int w = count(rng); w > 0; --w) {
      std::string word;
      for (int i = length(rng); i > 0; --i) word += static_cast<char>(byte(rng));
      words.push_back(word);
    }
    INFO("round " << round);
    CHECK(words_seen_by_sh(words) == words);
  }
}

TEST_CASE("argv[0] stays a program name, never shell syntax", "[ssh][quote]") {
  LocalShell local;
  // Unquoted, `A=b true` would be an assignment and `if` a keyword.
  auto assignment = local.run({"sh", "-c", remote_command({"A=b", "true"})});
  CHECK(assignment.exit_code == 127);
  auto keyword = local.run({"sh", "-c", remote_command({"if"})});
  CHECK(keyword.exit_code == 127);
}

TEST_CASE("remote_command rejects what no program can receive", "[ssh][quote]") {
  CHECK_THROWS_AS(remote_command({}), TransportError);
  CHECK_THROWS_AS(remote_command({""}), TransportError);
  CHECK_THROWS_AS(remote_command({"echo", std::string("a\0b", 3)}), TransportError);
}

TEST_CASE("jump host specs parse like OpenSSH's ProxyJump", "[ssh]") {
  auto e = Endpoint::parse("login.example.org", "me");
  CHECK(e.user == "me");
  CHECK(e.host == "login.example.org");
  CHECK(e.port == 22);
  e = Endpoint::parse("alice@bastion:2222", "me");
  CHECK(e.user == "alice");
  CHECK(e.host == "bastion");
  CHECK(e.port == 2222);
  CHECK(e.str() == "alice@bastion:2222");
  e = Endpoint::parse("bob@[::1]:2200", "");
  CHECK(e.user == "bob");
  CHECK(e.host == "::1");
  CHECK(e.port == 2200);
  CHECK(e.str() == "bob@[::1]:2200");
  e = Endpoint::parse("fe80::1", "");
  CHECK(e.host == "fe80::1");
  CHECK(e.port == 22);
  CHECK_THROWS_AS(Endpoint::parse("a,b", ""), ConnectError);
  CHECK_THROWS_AS(Endpoint::parse("host:99999", ""), ConnectError);
  CHECK_THROWS_AS(Endpoint::parse("host:ssh", ""), ConnectError);
  CHECK_THROWS_AS(Endpoint::parse("user@", ""), ConnectError);
}

TEST_CASE("sync patterns: components without a slash, paths with one", "[ssh][sync]") {
  CHECK(path_matches("*.pyc", "pkg/mod/x.pyc"));
  CHECK_FALSE(path_matches("*.pyc", "pkg/mod/x.py"));
  CHECK(path_matches(".git", ".git/objects/ab"));
  CHECK(path_matches("build/", "build/out.o"));
  CHECK(path_matches("out", "runs/a/out/metrics.csv"));
  CHECK(path_matches("runs/*/out", "runs/a/out/metrics.csv"));
  CHECK(path_matches("runs/*.csv", "runs/a/b.csv"));  // `*` crosses '/' in a path pattern
  CHECK_FALSE(path_matches("runs/*/out", "other/a/out/metrics.csv"));
  CHECK(path_matches("/top.txt", "top.txt"));
  CHECK_FALSE(path_matches("", "anything"));
}
