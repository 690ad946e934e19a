// Test helpers for the collect module: a scratch run directory, collectors
// from inline YAML, and lookups in a CollectResult.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "collect/collect.hpp"

namespace collect_test {

namespace fs = std::filesystem;
using campaign::collect::Collector;
using campaign::collect::CollectResult;

inline fs::path data(const std::string& rel) { return fs::path(TEST_DATA_DIR) / "collect" / rel; }
inline fs::path repo_root() { return fs::path(TEST_DATA_DIR).parent_path().parent_path(); }

// A fresh directory under the system's temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "collect-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

inline void write_file(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

inline std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline Collector collector(const std::string& yaml) {
  return campaign::collect::parse_collector(YAML::Load(yaml), "test.yaml");
}

inline std::optional<double> value(const CollectResult& r, const std::string& name,
                                   std::optional<double> step = std::nullopt) {
  for (const auto& m : r.metrics)
    if (m.name == name && m.step == step) return m.value;
  return std::nullopt;
}

inline size_t count(const CollectResult& r, const std::string& name) {
  size_t n = 0;
  for (const auto& m : r.metrics) n += m.name == name;
  return n;
}

inline bool has_warning(const CollectResult& r, const std::string& needle) {
  for (const auto& w : r.warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

inline std::string all_warnings(const CollectResult& r) {
  std::string s;
  for (const auto& w : r.warnings) s += w + "\n";
  return s;
}

}  // namespace collect_test
