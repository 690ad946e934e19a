// Which remote work directory a local work directory drives: written in `<workdir>/remote.json`
// the first time a command reaches the system over ssh, so that later commands (run, resume,
// status, cancel, collect) find the same jobs even if the profile's `workdir` or the remote
// environment change meanwhile, and so that `campaign status` can say where the jobs run without
// connecting.
//
// Invariants: the file names the host (user@host:port) and the remote directory, never a key,
// identity path or any other secret; it is replaced atomically (temporary file + rename).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace campaign::stage {

struct RemoteRecord {
  std::string system;   // profile name
  std::string host;     // "user@host:port" (" via JUMP")
  std::string workdir;  // absolute, on the remote host
};

inline constexpr const char* kRemoteRecordFile = "remote.json";

// nullopt when there is none (a local system, or nothing has reached the system yet); throws
// Error when the file is there but unreadable.
std::optional<RemoteRecord> read_remote_record(const std::filesystem::path& local_workdir);
void write_remote_record(const std::filesystem::path& local_workdir, const RemoteRecord& record);

}  // namespace campaign::stage
