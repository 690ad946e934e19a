#include "engine/marker_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>

namespace campaign::engine {

MarkerWatch::MarkerWatch(boost::asio::io_context& io, std::string marker_name,
                         std::function<void()> on_marker)
    : marker_(std::move(marker_name)), on_marker_(std::move(on_marker)), stream_(io) {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return;
  stream_.assign(fd_);
  read_events();
}

MarkerWatch::~MarkerWatch() {
  boost::system::error_code ec;
  stream_.close(ec);  // closes fd_, which drops every watch
}

void MarkerWatch::watch(const std::set<std::string>& dirs) {
  if (fd_ < 0) return;
  for (auto it = by_dir_.begin(); it != by_dir_.end();) {
    if (dirs.count(it->first)) {
      ++it;
      continue;
    }
    inotify_rm_watch(fd_, it->second);
    it = by_dir_.erase(it);
  }
  for (auto& d : dirs) {
    if (by_dir_.count(d)) continue;
    int wd = inotify_add_watch(fd_, d.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR);
    if (wd >= 0) by_dir_[d] = wd;  // else: not watchable (gone, remote, limit): the timer covers it
  }
}

void MarkerWatch::read_events() {
  stream_.async_read_some(boost::asio::buffer(buffer_, sizeof buffer_),
                          [this](const boost::system::error_code& ec, size_t n) {
                            if (ec) return;  // closed
                            bool seen = false;
                            for (size_t off = 0; off + sizeof(inotify_event) <= n;) {
                              inotify_event ev;
                              std::memcpy(&ev, buffer_ + off, sizeof ev);
                              const char* name = buffer_ + off + sizeof(inotify_event);
                              if (ev.len > 0 && marker_ == name) seen = true;
                              off += sizeof(inotify_event) + ev.len;
                            }
                            if (seen) on_marker_();
                            read_events();
                          });
}

}  // namespace campaign::engine
