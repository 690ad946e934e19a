// Helpers shared by the catalog tests: a fresh directory under the system
// temp dir for one test, removed with everything in it when the test ends;
// and numbered names.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace campaign::test {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("campaign-catalog-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// prefix + n. Spelled out because "k" + std::to_string(n) trips GCC 12's
// bogus -Wrestrict (GCC PR 105651) under -Werror.
inline std::string numbered(std::string prefix, long n) {
  prefix += std::to_string(n);
  return prefix;
}

}  // namespace campaign::test
