// `campaign list [DIR] [--depth N] [--json]`: the campaigns whose work directories lie under DIR (a
// folder with a catalog), each with its system, its cases by state, node-hours used and when it last
// changed: which of the runs under runs/ or $SCRATCH is which, without opening each. Reads catalogs
// as `status` does (no lock); a work directory's case folders are not searched further.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "report/input.hpp"
#include "util/columns.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

// Work directories under `root`, `depth` levels down at most, in path order; hidden folders skipped.
std::vector<fs::path> work_directories(const fs::path& root, int depth) {
  std::vector<fs::path> found;
  if (fs::exists(Catalog::db_path(root))) return {root};
  if (depth <= 0) return found;
  std::error_code ec;
  std::vector<fs::path> children;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.' && it->is_directory(ec)) children.push_back(it->path());
  }
  std::sort(children.begin(), children.end());
  for (auto& child : children) {
    auto more = work_directories(child, depth - 1);
    found.insert(found.end(), more.begin(), more.end());
  }
  return found;
}

}  // namespace

void add_list(CLI::App& app) {
  struct Options {
    std::string dir = ".";
    int depth = 4;
    bool json = false;
    std::vector<std::string> tags;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("list",
                         "List the campaigns under a folder: each work directory with its system, cases "
                         "by state, node-hours used, when it last changed and its tags (run --tag)");
  cmd->add_option("DIR", o->dir, "The folder to search (default: the current directory)");
  cmd->add_option("--depth", o->depth, "How many folder levels down to look")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_option("--tag", o->tags,
                  "Only the runs tagged so (run --tag): KEY=VALUE, or a WORD (that tag, whatever its value); "
                  "repeatable, all must hold")
      ->type_name("KEY=VALUE|WORD");
  cmd->callback([o] {
    const std::map<std::string, std::string> wanted = parse_tags(o->tags, "campaign list");
    const fs::path root = fs::absolute(o->dir).lexically_normal();
    if (!fs::is_directory(root)) throw InputError({"campaign list"}, "DIR", "no such folder " + o->dir);
    nlohmann::json out = nlohmann::json::array();
    std::vector<std::vector<std::string>> table{
        {"work directory", "campaign", "system", "cases", "states", "node-hours", "updated", "tags"}};
    for (auto& wd : work_directories(root, o->depth)) {
      std::string shown = wd.lexically_relative(root).string();
      if (shown.empty()) shown = ".";
      try {
        Catalog catalog = Catalog::open_for_reading(wd);
        for (auto& c : catalog.campaigns()) {
          if (!has_tags(c.tags, wanted)) continue;
          std::map<std::string, int> states;
          int cases = 0;
          for (auto& a : catalog.latest_attempts(c.id))
            if (a.in_spec) ++cases, ++states[std::string(to_string(a.state))];
          std::string summary;
          for (auto& [s, n] : states) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + s;
          const double nh = catalog.consumed_node_hours(c.id);
          if (o->json) {
            out.push_back({{"workdir", wd.string()},
                           {"campaign", c.name},
                           {"system", c.system},
                           {"cases", cases},
                           {"states", states},
                           {"node_hours", nh},
                           {"updated", report::format_utc(c.updated)},
                           {"code", c.code.version},
                           {"tags", c.tags}});
          } else {
            table.push_back({shown, c.name, c.system, std::to_string(cases), summary,
                             fmt::format("{:.2f}", nh), report::format_utc(c.updated),
                             report::describe_tags(c.tags)});
          }
        }
      } catch (const std::exception& e) {  // one damaged catalog does not hide the others
        if (o->json)
          out.push_back({{"workdir", wd.string()}, {"error", e.what()}});
        else
          table.push_back({shown, "(unreadable)", "", "", e.what(), "", "", ""});
      }
    }
    if (o->json) {
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (table.size() == 1) {
      std::cout << "no campaign under " << root.string()
                << (wanted.empty() ? "" : " tagged " + report::describe_tags(wanted)) << " (" << o->depth
                << " levels down; a work directory holds campaign.db)\n";
      return;
    }
    std::cout << format_columns(table);
  });
}

}  // namespace campaign::cli
