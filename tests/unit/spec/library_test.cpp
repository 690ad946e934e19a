// Where data files are found: the campaign's folder, the user's, the site's (CAMPAIGN_PATH), the
// shipped ones (here: the source tree, as the test binary lives in a build tree).
#include "spec/library.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "../temp_dir.hpp"

using namespace campaign::spec;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one scope, restoring it after.
class EnvVar {
 public:
  EnvVar(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~EnvVar() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

fs::path fresh_dir(const std::string& name) {
  static const campaign_test::TempDir root("library-test");  // removed, with all in it, at exit
  fs::path d = root.path / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return fs::canonical(d);
}

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "name: x\n";
}

std::vector<RootKind> kinds(const std::vector<DataRoot>& roots) {
  std::vector<RootKind> out;
  for (auto& r : roots) out.push_back(r.kind);
  return out;
}

}  // namespace

TEST_CASE("search order: campaign folder, user, CAMPAIGN_PATH in order, then the shipped data") {
  fs::path base = fresh_dir("order");
  touch(base / "campaign" / "systems" / "a.yaml");
  fs::create_directories(base / "campaign" / "deep" / "er");
  EnvVar xdg("XDG_CONFIG_HOME", (base / "xdg").string());
  EnvVar site("CAMPAIGN_PATH", (base / "site1").string() + "::" + (base / "site2").string());
  auto roots = search_roots(base / "campaign" / "deep" / "er", "systems");
  REQUIRE(roots.size() == 5);
  CHECK(kinds(roots) ==
        std::vector{RootKind::campaign, RootKind::user, RootKind::site, RootKind::site, RootKind::source});
  CHECK(roots[0].path == base / "campaign");  // the nearest parent holding systems/
  CHECK(roots[1].path == base / "xdg" / "campaign");
  CHECK(roots[2].path == base / "site1");
  CHECK(roots[3].path == base / "site2");
  CHECK(roots[4].path == fs::canonical(CAMPAIGN_SOURCE_DIR));

  // No campaign: no campaign folder. Without XDG_CONFIG_HOME (or with a relative one): ~/.config.
  EnvVar no_xdg("XDG_CONFIG_HOME", "relative/dir");
  EnvVar home("HOME", (base / "home").string());
  EnvVar no_site("CAMPAIGN_PATH", std::nullopt);
  CHECK(kinds(search_roots("", "systems")) == std::vector{RootKind::user, RootKind::source});
  CHECK(search_roots("", "systems")[0].path == base / "home" / ".config" / "campaign");
}

TEST_CASE("a shipped campaign keeps the shipped place: user and site profiles override it") {
  fs::path base = fresh_dir("shipped");
  EnvVar xdg("XDG_CONFIG_HOME", (base / "xdg").string());
  EnvVar site("CAMPAIGN_PATH", std::nullopt);
  touch(base / "xdg" / "campaign" / "systems" / "local.yaml");
  const fs::path shipped_campaigns = fs::path(CAMPAIGN_SOURCE_DIR) / "campaigns";
  CHECK(kinds(search_roots(shipped_campaigns, "systems")) == std::vector{RootKind::user, RootKind::source});
  CHECK(*find_data_file(shipped_campaigns, "systems", "local", ".yaml") ==
        base / "xdg" / "campaign" / "systems" / "local.yaml");
  CHECK(*find_data_file(shipped_campaigns, "systems", "daint", ".yaml") ==
        fs::canonical(CAMPAIGN_SOURCE_DIR) / "systems" / "daint.yaml");
}

TEST_CASE("data_files: the first file of each name wins and names those it hides") {
  fs::path base = fresh_dir("files");
  EnvVar xdg("XDG_CONFIG_HOME", (base / "xdg").string());
  EnvVar site("CAMPAIGN_PATH", (base / "site").string());
  touch(base / "xdg" / "campaign" / "collectors" / "mine.yaml");
  touch(base / "site" / "collectors" / "mine.yaml");
  touch(base / "site" / "collectors" / "cosmoflow.yaml");
  touch(base / "site" / "collectors" / "notes.txt");
  auto files = data_files("", "collectors", ".yaml");
  auto find = [&](const std::string& name) -> const DataFile* {
    for (auto& f : files)
      if (f.name == name) return &f;
    return nullptr;
  };
  REQUIRE(find("mine"));
  CHECK(find("mine")->kind == RootKind::user);
  CHECK(find("mine")->hidden == std::vector{base / "site" / "collectors" / "mine.yaml"});
  REQUIRE(find("cosmoflow"));
  CHECK(find("cosmoflow")->kind == RootKind::site);
  CHECK(find("cosmoflow")->hidden ==
        std::vector{fs::canonical(CAMPAIGN_SOURCE_DIR) / "collectors" / "cosmoflow.yaml"});
  CHECK_FALSE(find("notes"));
  CHECK(available("", "collectors", ".yaml").size() == files.size());
}

TEST_CASE("auto: the site's profile matching this host, else local") {
  fs::path base = fresh_dir("auto");
  EnvVar xdg("XDG_CONFIG_HOME", (base / "xdg").string());
  EnvVar site("CAMPAIGN_PATH", (base / "site").string());
  fs::create_directories(base / "site" / "systems");
  fs::copy_file(fs::path(CAMPAIGN_SOURCE_DIR) / "systems" / "local.yaml",
                base / "site" / "systems" / "mysite.yaml");
  std::ofstream(base / "site" / "systems" / "mysite.yaml", std::ios::app)
      << "hostnames: [\"mysite-login[0-9]+\"]\n";
  {
    EnvVar host("CAMPAIGN_HOSTNAME", "mysite-login2.example.org");
    auto chosen = auto_system("");
    CHECK(chosen.system.name == "local");  // the copied profile keeps its name: the file's stem is not it
    CHECK(chosen.how == "auto: host mysite-login2.example.org");
  }
  EnvVar host("CAMPAIGN_HOSTNAME", "elsewhere");
  CHECK(auto_system("").how == "auto: no profile matches host elsewhere");
}
