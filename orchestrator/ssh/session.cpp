// Session setup with libssh 0.10. OpenSSH's own configuration files are deliberately not read
// (SSH_OPTIONS_PROCESS_CONFIG off): the system profile is the one place that says how a machine is
// reached, so a stray ~/.ssh/config cannot change what a campaign does.
#include "ssh/session.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "util/strings.hpp"

namespace campaign::ssh {

namespace {

struct CharDeleter {
  void operator()(char* p) const noexcept { ssh_string_free_char(p); }
};

// How known_hosts names the server: "host" on port 22, "[host]:port" elsewhere.
std::string known_hosts_name(const Endpoint& where) {
  if (where.port == 22) return where.host;
  return "[" + where.host + "]:" + std::to_string(where.port);
}

// "ssh-ed25519 key SHA256:..." for the key the server presented; never fails (falls back to text).
std::string server_key_fingerprint(ssh_session s) {
  ssh_key raw = nullptr;
  if (ssh_get_server_publickey(s, &raw) != SSH_OK || raw == nullptr) return "(key unavailable)";
  KeyPtr key(raw);
  unsigned char* hash = nullptr;
  size_t length = 0;
  if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK)
    return "(fingerprint unavailable)";
  std::unique_ptr<char, CharDeleter> fingerprint(
      ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length));
  ssh_clean_pubkey_hash(&hash);
  const char* type = ssh_key_type_to_char(ssh_key_type(key.get()));
  return std::string(type ? type : "unknown") + " key " + (fingerprint ? fingerprint.get() : "?");
}

std::string known_hosts_file(const SshOptions& options) {
  return options.known_hosts.empty() ? std::string("~/.ssh/known_hosts") : options.known_hosts;
}

void verify_host_key(ssh_session s, const SshOptions& options, const Endpoint& where) {
  const std::string name = known_hosts_name(where);
  const std::string file = known_hosts_file(options);
  switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK:
      return;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
      throw HostKeyError(where.str() + ": host key for " + name +
                         " has CHANGED: the server now presents the " + server_key_fingerprint(s) +
                         ", which does not match " + file +
                         ". Someone may be intercepting the connection, or the host was reinstalled; "
                         "if the site confirms the new key, remove the old entry with `ssh-keygen -R '" +
                         name + "' -f " + file + "` and connect again");
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN:
      if (options.accept_new_host_key) {
        if (!options.known_hosts.empty()) {
          std::error_code ec;  // the file may be new, but its directory must exist for libssh
          auto parent = std::filesystem::path(options.known_hosts).parent_path();
          if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        }
        if (ssh_session_update_known_hosts(s) != SSH_OK)
          throw HostKeyError(where.str() + ": cannot record the host key for " + name + " in " + file + ": " +
                             session_error(s));
        return;
      }
      throw HostKeyError(where.str() + ": unknown host key for " + name + ": the server presents the " +
                         server_key_fingerprint(s) + ", which is not in " + file +
                         ". Compare the fingerprint with the one the site publishes, then connect once "
                         "with --accept-new-host-key to record it");
    case SSH_KNOWN_HOSTS_ERROR:
      break;
  }
  throw HostKeyError(where.str() + ": cannot check the host key for " + name + " against " + file + ": " +
                     session_error(s));
}

void authenticate(ssh_session s, const SshOptions& options, const Endpoint& where) {
  std::vector<std::string> tried;
  bool partial = false;
  auto check = [&](int rc, std::string what) {
    if (rc == SSH_AUTH_SUCCESS) return true;
    if (rc == SSH_AUTH_ERROR && !session_alive(s))
      throw ConnectError(where.str() + ": connection lost during authentication: " + session_error(s));
    if (rc == SSH_AUTH_PARTIAL) partial = true;
    tried.push_back(std::move(what));
    return false;
  };

  if (!options.identity.empty()) {
    ssh_key raw = nullptr;
    // No passphrase and no prompt: an encrypted key belongs in ssh-agent.
    if (ssh_pki_import_privkey_file(options.identity.c_str(), nullptr, nullptr, nullptr, &raw) == SSH_OK) {
      KeyPtr key(raw);
      if (check(ssh_userauth_publickey(s, nullptr, key.get()), "the key in " + options.identity)) return;
    } else {
      tried.push_back(options.identity +
                      " (unreadable, not a private key, or protected by a passphrase: "
                      "load such a key into ssh-agent)");
    }
  }
  const char* agent = std::getenv("SSH_AUTH_SOCK");
  if (agent != nullptr && *agent != '\0') {
    if (check(ssh_userauth_agent(s, nullptr), "the keys in ssh-agent")) return;
  }
  if (options.identity.empty()) {
    if (check(ssh_userauth_publickey_auto(s, nullptr, nullptr), "the default keys ~/.ssh/id_*")) return;
  }

  std::string message = where.str() + ": public-key authentication failed";
  message += tried.empty() ? " (no key to offer)" : "; tried " + join(tried, ", ");
  if (partial)
    message += "; the server wants a further factor (e.g. a one-time password), which campaign cannot give";
  else
    message += "; is the matching public key in ~/.ssh/authorized_keys on " + where.host + "?";
  throw AuthenticationError(message);
}

}  // namespace

std::string Endpoint::str() const {
  std::string out = user.empty() ? "" : user + "@";
  out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return out + ":" + std::to_string(port);
}

Endpoint Endpoint::parse(const std::string& spec, const std::string& default_user) {
  auto bad = [&](const std::string& why) { return ConnectError("jump host '" + spec + "': " + why); };
  if (spec.find(',') != std::string::npos) throw bad("only one jump host is supported");
  Endpoint e;
  e.user = default_user;
  std::string rest = spec;
  if (starts_with(rest, "ssh://")) rest = rest.substr(6);
  if (auto at = rest.rfind('@'); at != std::string::npos) {
    e.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
  }
  std::string port;
  if (starts_with(rest, "[")) {
    auto close = rest.find(']');
    if (close == std::string::npos) throw bad("unbalanced '['");
    e.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') throw bad("expected ':port' after ']'");
      port = rest.substr(close + 2);
    }
  } else if (auto colon = rest.find(':');
             colon != std::string::npos && rest.find(':', colon + 1) == std::string::npos) {
    e.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    e.host = rest;  // a bare IPv6 address has several colons and no port
  }
  if (e.host.empty()) throw bad("no host name");
  if (!port.empty()) {
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || p < 1 || p > 65535) throw bad("bad port '" + port + "'");
    e.port = static_cast<int>(p);
  }
  return e;
}

bool session_alive(ssh_session session) {
  return session != nullptr && ssh_is_connected(session) &&
         (ssh_get_status(session) & (SSH_CLOSED | SSH_CLOSED_ERROR)) == 0;
}

std::string session_error(ssh_session session) {
  const char* e = session ? ssh_get_error(session) : nullptr;
  return e && *e ? e : "unknown error";
}

EventPtr watch_session(ssh_session session) {
  EventPtr event(ssh_event_new());
  if (!event || ssh_event_add_session(event.get(), session) != SSH_OK)
    throw ConnectError("cannot watch an SSH session: " + session_error(session));
  return event;
}

SessionPtr open_session(const SshOptions& options, const Endpoint& where, int fd) {
  SessionPtr s(ssh_new());
  if (!s) throw ConnectError(where.str() + ": cannot create an SSH session");
  auto set = [&](ssh_options_e option, const void* value, const char* what) {
    if (ssh_options_set(s.get(), option, value) != SSH_OK)
      throw ConnectError(where.str() + ": bad " + what + ": " + session_error(s.get()));
  };
  if (fd >= 0) {
    socket_t socket_fd = fd;
    if (ssh_options_set(s.get(), SSH_OPTIONS_FD, &socket_fd) != SSH_OK)
      throw ConnectError(where.str() + ": cannot use the tunnel socket");
  }
  bool process_config = false;
  set(SSH_OPTIONS_PROCESS_CONFIG, &process_config, "option");
  // Without TCP_NODELAY, Nagle's algorithm holds a channel-open request behind the previous small
  // packet's delayed ACK: 40 ms per command on Linux.
  int nodelay = 1;
  set(SSH_OPTIONS_NODELAY, &nodelay, "option");
  int verbosity = SSH_LOG_NOLOG;
  set(SSH_OPTIONS_LOG_VERBOSITY, &verbosity, "log level");
  set(SSH_OPTIONS_HOST, where.host.c_str(), "host name");
  unsigned int port = static_cast<unsigned int>(where.port);
  set(SSH_OPTIONS_PORT, &port, "port");
  if (!where.user.empty()) set(SSH_OPTIONS_USER, where.user.c_str(), "user name");
  if (!options.known_hosts.empty())
    set(SSH_OPTIONS_KNOWNHOSTS, options.known_hosts.c_str(), "known_hosts path");
  // libssh applies this timeout to the TCP connect and to every blocking round trip afterwards.
  long ms = std::max<long>(1, static_cast<long>(options.connect_timeout.count()));
  long seconds = ms / 1000, usec = (ms % 1000) * 1000;
  set(SSH_OPTIONS_TIMEOUT, &seconds, "timeout");
  set(SSH_OPTIONS_TIMEOUT_USEC, &usec, "timeout");

  if (ssh_connect(s.get()) != SSH_OK)
    throw ConnectError(where.str() + ": cannot connect: " + session_error(s.get()));
  verify_host_key(s.get(), options, where);
  authenticate(s.get(), options, where);
  return s;
}

}  // namespace campaign::ssh
