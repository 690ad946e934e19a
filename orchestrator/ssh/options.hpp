// How to reach a login node over SSH (filled from a system profile's `access: {ssh: ...}`), and the
// kinds of failure an SSH transport reports, so callers can tell "fix your known_hosts" from "the
// link dropped, try again later".
//
// Invariant: nothing here holds a secret. Keys are named by path and read only when connecting;
// passphrases are never taken (an encrypted key must be loaded into ssh-agent).
#pragma once

#include <chrono>
#include <string>

#include "transport/shell.hpp"

namespace campaign::ssh {

struct SshOptions {
  std::string host;
  std::string user;  // empty: the local user name
  int port = 22;
  std::string identity;  // private key file; empty: ssh-agent, then ~/.ssh/id_{ed25519,ecdsa,rsa}
  // One jump host as in OpenSSH's ProxyJump: "host", "user@host", "user@host:port", "[::1]:2222".
  // The jump host is authenticated and checked against known_hosts like the target.
  std::string jump;
  std::string known_hosts;           // empty: ~/.ssh/known_hosts
  bool accept_new_host_key = false;  // record an unknown host key (never a changed one)
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(15);     // also bounds each round trip
  std::chrono::milliseconds command_timeout = std::chrono::minutes(10);     // caps every run() timeout
  std::chrono::milliseconds keepalive_interval = std::chrono::seconds(30);  // 0: no keepalives
  int reconnect_attempts = 4;  // after a dropped link, with doubling backoff from reconnect_backoff
  std::chrono::milliseconds reconnect_backoff = std::chrono::milliseconds(500);
};

// The server's host key is unknown, changed, or could not be checked.
class HostKeyError : public transport::AccessError {
 public:
  using AccessError::AccessError;
};

// The server rejected every key we offered (or wants more than a key).
class AuthenticationError : public transport::AccessError {
 public:
  using AccessError::AccessError;
};

// No SSH session could be set up: name resolution, refused, unreachable, timed out, jump failed.
class ConnectError : public transport::TransportError {
 public:
  using TransportError::TransportError;
};

// The link died after a command was handed to the server: it may or may not have run (or finished).
// Callers must not assume either; a scheduler reconciles by job name.
class OutcomeUnknownError : public transport::TransportError {
 public:
  using TransportError::TransportError;
};

}  // namespace campaign::ssh
