// The jump tunnel's forwarder: one libssh event loop over the jump session, the local socket and a
// wake-up pipe. Data from the channel is queued (bounded) and written without blocking, so a target
// session that is busy writing can never deadlock against a forwarder that is busy writing back.
#include "ssh/jump.hpp"

#include <fcntl.h>
#include <poll.h>  // POLLIN
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace campaign::ssh {

namespace {

constexpr size_t kRelayChunk = 64 * 1024;
constexpr size_t kMaxQueued = 1 << 20;  // stop reading the channel while this much awaits the socket

}  // namespace

JumpTunnel::JumpTunnel(const SshOptions& options, const Endpoint& jump, const Endpoint& target) {
  session_ = open_session(options, jump);
  channel_.reset(ssh_channel_new(session_.get()));
  if (!channel_ ||
      ssh_channel_open_forward(channel_.get(), target.host.c_str(), target.port, "127.0.0.1", 0) != SSH_OK)
    throw ConnectError("jump host " + jump.str() + " could not open a connection to " + target.str() + ": " +
                       session_error(session_.get()) +
                       " (is the target reachable from the jump host, and "
                       "does the jump host allow TCP forwarding?)");
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw ConnectError(std::string("socketpair: ") + std::strerror(errno));
  local_.reset(pair[0]);
  session_end_ = pair[1];
  struct stat st {};
  ::fstat(session_end_, &st);
  session_end_dev_ = st.st_dev;
  session_end_ino_ = st.st_ino;
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(session_end_);
    throw ConnectError(std::string("pipe: ") + std::strerror(e));
  }
  wake_read_.reset(wake[0]);
  wake_write_.reset(wake[1]);
  ::fcntl(local_.get(), F_SETFL, ::fcntl(local_.get(), F_GETFL) | O_NONBLOCK);
  thread_ = std::thread([this] { forward(); });
}

JumpTunnel::~JumpTunnel() {
  if (thread_.joinable()) {
    char stop = 1;
    while (::write(wake_write_.get(), &stop, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  local_.reset();
  wake_read_.reset();
  wake_write_.reset();
  // libssh 0.10 closes a socket given with SSH_OPTIONS_FD when ssh_connect() fails, but not when a
  // connected session is freed. Close it here only if that number still names our socket (a
  // socket's inode is unique while open), so a number reused meanwhile is never closed.
  struct stat st {};
  if (session_end_ >= 0 && ::fstat(session_end_, &st) == 0 && st.st_dev == session_end_dev_ &&
      st.st_ino == session_end_ino_)
    ::close(session_end_);
  // channel_ and session_ are released after the thread that used them has stopped.
}

void JumpTunnel::forward() noexcept {
  ssh_channel channel = channel_.get();
  bool stop = false, local_ready = false, local_eof = false, remote_eof_passed = false;
  std::string to_local;
  char buf[kRelayChunk];

  // The event both waits and processes the jump session's packets (see watch_session()).
  EventPtr event(ssh_event_new());
  ssh_event_callback mark = [](socket_t, int, void* flag) {
    *static_cast<bool*>(flag) = true;
    return 0;
  };
  bool ready = event && ssh_event_add_session(event.get(), session_.get()) == SSH_OK &&
               ssh_event_add_fd(event.get(), wake_read_.get(), POLLIN, mark, &stop) == SSH_OK &&
               ssh_event_add_fd(event.get(), local_.get(), POLLIN, mark, &local_ready) == SSH_OK;

  // One round of copying; false when the tunnel is finished or broken.
  auto step = [&]() -> bool {
    // Channel -> local socket, without blocking: the target session may be busy writing to us.
    while (to_local.size() < kMaxQueued) {
      int n = ssh_channel_read_nonblocking(channel, buf, sizeof buf, 0);
      if (n == SSH_ERROR) return false;
      if (n <= 0) break;
      to_local.append(buf, static_cast<size_t>(n));
    }
    if (!to_local.empty()) {
      ssize_t w = ::send(local_.get(), to_local.data(), to_local.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0)
        to_local.erase(0, static_cast<size_t>(w));
      else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return false;
    }
    if (to_local.empty() && !remote_eof_passed && ssh_channel_is_eof(channel)) {
      ::shutdown(local_.get(), SHUT_WR);  // the target server closed its side: pass the end of file on
      remote_eof_passed = true;
    }
    if (to_local.empty() && (ssh_channel_is_closed(channel) || !session_alive(session_.get()))) return false;
    if (remote_eof_passed && local_eof) return false;

    local_ready = false;
    // Short waits while bytes wait for room in the socket (the event only watches for input).
    ssh_event_dopoll(event.get(), to_local.empty() ? 200 : 5);
    if (stop) return false;
    if (local_ready && !local_eof) {
      ssize_t n = ::recv(local_.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        // Blocking write: waits for the channel window, queueing incoming data meanwhile.
        if (ssh_channel_write(channel, buf, static_cast<uint32_t>(n)) != n) return false;
      } else if (n == 0) {
        local_eof = true;
        ssh_event_remove_fd(event.get(), local_.get());  // or it would report end of file forever
        ssh_channel_send_eof(channel);
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return false;
      }
    }
    return true;
  };
  while (ready && step()) {
  }
  // The target session must see the tunnel end instead of waiting for bytes that will never come.
  ::shutdown(local_.get(), SHUT_RDWR);
}

}  // namespace campaign::ssh
