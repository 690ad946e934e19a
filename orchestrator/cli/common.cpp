#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "history/verdicts.hpp"
#include "report/input.hpp"
#include "util/env.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

void add_campaign_options(CLI::App& cmd, CampaignOptions& o) {
  cmd.add_option("FILE", o.file, "Campaign file (campaigns/*.yaml)")->required();
  cmd.add_option("-s,--system", o.system,
                 "System profile: a name from systems/ or a path; default: the campaign's `system`, else the "
                 "profile whose hostnames match this host, else local. A campaign across several systems "
                 "(`system: [a, b]`): one of them, the others left as they are (default: all)");
  cmd.add_option("-w,--workdir", o.workdir,
                 "Work directory (default: the campaign's `workdir`, else runs/NAME)");
}

void add_select_options(CLI::App& cmd, SelectOptions& o, const std::string& what) {
  cmd.add_option("--case", o.cases, "Only the cases whose name matches GLOB (* ? [...]; repeatable) " + what)
      ->type_name("GLOB");
  cmd.add_option(
         "--only", o.only,
         "Only the cases whose matrix parameter KEY is VALUE (VALUE,VALUE...: any of them; repeatable, "
         "different keys must all hold) " +
             what)
      ->type_name("KEY=VALUE");
}

namespace {
// A selection's mistakes (std::invalid_argument from matrix/select) as the command's bad input (exit 2).
template <class F>
auto as_input_error(const std::string& command, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw InputError({command}, "", e.what());
  }
}
}  // namespace

matrix::Selection selection_of(const SelectOptions& o, const std::string& command) {
  return as_input_error(command, [&] { return matrix::parse_selection(o.cases, o.only); });
}

void check_selection(const matrix::Selection& s, const std::string& command,
                     const std::vector<std::pair<std::string, nlohmann::json>>& cases) {
  as_input_error(command, [&] { matrix::check_selection(s, cases); });
}

void check_selection(const matrix::Selection& s, const std::string& command, const matrix::Plan& plan) {
  as_input_error(command, [&] { matrix::check_selection(s, plan); });
}

std::set<std::int64_t> chosen_cases(Catalog& catalog, const matrix::Selection& s, bool all,
                                    const std::string& command) {
  std::vector<std::pair<std::string, nlohmann::json>> cases;
  std::set<std::int64_t> chosen;
  if (s.empty()) {  // every case: no parameters to read
    for (auto& c : catalog.campaigns())
      for (auto [id, in_spec] : catalog.case_ids_of(c.id))
        if (in_spec || all) chosen.insert(id);
    return chosen;
  }
  for (auto& c : catalog.campaigns())
    for (auto& k : catalog.cases_of(c.id)) {
      if (!k.in_spec && !all) continue;
      cases.emplace_back(k.name, k.params);
      if (s.empty() || s.matches(k.name, k.params)) chosen.insert(k.id);
    }
  if (!s.empty()) check_selection(s, command, cases);
  return chosen;
}

std::map<std::string, std::string> parse_tags(const std::vector<std::string>& tags,
                                              const std::string& command) {
  std::map<std::string, std::string> out;
  for (const std::string& t : tags) {
    const auto eq = t.find('=');
    const std::string key = t.substr(0, eq), value = eq == std::string::npos ? "" : t.substr(eq + 1);
    const bool key_ok = !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
    });
    if (!key_ok)
      throw InputError(
          {command}, "--tag",
          "'" + t + "': a tag is KEY=VALUE or a WORD, KEY and WORD of letters, digits and _ . : -");
    if (eq != std::string::npos && value.empty())
      throw InputError({command}, "--tag",
                       "'" + t + "': no value after '=' (a word alone: --tag " + key + ")");
    if (value.find_first_of("\n\r") != std::string::npos)
      throw InputError({command}, "--tag", "'" + key + "': a value is one line");
    out[key] = value;
  }
  return out;
}

bool has_tags(const std::map<std::string, std::string>& tags,
              const std::map<std::string, std::string>& wanted) {
  for (auto& [k, v] : wanted) {
    auto it = tags.find(k);
    if (it == tags.end() || (!v.empty() && it->second != v)) return false;
  }
  return true;
}

fs::path reading_workdir(const std::string& target, const std::string& system, const std::string& workdir) {
  const std::string t = target.empty() ? "." : target;
  if (fs::is_directory(t)) return fs::absolute(t);
  return load_all(CampaignOptions{t, system, workdir, matrix::Fit::skip}).front().catalog_dir;
}

void require_catalog(const fs::path& workdir) {
  if (!fs::exists(Catalog::db_path(workdir)))
    throw Error("no catalog in " + workdir.string() + ": nothing has run there yet (campaign run FILE)");
}

namespace {

// Where a relative work directory lies: beside the campaign file, unless the file is one of the
// installed campaigns (a module's prefix is shared, and often read-only) or its folder cannot be
// written: then in the current directory (issue 33: runs had gone into the install).
fs::path workdir_base(const spec::Campaign& c) {
  for (auto& r : spec::search_roots({}, "campaigns"))
    if (r.kind == spec::RootKind::installed) {
      auto rel = fs::path(c.dir).lexically_normal().lexically_relative(r.path);
      if (!rel.empty() && *rel.begin() != "..") return fs::current_path();
    }
  if (::access(c.dir.c_str(), W_OK) != 0) return fs::current_path();
  return c.dir;
}

}  // namespace

fs::path resolve_workdir(const spec::Campaign& c, const spec::System& s, const std::string& option) {
  fs::path p;
  if (!option.empty()) {
    p = expand_env(option);
    return fs::absolute(p).lexically_normal();
  }
  if (c.workdir)
    p = expand_env(*c.workdir);
  else if (!s.workdir.empty() && !s.ssh)
    p = fs::path(expand_env(s.workdir)) / c.name;
  else
    p = fs::path("runs") / c.name;
  if (p.is_relative()) p = workdir_base(c) / p;
  return p.lexically_normal();
}

std::string self_exe() {
  fs::path p = own_executable();
  return p.empty() ? std::string("campaign") : p.string();
}

namespace {

// One system's part of the campaign. A part of a campaign across several systems is named NAME@SYSTEM
// in the catalog (history and the site keep the systems apart) and runs in WORKDIR/SYSTEM; the
// catalog is WORKDIR's, shared by the parts.
Loaded load_system(const spec::Campaign& base, const spec::ResolvedSystem& resolved, const CampaignOptions& o,
                   const std::string& workdir_option, const ScriptRoot& script_root, bool part,
                   const std::vector<std::string>& systems = {}) {
  Loaded l{spec::for_system(base, resolved.system.name), resolved.how, {}, {}, {}, {}, part};
  const std::string& chosen = workdir_option.empty() ? o.workdir : workdir_option;
  if (part) {
    l.campaign.part = resolved.system.name;
    l.catalog_dir = resolve_workdir(base, spec::System{}, chosen);
    l.workdir = l.catalog_dir / resolved.system.name;
  } else {
    l.workdir = resolve_workdir(l.campaign, resolved.system, chosen);
    l.catalog_dir = l.workdir;
  }
  std::string root = script_root ? script_root(l.campaign, resolved.system, l.workdir) : "";
  l.plan = matrix::expand(l.campaign, resolved.system, root.empty() ? l.workdir.string() : root, o.fit);
  for (auto& in : l.campaign.inputs) (void)spec::input_source(l.campaign, in);
  l.collectors = collect::load_collectors(l.campaign);
  std::map<std::string, std::vector<std::string>> across;
  if (part) across["system"] = systems;
  report::check_analyses(l.plan, l.collectors, across);
  // The metrics `campaign site` tracks are in history's syntax: checked now, not at the first nightly site.
  for (size_t i = 0; i < l.campaign.track.size(); ++i) {
    try {
      (void)history::parse_metric(l.campaign.track[i].metric);
    } catch (const InputError& e) {
      throw InputError(l.campaign.track[i].where, "track[" + std::to_string(i) + "]", e.message());
    }
  }
  return l;
}

// The references' systems are profiles and their metrics history's METRICs.
void check_references(const spec::Campaign& base, const std::vector<std::string>& systems) {
  if (base.references.empty()) return;
  auto names = spec::available(base.dir, "systems", ".yaml");
  names.insert(names.end(), systems.begin(), systems.end());
  for (auto& r : base.references) {
    if (std::find(names.begin(), names.end(), r.system) == names.end())
      throw InputError(r.where, "reference." + r.system,
                       "unknown system '" + r.system + "'" + did_you_mean(r.system, names));
    try {
      (void)history::parse_metric(r.metric);
    } catch (const InputError& e) {
      throw InputError(r.where, "reference." + r.system + "." + r.metric, e.message());
    }
  }
}

}  // namespace

std::vector<Loaded> load_all(const CampaignOptions& o, const std::string& workdir_option,
                             const ScriptRoot& script_root) {
  spec::Campaign base = spec::load_campaign(o.file);
  // The systems of a campaign across several, resolved first: their profiles' names may be overridden.
  std::vector<spec::ResolvedSystem> listed;
  for (size_t i = 0; i < base.systems.size(); ++i) listed.push_back(spec::resolve_listed(base, i));
  if (!base.overrides.empty()) {
    // An override for a system that does not exist is most likely a typo.
    auto names = spec::available(base.dir, "systems", ".yaml");
    for (auto& r : listed) names.push_back(r.system.name);
    for (auto& [name, where] : base.overrides_where)
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw InputError(where, "systems." + name,
                         "unknown system '" + name + "'" + did_you_mean(name, names));
  }
  std::vector<Loaded> out;
  if (base.systems.empty()) {
    auto resolved = spec::resolve_system(o.system, base);
    check_references(base, {resolved.system.name});
    out.push_back(load_system(base, resolved, o, workdir_option, script_root, false));
    return out;
  }
  std::vector<std::string> resolved_names;
  std::vector<spec::ResolvedSystem>& all = listed;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string& name = all[i].system.name;
    if (std::find(resolved_names.begin(), resolved_names.end(), name) != resolved_names.end())
      throw InputError(base.systems[i].where, "system[" + std::to_string(i) + "]",
                       "profile '" + name + "' is listed twice");
    resolved_names.push_back(name);
  }
  check_references(base, resolved_names);
  for (size_t i = 0; i < all.size(); ++i) {
    // --system picks one of the systems (by its entry or its profile's name); the others stay as they are.
    if (!o.system.empty() && o.system != *base.systems[i] && o.system != resolved_names[i]) continue;
    out.push_back(load_system(base, all[i], o, workdir_option, script_root, true, resolved_names));
  }
  if (out.empty())
    throw InputError(Location{"--system"}, "--system",
                     "'" + o.system + "' is not one of the campaign's systems (" +
                         join(resolved_names, ", ") + ")" + did_you_mean(o.system, resolved_names));
  return out;
}

void require_one_system(const std::vector<std::string>& systems, const std::string& file,
                        const std::string& what) {
  if (systems.size() > 1)
    throw InputError(Location{file}, "system",
                     "the campaign runs on several systems (" + join(systems, ", ") + ")" + what);
}

bool is_part_of(const CampaignRecord& c, const std::string& name) { return c.name == name + "@" + c.system; }

Loaded load(const CampaignOptions& o, const std::string& workdir_option, const ScriptRoot& script_root) {
  auto all = load_all(o, workdir_option, script_root);
  std::vector<std::string> names;
  for (auto& l : all) names.push_back(l.plan.system.name);
  require_one_system(names, o.file, ": this command takes one of them, --system NAME");
  return std::move(all.front());
}

}  // namespace campaign::cli
