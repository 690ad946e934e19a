// Implements spec/library.hpp.
#include "spec/library.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/env.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

// Where the shipped data lies relative to the installed binary's folder (GNUInstallDirs: bin/ and
// share/campaign/ by default), and the source tree a build-tree binary reads.
#ifndef CAMPAIGN_DATA_FROM_BIN
#define CAMPAIGN_DATA_FROM_BIN "../share/campaign"
#endif

namespace campaign::spec {

namespace {

fs::path normal(const fs::path& p) {
  std::error_code ec;
  fs::path n = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : n;
}

// The installed tree beside the binary when there is one, else the source tree. Found once: the
// binary does not move while it runs, and every template and profile lookup asks.
const DataRoot& shipped_root() {
  static const DataRoot root = [] {
    if (fs::path e = own_executable().parent_path(); !e.empty()) {
      std::error_code ec;
      fs::path installed = normal(e / CAMPAIGN_DATA_FROM_BIN);
      if (fs::is_directory(installed, ec)) return DataRoot{installed, RootKind::installed};
    }
    return DataRoot{normal(CAMPAIGN_SOURCE_DIR), RootKind::source};
  }();
  return root;
}

std::optional<fs::path> user_root() {
  // XDG: a relative $XDG_CONFIG_HOME is invalid and ignored.
  if (auto xdg = getenv_lookup("XDG_CONFIG_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/')
    return fs::path(*xdg) / "campaign";
  if (auto home = getenv_lookup("HOME"); home && !home->empty())
    return fs::path(*home) / ".config" / "campaign";
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RootKind k) {
  switch (k) {
    case RootKind::campaign:
      return "campaign";
    case RootKind::user:
      return "user";
    case RootKind::site:
      return "site (CAMPAIGN_PATH)";
    case RootKind::installed:
      return "installed";
    case RootKind::source:
      return "source tree";
  }
  return "";
}

namespace {
// The roots in the order they are searched; the user's and the site's not yet normalized, and
// possibly repeated.
std::vector<DataRoot> candidate_roots(const fs::path& near, const std::string& folder) {
  std::vector<DataRoot> roots;
  std::error_code ec;
  if (!near.empty())
    for (fs::path d = fs::absolute(near, ec); !d.empty(); d = d.parent_path()) {
      if (fs::is_directory(d / folder, ec)) {
        // A campaign folder that is the shipped tree is searched as that tree, last.
        if (fs::path n = normal(d); n != shipped_root().path) roots.push_back({n, RootKind::campaign});
        break;
      }
      if (d == d.root_path()) break;
    }
  if (auto user = user_root()) roots.push_back({*user, RootKind::user});
  if (auto env = getenv_lookup("CAMPAIGN_PATH"))
    for (auto& p : split(*env, ':'))
      if (!p.empty()) roots.push_back({fs::absolute(p, ec), RootKind::site});
  roots.push_back(shipped_root());
  return roots;
}
}  // namespace

std::vector<DataRoot> search_roots(const fs::path& near, const std::string& folder) {
  // Each root once, at its first place.
  std::vector<DataRoot> unique;
  for (auto& r : candidate_roots(near, folder)) {
    DataRoot n{r.kind == RootKind::user || r.kind == RootKind::site ? normal(r.path) : r.path, r.kind};
    if (std::none_of(unique.begin(), unique.end(), [&](const DataRoot& u) { return u.path == n.path; }))
      unique.push_back(n);
  }
  return unique;
}

std::vector<fs::path> data_roots(const fs::path& near, const std::string& folder) {
  std::vector<fs::path> out;
  for (auto& r : search_roots(near, folder)) out.push_back(r.path);
  return out;
}

std::optional<fs::path> find_data_file(const fs::path& near, const std::string& folder,
                                       const std::string& name, const std::string& ext) {
  std::error_code ec;
  if (name.find('/') != std::string::npos || ends_with(name, ext)) {
    fs::path p(name);
    if (p.is_relative() && !fs::exists(p, ec)) p = near / p;
    if (fs::is_regular_file(p, ec)) return p;
    return std::nullopt;
  }
  // The first root that has the file, normalized as search_roots would (only the one found: every
  // template and profile lookup comes here, and normalizing each root costs a readlink per component).
  for (auto& root : candidate_roots(near, folder))
    if (fs::is_regular_file(root.path / folder / (name + ext), ec)) {
      const fs::path r =
          root.kind == RootKind::user || root.kind == RootKind::site ? normal(root.path) : root.path;
      return r / folder / (name + ext);
    }
  return std::nullopt;
}

std::vector<DataFile> data_files(const fs::path& near, const std::string& folder, const std::string& ext) {
  std::map<std::string, DataFile> files;
  std::error_code ec;
  for (auto& root : search_roots(near, folder)) {
    std::vector<fs::path> here;
    for (fs::directory_iterator it(root.path / folder, ec), end; !ec && it != end; it.increment(ec))
      if (ends_with(it->path().filename().string(), ext) && fs::is_regular_file(it->path(), ec))
        here.push_back(it->path());
    std::sort(here.begin(), here.end());
    for (auto& p : here) {
      std::string f = p.filename().string();
      std::string name = f.substr(0, f.size() - ext.size());
      auto [it, fresh] = files.try_emplace(name, DataFile{name, p, root.kind, {}});
      if (!fresh) it->second.hidden.push_back(p);
    }
  }
  std::vector<DataFile> out;
  for (auto& [_, f] : files) out.push_back(std::move(f));
  return out;
}

std::vector<std::string> available(const fs::path& near, const std::string& folder, const std::string& ext) {
  std::vector<std::string> names;
  for (auto& f : data_files(near, folder, ext)) names.push_back(f.name);
  return names;
}

std::pair<std::string, std::string> host_names() {
  std::string full;
  if (auto env = getenv_lookup("CAMPAIGN_HOSTNAME")) {
    full = *env;
  } else {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) full = buf;
  }
  std::string short_name = full.substr(0, full.find('.'));
  return {short_name, full};
}

namespace {

System load_named(const fs::path& near, const std::string& name, const Location& where,
                  const std::string& key) {
  auto path = find_data_file(near, "systems", name, ".yaml");
  if (!path) {
    // A path (find_data_file takes one as it is): the file is missing, not the name unknown.
    if (name.find('/') != std::string::npos || ends_with(name, ".yaml"))
      throw InputError(where, key, "no such system file: " + name);
    std::string hint = did_you_mean(name, available(near, "systems", ".yaml"));
    throw InputError(where, key,
                     "unknown system '" + name + "'" + (hint.empty() ? " (see `campaign systems`)" : hint));
  }
  return load_system_file(*path);
}

}  // namespace

ResolvedSystem auto_system(const fs::path& near) {
  auto [short_host, fqdn] = host_names();
  for (auto& f : data_files(near, "systems", ".yaml")) {
    System s = load_system_file(f.path);
    if (matches_host(s, short_host, fqdn)) return {s, "auto: host " + fqdn};
  }
  return {load_named(near, "local", Location{"auto"}, ""), "auto: no profile matches host " + fqdn};
}

ResolvedSystem resolve_system(const std::string& requested, const Campaign& campaign) {
  const std::string& name = requested;
  if (!name.empty() && name != "auto")
    return {load_named(campaign.dir, name, Location{"--system"}, ""), "--system"};
  if (name.empty() && campaign.system && *campaign.system != "auto")
    return {load_named(campaign.dir, *campaign.system, campaign.system.where, "system"), "campaign"};
  return auto_system(campaign.dir);
}

ResolvedSystem resolve_listed(const Campaign& campaign, size_t i) {
  const auto& f = campaign.systems.at(i);
  return {load_named(campaign.dir, *f, f.where, "system[" + std::to_string(i) + "]"), "campaign"};
}

}  // namespace campaign::spec
