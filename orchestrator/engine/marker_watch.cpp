#include "engine/marker_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>

namespace campaign::engine {

MarkerWatch::MarkerWatch(boost::asio::io_context& io, std::vector<std::string> markers,
                         std::function<void(bool)> on_marker)
    : markers_(std::move(markers)), on_marker_(std::move(on_marker)), stream_(io), changes_(markers_.size()) {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return;
  stream_.assign(fd_);
  read_events();
}

MarkerWatch::~MarkerWatch() {
  boost::system::error_code ec;
  stream_.close(ec);  // closes fd_, which drops every watch
}

void MarkerWatch::watch(const std::vector<Dir>& dirs) {
  unwatched_.clear();
  if (fd_ < 0) return;
  ++generation_;
  for (const Dir& d : dirs) {
    auto [it, added] = by_key_.try_emplace(d.key);
    it->second.generation = generation_;
    it->second.job = d.job;
    if (!added) continue;
    int wd = inotify_add_watch(fd_, d.path->c_str(), IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR);
    if (wd < 0) {
      by_key_.erase(it);  // not watchable (gone, remote, limit): read every time
      unwatched_.insert(d.key);
      continue;
    }
    it->second.wd = wd;
    by_wd_[wd] = d.key;
    for (auto& c : changes_) c.keys.insert(d.key);  // its markers may have come before the watch
  }
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    if (it->second.generation == generation_) {
      ++it;
      continue;
    }
    // A directory is one watch however many keys name it (a retry runs where its first attempt
    // ran): the watch goes with the last key that has it.
    if (auto w = by_wd_.find(it->second.wd); w != by_wd_.end() && w->second == it->first) {
      inotify_rm_watch(fd_, it->second.wd);
      by_wd_.erase(w);
    }
    for (auto& c : changes_) c.keys.erase(it->first);
    it = by_key_.erase(it);
  }
}

MarkerWatch::Changes MarkerWatch::take_changes(size_t k) {
  Changes out = std::move(changes_.at(k));
  changes_[k] = {};
  if (fd_ < 0) out.all = true;
  return out;
}

void MarkerWatch::read_events() {
  stream_.async_read_some(boost::asio::buffer(buffer_, sizeof buffer_),
                          [this](const boost::system::error_code& ec, size_t n) {
                            if (ec) return;  // closed
                            take_events(n);
                            read_events();
                          });
}

void MarkerWatch::take_events(size_t n) {
  bool seen = false, job_ended = false;
  for (size_t off = 0; off + sizeof(inotify_event) <= n;) {
    inotify_event ev;
    std::memcpy(&ev, buffer_ + off, sizeof ev);
    const char* name = buffer_ + off + sizeof(inotify_event);
    off += sizeof(inotify_event) + ev.len;
    if (ev.mask & IN_Q_OVERFLOW) {  // events were lost: every directory is to be read
      for (auto& c : changes_) c.all = true;
      seen = job_ended = true;
      continue;
    }
    auto key = ev.len ? by_wd_.find(ev.wd) : by_wd_.end();
    if (key == by_wd_.end()) continue;
    const Watched& w = by_key_.at(key->second);
    for (size_t k = 0; k < markers_.size(); ++k) {
      if (markers_[k] != name) continue;
      changes_[k].keys.insert(key->second);
      if (k == 0) seen = true, job_ended |= w.job;
    }
  }
  if (seen) on_marker_(job_ended);
}

}  // namespace campaign::engine
