#include "pack/manifest.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace campaign::pack {

fs::path case_output(const PackedCase& c) { return c.run_dir / (c.job_name + ".out"); }

std::string to_json(const Allocation& a) {
  json cases = json::array();
  for (auto& c : a.cases)
    cases.push_back({{"key", c.key},
                     {"case", c.case_name},
                     {"job_name", c.job_name},
                     {"run_dir", c.run_dir.string()},
                     {"nodes", c.demand.nodes},
                     {"cores", c.demand.cores},
                     {"gpus", c.demand.gpus},
                     {"memory_mb", c.demand.memory_mb},
                     {"exclusive", c.demand.exclusive},
                     {"ranks", c.ranks},
                     {"walltime_s", c.walltime_s},
                     {"script", c.script.string()}});
  json j = {{"version", 2},
            {"job_name", a.job_name},
            {"partition", a.partition},
            {"nodes", a.nodes},
            {"node", {{"cores", a.node.cores}, {"gpus", a.node.gpus}, {"memory_mb", a.node.memory_mb}}},
            {"driver_binds_gpus", a.driver_binds_gpus},
            {"walltime_s", a.walltime_s},
            {"dir", a.dir.string()},
            {"grace_s", a.grace_s},
            {"cases", cases}};
  return j.dump(2) + "\n";
}

namespace {

// Reads the keys of one JSON object, each error naming the file and the key's path.
struct Reader {
  const json& j;
  std::string origin, path;

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(Location{origin}, path.empty() ? key : path + "." + key, msg);
  }
  const json& need(const std::string& key) const {
    auto it = j.find(key);
    if (it == j.end()) fail(key, "required key is missing");
    return *it;
  }
  std::string text(const std::string& key, bool allow_empty = false) const {
    const json& v = need(key);
    if (!v.is_string()) fail(key, "must be a string");
    auto s = v.get<std::string>();
    if (s.empty() && !allow_empty) fail(key, "must not be empty");
    return s;
  }
  fs::path absolute(const std::string& key) const {
    fs::path p = text(key);
    if (!p.is_absolute()) fail(key, "must be an absolute path, not '" + p.string() + "'");
    return p;
  }
  long positive(const std::string& key) const { return at_least(key, 1); }
  long at_least(const std::string& key, long least) const {
    const json& v = need(key);
    if (!v.is_number_integer() || v.get<long>() < least)
      fail(key, least == 1 ? std::string("must be a positive integer")
                           : fmt::format("must be an integer >= {}", least));
    return v.get<long>();
  }
  bool flag(const std::string& key) const {
    const json& v = need(key);
    if (!v.is_boolean()) fail(key, "must be true or false");
    return v.get<bool>();
  }
};

}  // namespace

Allocation from_json(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(Location{origin}, "", std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(Location{origin}, "", "a manifest is a JSON object");
  Reader r{j, origin, ""};
  // Version 1 (before cases shared nodes): each case held its nodes whole.
  const int version = j.value("version", 0);
  if (version != 1 && version != 2) r.fail("version", "unknown manifest version (this driver reads 1 and 2)");
  Allocation a;
  a.job_name = r.text("job_name");
  a.partition = r.text("partition", true);
  a.nodes = r.positive("nodes");
  if (version >= 2) {
    Reader n{r.need("node"), origin, "node"};
    if (!n.j.is_object()) r.fail("node", "must be an object");
    a.node = {n.positive("cores"), n.at_least("gpus", 0), n.at_least("memory_mb", 0)};
    a.driver_binds_gpus = r.flag("driver_binds_gpus");
  }
  a.walltime_s = r.positive("walltime_s");
  a.dir = r.absolute("dir");
  if (j.contains("grace_s")) {
    const json& g = j["grace_s"];
    if (!g.is_number() || g.get<double>() < 0) r.fail("grace_s", "must be a number of seconds >= 0");
    a.grace_s = g.get<double>();
  }
  const json& cases = r.need("cases");
  if (!cases.is_array() || cases.empty()) r.fail("cases", "must be a non-empty list");
  std::set<fs::path> run_dirs;
  for (size_t i = 0; i < cases.size(); ++i) {
    Reader c{cases[i], origin, "cases[" + std::to_string(i) + "]"};
    if (!cases[i].is_object()) r.fail(c.path, "must be an object");
    PackedCase pc;
    pc.key = c.text("key");
    pc.case_name = c.text("case");
    pc.job_name = c.text("job_name");
    pc.run_dir = c.absolute("run_dir");
    pc.demand.nodes = c.positive("nodes");
    if (version >= 2) {
      pc.demand.cores = c.positive("cores");
      pc.demand.gpus = c.at_least("gpus", 0);
      pc.demand.memory_mb = c.at_least("memory_mb", 0);
      pc.demand.exclusive = c.flag("exclusive");
    } else {
      pc.demand.exclusive = true;
    }
    pc.ranks = c.positive("ranks");
    pc.walltime_s = c.positive("walltime_s");
    pc.script = c.absolute("script");
    const resource::Fit fit = resource::fit(a.node, pc.demand, a.nodes);
    if (fit.of(resource::Resource::nodes))
      c.fail("nodes", std::to_string(pc.demand.nodes) + " nodes do not fit in the allocation's " +
                          std::to_string(a.nodes));
    if (!fit.fits()) c.fail("cores", "does not fit the allocation's nodes: " + fit.why());
    if (!run_dirs.insert(pc.run_dir.lexically_normal()).second)
      c.fail("run_dir", "another case of the manifest runs in " + pc.run_dir.string());
    a.cases.push_back(std::move(pc));
  }
  return a;
}

void write_manifest(const Allocation& a) {
  fs::create_directories(a.dir);
  write_file_atomic(manifest_path(a), to_json(a));
}

Allocation read_manifest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(Location{path.string()}, "", "cannot read the manifest");
  std::ostringstream ss;
  ss << in.rdbuf();
  return from_json(ss.str(), path.string());
}

}  // namespace campaign::pack
