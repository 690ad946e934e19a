#include "pack/manifest.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "render/batch.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace campaign::pack {

fs::path allocation_dir(const fs::path& workdir, const std::string& job_name) {
  return render::batch_dir(workdir, job_name);
}

fs::path case_output(const PackedCase& c) { return c.run_dir / (c.job_name + ".out"); }

std::string to_json(const Allocation& a) {
  json cases = json::array();
  for (auto& c : a.cases)
    cases.push_back({{"key", c.key},
                     {"case", c.case_name},
                     {"job_name", c.job_name},
                     {"run_dir", c.run_dir.string()},
                     {"nodes", c.nodes},
                     {"ranks", c.ranks},
                     {"walltime_s", c.walltime_s},
                     {"script", c.script.string()}});
  json j = {{"version", 1},
            {"job_name", a.job_name},
            {"partition", a.partition},
            {"nodes", a.nodes},
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
  long positive(const std::string& key) const {
    const json& v = need(key);
    if (!v.is_number_integer() || v.get<long>() < 1) fail(key, "must be a positive integer");
    return v.get<long>();
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
  if (j.value("version", 0) != 1) r.fail("version", "unknown manifest version (this driver reads 1)");
  Allocation a;
  a.job_name = r.text("job_name");
  a.partition = r.text("partition", true);
  a.nodes = r.positive("nodes");
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
    pc.nodes = c.positive("nodes");
    pc.ranks = c.positive("ranks");
    pc.walltime_s = c.positive("walltime_s");
    pc.script = c.absolute("script");
    if (pc.nodes > a.nodes)
      c.fail("nodes",
             std::to_string(pc.nodes) + " nodes do not fit in the allocation's " + std::to_string(a.nodes));
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
