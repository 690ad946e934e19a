#include "util/atomic_file.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../temp_dir.hpp"
#include "util/error.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}
size_t entries(const fs::path& dir) {
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
  return n;
}
}  // namespace

TEST_CASE("write_file_atomic replaces a file and leaves no temporary behind") {
  campaign_test::TempDir dir("atomic");
  const fs::path p = dir.path / "a.txt";
  write_file_atomic(p, "old");
  write_file_atomic(p, std::string("new\0text", 8), fs::perms::owner_read | fs::perms::owner_write);
  CHECK(slurp(p) == std::string("new\0text", 8));
  CHECK((fs::status(p).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("write_file_atomic keeps the old content when the write fails") {
  campaign_test::TempDir dir("atomic");
  const fs::path p = dir.path / "a.txt";
  write_file_atomic(p, "old");
  CHECK_THROWS_AS(write_file_atomic(p,
                                    [](std::ostream& out) {
                                      out << "half";
                                      throw std::runtime_error("source gone");
                                    }),
                  std::runtime_error);
  CHECK(slurp(p) == "old");
  CHECK(entries(dir.path) == 1);
  CHECK_THROWS_AS(write_file_atomic(dir.path / "no" / "such" / "dir", "x"), Error);
  fs::create_directory(dir.path / "d");
  CHECK_THROWS_AS(write_file_atomic(dir.path / "d", "x"), Error);  // rename cannot replace a directory
  CHECK(fs::is_directory(dir.path / "d"));
  CHECK(entries(dir.path) == 2);
}

TEST_CASE("a write the storage refuses is a StorageError saying what to do; other failures are not") {
  for (int err : {ENOSPC, EDQUOT, EROFS, EIO}) {
    CHECK(is_storage_errno(err));
    try {
      throw_write_error("/w/runs/a/job.sh", err);
    } catch (const StorageError& e) {
      CHECK(e.error_number() == err);
      CHECK(e.path() == "/w/runs/a/job.sh");
      CHECK_THAT(e.what(),
                 Catch::StartsWith("cannot write /w/runs/a/job.sh: " + std::string(std::strerror(err))));
      CHECK_THAT(e.what(), Catch::EndsWith("then `campaign run` again continues where it stopped"));
    }
  }
  CHECK_THAT(StorageError("/w/x", ENOSPC).what(), Catch::Contains("free space"));
  CHECK_THAT(StorageError("/w/x", EROFS).what(), Catch::Contains("make that file system writable"));
  for (int err : {ENOENT, EACCES, EISDIR}) {
    CHECK_FALSE(is_storage_errno(err));
    try {
      throw_write_error("/w/x", err);
    } catch (const StorageError&) {
      FAIL("errno " << err << " is not the storage's refusal");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::StartsWith("cannot write /w/x: "));
    }
  }
}
