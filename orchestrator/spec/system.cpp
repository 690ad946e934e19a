#include "spec/system.hpp"

#include <algorithm>
#include <optional>
#include <regex>

#include "resource/detect.hpp"
#include "resource/model.hpp"
#include "sched/launchers.hpp"
#include "spec/yaml_reader.hpp"
#include "util/env.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace campaign::spec {

namespace {

long walltime(const std::string& file, const YAML::Node& v, const std::string& key, WalltimeGrammar g) {
  std::string s = as_string(file, v, key);
  auto w = parse_walltime(s, g);
  if (!w || *w <= 0) fail(file, v, key, "not a walltime: '" + s + "' (" + walltime_forms(g) + ")");
  return *w;
}

std::vector<std::pair<std::string, std::string>> env_map(const std::string& file, const YAML::Node& v,
                                                         const std::string& key) {
  MapReader m(file, v, key);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [k, _] : m.entries()) out.emplace_back(k, as_string(file, m.get(k), m.path(k)));
  return out;
}

void check_regex(const std::string& file, const YAML::Node& v, const std::string& key,
                 const std::string& re) {
  try {
    std::regex r(re);
  } catch (const std::regex_error& e) {
    fail(file, v, key, "invalid regular expression '" + re + "': " + e.what());
  }
}

// This machine's GPUs, detected once per process (nvidia-smi takes a while).
long detected_gpus() {
  static const long n = static_cast<long>(resource::detect_gpus().ids.size());
  return n;
}

}  // namespace

System load_system_file(const std::filesystem::path& path) {
  Document doc = load_yaml(path);
  const std::string& file = doc.file;
  System s;
  s.file = file;
  MapReader r(file, doc.root, "");
  s.name = as_string(file, r.require("name"), "name");
  if (auto v = r.get("description"); v.IsDefined()) s.description = as_string(file, v, "description");
  if (auto v = r.get("hostnames"); v.IsDefined()) {
    s.hostnames = as_string_list(file, v, "hostnames");
    for (auto& h : s.hostnames) check_regex(file, v, "hostnames", h);
  }
  if (auto v = r.get("detect_env"); v.IsDefined()) {
    s.detect_env = env_map(file, v, "detect_env");
    for (auto& [_, re] : s.detect_env) check_regex(file, v, "detect_env", re);
  }
  s.scheduler = one_of(file, r.require("scheduler"), "scheduler", sched::profile_schedulers());
  if (auto v = r.get("walltime_format"); v.IsDefined())
    s.walltime_grammar = one_of(file, v, "walltime_format", {"slurm", "lsf"}) == "lsf"
                             ? WalltimeGrammar::lsf
                             : WalltimeGrammar::slurm;
  {
    YAML::Node v = r.require("launcher");
    if (v.IsScalar()) {
      s.launcher.kind = one_of(file, v, "launcher", sched::profile_launchers());
    } else {
      MapReader m(file, v, "launcher");
      s.launcher.kind = one_of(file, m.require("kind"), "launcher.kind", sched::profile_launchers());
      if (auto c = m.get("command"); c.IsDefined())
        s.launcher.command = as_string(file, c, "launcher.command");
      m.finish();
    }
    if (s.launcher.command.empty()) s.launcher.command = sched::default_launch(s.launcher.kind);
  }
  if (auto v = r.get("account"); v.IsDefined() && !v.IsNull())
    s.account = expand_env(as_string(file, v, "account"));
  if (auto v = r.get("account_required"); v.IsDefined())
    s.account_required = as_bool(file, v, "account_required");
  if (auto v = r.get("template"); v.IsDefined()) s.template_name = as_string(file, v, "template");
  if (auto v = r.get("workdir"); v.IsDefined()) s.workdir = as_string(file, v, "workdir");
  if (auto v = r.get("access"); v.IsDefined()) {
    if (v.IsScalar()) {
      if (v.Scalar() != "local") fail(file, v, "access", "access is `local` or a map with `ssh`");
    } else {
      MapReader m(file, v, "access");
      if (auto sv = m.get("ssh"); sv.IsDefined()) {
        MapReader sm(file, sv, "access.ssh");
        SshAccess ssh;
        ssh.host = as_string(file, sm.require("host"), "access.ssh.host");
        if (auto x = sm.get("user"); x.IsDefined())
          ssh.user = expand_env(as_string(file, x, "access.ssh.user"));
        if (auto x = sm.get("port"); x.IsDefined()) ssh.port = as_int(file, x, "access.ssh.port");
        if (auto x = sm.get("identity"); x.IsDefined())
          ssh.identity = expand_env(as_string(file, x, "access.ssh.identity"));
        if (auto x = sm.get("jump"); x.IsDefined()) ssh.jump = as_string(file, x, "access.ssh.jump");
        if (auto x = sm.get("known_hosts"); x.IsDefined())
          ssh.known_hosts = expand_env(as_string(file, x, "access.ssh.known_hosts"));
        if (auto x = sm.get("campaign"); x.IsDefined())
          ssh.campaign = as_string(file, x, "access.ssh.campaign");
        if (ssh.host.empty()) fail(file, sm.get("host"), "access.ssh.host", "empty host name");
        if (ssh.port < 1 || ssh.port > 65535)
          fail(file, sm.get("port"), "access.ssh.port", "a port is 1 to 65535");
        if (ssh.campaign.empty()) fail(file, sm.get("campaign"), "access.ssh.campaign", "empty path");
        sm.finish();
        s.ssh = ssh;
      }
      m.finish();
    }
  }
  if (auto v = r.get("limits"); v.IsDefined()) {
    MapReader m(file, v, "limits");
    auto posint = [&](const char* key, long& out) {
      if (auto x = m.get(key); x.IsDefined()) {
        out = as_int(file, x, m.path(key));
        if (out < 1) fail(file, x, m.path(key), "must be at least 1");
      }
    };
    posint("max_queued_jobs", s.limits.max_queued_jobs);
    posint("max_submits_per_minute", s.limits.max_submits_per_minute);
    if (auto x = m.get("max_walltime"); x.IsDefined())
      s.limits.max_walltime_s = walltime(file, x, "limits.max_walltime", s.walltime_grammar);
    if (auto x = m.get("poll_min"); x.IsDefined())
      s.limits.poll_min_s = as_number(file, x, "limits.poll_min");
    if (auto x = m.get("poll_max"); x.IsDefined())
      s.limits.poll_max_s = as_number(file, x, "limits.poll_max");
    auto seconds = [&](const char* key, double& out) {
      if (auto x = m.get(key); x.IsDefined()) {
        out = as_number(file, x, m.path(key));
        if (!(out > 0)) fail(file, x, m.path(key), "must be more than 0 (seconds)");
      }
    };
    seconds("lost_after", s.limits.lost_after_s);
    seconds("accounting_wait", s.limits.accounting_wait_s);
    if (s.limits.poll_min_s <= 0 || s.limits.poll_max_s < s.limits.poll_min_s)
      fail(file, v, "limits", "need 0 < poll_min <= poll_max (seconds)");
    m.finish();
  }
  if (auto v = r.get("modules"); v.IsDefined()) s.modules = as_string_list(file, v, "modules");
  if (auto v = r.get("env"); v.IsDefined()) s.env = env_map(file, v, "env");
  if (auto v = r.get("setup"); v.IsDefined()) s.setup = as_string_list(file, v, "setup");
  if (auto v = r.get("container"); v.IsDefined()) {
    MapReader m(file, v, "container");
    ContainerRuntime c;
    c.name = as_string(file, m.require("runtime"), "container.runtime");
    c.command = as_string(file, m.require("command"), "container.command");
    if (auto x = m.get("options"); x.IsDefined()) c.options = as_string_list(file, x, "container.options");
    m.finish();
    s.container = c;
  }
  {
    YAML::Node v = r.require("partitions");
    MapReader m(file, v, "partitions");
    if (m.entries().empty()) fail(file, v, "partitions", "a system needs at least one partition");
    for (auto& [k, knode] : m.entries()) {
      Partition p;
      p.name = k;
      p.where = location(file, knode);
      MapReader pm(file, m.get(k), m.path(k));
      if (auto x = pm.get("aliases"); x.IsDefined()) p.aliases = as_string_list(file, x, pm.path("aliases"));
      if (auto x = pm.get("description"); x.IsDefined())
        p.description = as_string(file, x, pm.path("description"));
      if (auto x = pm.get("options"); x.IsDefined()) p.options = as_string_list(file, x, pm.path("options"));
      // `auto`: what this machine offers (the local profile; resource/detect.hpp).
      auto is_auto = [](const YAML::Node& x) { return x.IsScalar() && x.Scalar() == "auto"; };
      if (YAML::Node cn = pm.require("cores_per_node"); is_auto(cn))
        p.cores_per_node = static_cast<long>(resource::usable_cpus().size());
      else
        p.cores_per_node = as_int(file, cn, pm.path("cores_per_node"));
      if (p.cores_per_node < 1)
        fail(file, pm.get("cores_per_node"), pm.path("cores_per_node"), "must be at least 1");
      if (auto x = pm.get("gpus_per_node"); x.IsDefined()) {
        p.gpus_per_node = is_auto(x) ? detected_gpus() : as_int(file, x, pm.path("gpus_per_node"));
        if (p.gpus_per_node < 0) fail(file, x, pm.path("gpus_per_node"), "must be at least 0");
      }
      if (auto x = pm.get("memory_per_node"); x.IsDefined()) {
        auto mb = is_auto(x) ? std::optional<long>(resource::memory_mb())
                             : resource::parse_memory_mb(as_string(file, x, pm.path("memory_per_node")));
        if (!mb) fail(file, x, pm.path("memory_per_node"), "not a size: use 256G, 512M, ... or auto");
        p.memory_mb = *mb;
      }
      if (auto x = pm.get("max_nodes"); x.IsDefined()) p.max_nodes = as_int(file, x, pm.path("max_nodes"));
      if (auto x = pm.get("max_walltime"); x.IsDefined())
        p.max_walltime_s = walltime(file, x, pm.path("max_walltime"), s.walltime_grammar);
      if (auto x = pm.get("queue"); x.IsDefined()) p.queue = as_string(file, x, pm.path("queue"));
      if (auto x = pm.get("modules"); x.IsDefined()) p.modules = as_string_list(file, x, pm.path("modules"));
      if (auto x = pm.get("env"); x.IsDefined()) p.env = env_map(file, x, pm.path("env"));
      if (auto x = pm.get("setup"); x.IsDefined()) p.setup = as_string_list(file, x, pm.path("setup"));
      pm.finish();
      s.partitions.push_back(std::move(p));
    }
  }
  if (auto v = r.get("default_partition"); v.IsDefined()) {
    s.default_partition = as_string(file, v, "default_partition");
    if (!find_partition(s, s.default_partition))
      fail(file, v, "default_partition",
           "no partition '" + s.default_partition + "'" +
               did_you_mean(s.default_partition, partition_names(s)));
  } else {
    s.default_partition = s.partitions.front().name;
  }
  r.finish();
  return s;
}

const Partition* find_partition(const System& system, const std::string& name) {
  for (auto& p : system.partitions)
    if (p.name == name) return &p;
  for (auto& p : system.partitions)
    for (auto& a : p.aliases)
      if (a == name) return &p;
  return nullptr;
}

std::vector<std::string> partition_names(const System& system) {
  std::vector<std::string> out;
  for (auto& p : system.partitions) {
    out.push_back(p.name);
    out.insert(out.end(), p.aliases.begin(), p.aliases.end());
  }
  return out;
}

bool matches_host(const System& system, const std::string& short_host, const std::string& fqdn) {
  if (system.hostnames.empty()) return false;
  bool host_ok = false;
  for (auto& pattern : system.hostnames) {
    std::regex re(pattern);
    if (std::regex_match(short_host, re) || std::regex_match(fqdn, re)) host_ok = true;
  }
  if (!host_ok) return false;
  for (auto& [var, pattern] : system.detect_env) {
    auto value = getenv_lookup(var);
    if (!value || !std::regex_match(*value, std::regex(pattern))) return false;
  }
  return true;
}

}  // namespace campaign::spec
