// A jump host (OpenSSH's ProxyJump) for libssh 0.10, which has no SSH_OPTIONS_PROXYJUMP and would
// otherwise spawn `ssh -W` through a ProxyCommand: an authenticated session to the jump host, one
// direct-tcpip channel from it to the target, and a thread copying bytes between that channel and
// one end of a local socketpair. The target session runs over the other end (SSH_OPTIONS_FD), so
// it is end-to-end encrypted and host-key-checked exactly as a direct connection would be.
//
// Invariants: only the forwarder thread touches the jump session once it has started; when the
// tunnel fails (channel closed, jump link lost) its socket end is shut down, so the target session
// sees end of file and reports a dead link instead of hanging; the destructor stops and joins it.
#pragma once

#include <sys/types.h>

#include <thread>

#include "ssh/session.hpp"
#include "util/fd.hpp"

namespace campaign::ssh {

class JumpTunnel {
 public:
  // Connects to `jump` (host key and keys as for the target) and opens a channel to `target`.
  // Throws ConnectError, HostKeyError or AuthenticationError naming the jump host.
  JumpTunnel(const SshOptions& options, const Endpoint& jump, const Endpoint& target);
  ~JumpTunnel();
  JumpTunnel(const JumpTunnel&) = delete;
  JumpTunnel& operator=(const JumpTunnel&) = delete;

  // The socket end the target session talks through (for SSH_OPTIONS_FD). The tunnel keeps it
  // and closes it when destroyed, after the session, unless libssh already has (see the .cpp).
  int session_end() const { return session_end_; }

 private:
  void forward() noexcept;

  SessionPtr session_;
  ChannelPtr channel_;
  Fd local_;                   // the forwarder's end of the socketpair
  int session_end_ = -1;       // the target session's end: not an Fd, libssh may close it itself
  dev_t session_end_dev_ = 0;  // its identity, to recognise it at close time
  ino_t session_end_ino_ = 0;
  Fd wake_read_, wake_write_;  // a byte here stops the forwarder at once
  std::thread thread_;
};

}  // namespace campaign::ssh
