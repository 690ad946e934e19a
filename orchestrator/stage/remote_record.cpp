#include "stage/remote_record.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

namespace campaign::stage {

std::optional<RemoteRecord> read_remote_record(const fs::path& local_workdir) {
  const fs::path path = local_workdir / kRemoteRecordFile;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  try {
    auto j = nlohmann::json::parse(text.str());
    RemoteRecord r;
    r.system = j.at("system").get<std::string>();
    r.host = j.at("host").get<std::string>();
    r.workdir = j.at("workdir").get<std::string>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": unreadable (" + e.what() +
                "); remove it to resolve the remote work "
                "directory from the system profile again");
  }
}

void write_remote_record(const fs::path& local_workdir, const RemoteRecord& record) {
  nlohmann::json j{{"system", record.system}, {"host", record.host}, {"workdir", record.workdir}};
  fs::create_directories(local_workdir);
  const fs::path path = local_workdir / kRemoteRecordFile;
  write_file_atomic(path, j.dump(2) + "\n");
}

}  // namespace campaign::stage
