// One libssh session, set up end to end: connect (over TCP, or over a socket someone else carries,
// such as a jump host's tunnel), check the server's host key against known_hosts, authenticate with
// public keys. Also the RAII owners of every libssh handle the ssh module uses.
//
// Invariant: open_session() returns only a session that is connected, whose host key matched
// known_hosts (or was just recorded under accept_new_host_key), and that is authenticated. Its
// failures are typed (ConnectError, HostKeyError, AuthenticationError) and name user@host:port and
// the host key's SHA256 fingerprint, never key material.
#pragma once

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <memory>
#include <string>

#include "ssh/options.hpp"

namespace campaign::ssh {

struct SessionDeleter {
  void operator()(ssh_session s) const noexcept {
    ssh_disconnect(s);  // a polite goodbye when the link is still up; closes the socket either way
    ssh_free(s);
  }
};
struct ChannelDeleter {
  void operator()(ssh_channel c) const noexcept { ssh_channel_free(c); }
};
struct SftpDeleter {
  void operator()(sftp_session s) const noexcept { sftp_free(s); }
};
struct SftpFileDeleter {
  void operator()(sftp_file f) const noexcept { sftp_close(f); }
};
struct SftpAttributesDeleter {
  void operator()(sftp_attributes a) const noexcept { sftp_attributes_free(a); }
};
// Frees the event and gives its sessions' sockets back to their own poll contexts, so an event
// must go before the sessions added to it.
struct EventDeleter {
  void operator()(ssh_event e) const noexcept { ssh_event_free(e); }
};
struct KeyDeleter {
  void operator()(ssh_key k) const noexcept { ssh_key_free(k); }
};

using SessionPtr = std::unique_ptr<ssh_session_struct, SessionDeleter>;
using ChannelPtr = std::unique_ptr<ssh_channel_struct, ChannelDeleter>;
using SftpPtr = std::unique_ptr<sftp_session_struct, SftpDeleter>;
using SftpFilePtr = std::unique_ptr<sftp_file_struct, SftpFileDeleter>;
using SftpAttributesPtr = std::unique_ptr<sftp_attributes_struct, SftpAttributesDeleter>;
using KeyPtr = std::unique_ptr<ssh_key_struct, KeyDeleter>;
using EventPtr = std::unique_ptr<ssh_event_struct, EventDeleter>;

// An event loop over `session`'s socket: ssh_event_dopoll() is the one way to wait for it that also
// processes what arrives. (libssh 0.10's non-blocking channel reads stop reading the socket once
// the channel saw end of file, so the exit status and close that follow would never be read.)
EventPtr watch_session(ssh_session session);

// user@host:port; `user` empty means the local user.
struct Endpoint {
  std::string user, host;
  int port = 22;

  std::string str() const;  // "user@host:port" ("[::1]:22" style for IPv6), for messages
  // "host", "user@host", "host:port", "user@host:port", "[v6addr]:port"; `user` when none given.
  // Throws ConnectError for an empty host, a bad port, or several comma-separated hops.
  static Endpoint parse(const std::string& spec, const std::string& default_user);
};

// Connects to `where` and returns the ready session; host key and authentication settings come
// from `options`. With `fd` >= 0 the session runs over that connected socket instead of TCP; the
// socket stays the caller's, though libssh 0.10 closes it when the connection fails.
SessionPtr open_session(const SshOptions& options, const Endpoint& where, int fd = -1);

// False once libssh has seen the link fail or close; a live-looking session may still be dead until
// the next round trip says so.
bool session_alive(ssh_session session);

// libssh's last error on `session`, never empty.
std::string session_error(ssh_session session);

}  // namespace campaign::ssh
