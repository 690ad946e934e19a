// A fresh scratch directory for one test, removed with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace campaign_test {

struct TempDir {
  std::filesystem::path path;

  // A new directory named `campaign-<tag>-XXXXXX` under the system's temporary directory.
  explicit TempDir(const std::string& tag = "test") {
    std::string templ = (std::filesystem::temp_directory_path() / ("campaign-" + tag + "-XXXXXX")).string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
    path = templ;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace campaign_test
