#include "spec/library.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "util/env.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::spec {

namespace {
fs::path exe_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p.parent_path();
}
}  // namespace

std::vector<fs::path> data_roots(const fs::path& near, const std::string& folder) {
  std::vector<fs::path> roots;
  if (auto env = getenv_lookup("CAMPAIGN_PATH"))
    for (auto& p : split(*env, ':'))
      if (!p.empty()) roots.emplace_back(p);
  std::error_code ec;
  for (fs::path d = fs::absolute(near, ec); !d.empty(); d = d.parent_path()) {
    if (fs::is_directory(d / folder, ec)) {
      roots.push_back(d);
      break;
    }
    if (d == d.root_path()) break;
  }
  if (fs::path e = exe_dir(); !e.empty()) roots.push_back(e.parent_path() / "share" / "campaign");
  roots.emplace_back(CAMPAIGN_SOURCE_DIR);
  // Keep the first occurrence of each root.
  std::vector<fs::path> unique;
  for (auto& r : roots) {
    fs::path n = fs::weakly_canonical(r, ec);
    if (ec) n = r;
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  }
  return unique;
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
  for (auto& root : data_roots(near, folder)) {
    fs::path p = root / folder / (name + ext);
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

std::vector<std::string> available(const fs::path& near, const std::string& folder, const std::string& ext) {
  std::set<std::string> names;
  std::error_code ec;
  for (auto& root : data_roots(near, folder)) {
    for (fs::directory_iterator it(root / folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::string f = it->path().filename().string();
      if (ends_with(f, ext)) names.insert(f.substr(0, f.size() - ext.size()));
    }
  }
  return {names.begin(), names.end()};
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

ResolvedSystem resolve_system(const std::string& requested, const Campaign& campaign) {
  auto load_named = [&](const std::string& name, const Location& where, const std::string& key) {
    auto path = find_data_file(campaign.dir, "systems", name, ".yaml");
    if (!path) {
      std::string hint = did_you_mean(name, available(campaign.dir, "systems", ".yaml"));
      throw InputError(where, key,
                       "unknown system '" + name + "'" + (hint.empty() ? " (see systems/)" : hint));
    }
    return load_system_file(*path);
  };
  std::string name = requested;
  if (!name.empty() && name != "auto") return {load_named(name, Location{"--system"}, ""), "--system"};
  if (name.empty() && campaign.system && *campaign.system != "auto")
    return {load_named(*campaign.system, campaign.system.where, "system"), "campaign"};
  auto [short_host, fqdn] = host_names();
  for (auto& candidate : available(campaign.dir, "systems", ".yaml")) {
    auto path = find_data_file(campaign.dir, "systems", candidate, ".yaml");
    System s = load_system_file(*path);
    if (matches_host(s, short_host, fqdn)) return {s, "auto: host " + fqdn};
  }
  return {load_named("local", Location{"auto"}, ""), "auto: no profile matches host " + fqdn};
}

}  // namespace campaign::spec
