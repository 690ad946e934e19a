// The parts of one ssh connection (internal to ssh_shell.cpp and ssh_files.cpp), in the order they
// must be freed.
#pragma once

#include <cstddef>
#include <memory>

#include "ssh/jump.hpp"
#include "ssh/session.hpp"
#include "ssh/ssh_shell.hpp"

namespace campaign::ssh {

inline constexpr size_t kChunk = 64 * 1024;  // OpenSSH's sftp-server takes up to 256 KiB per request
inline constexpr int kReadAhead = 16;        // SFTP read requests in flight

struct SshShell::Connection {
  std::unique_ptr<JumpTunnel> tunnel;  // first: outlives the session that talks through it
  SessionPtr session;
  EventPtr event;  // after the session: freed before it
  SftpPtr sftp;    // last: freed before its session
};

}  // namespace campaign::ssh
