// Wakes the engine the moment a job writes its exit marker, instead of at the next marker read.
//
// Linux inotify on the run directories of active jobs: a job script ends by renaming `.exit.tmp` to
// `.exit` (templates/*.sh.mustache), which is one IN_MOVED_TO event. This only speeds things up:
// markers are still read on their timer, because inotify sees only writes made through this
// machine's kernel (a job on a compute node writing to Lustre or NFS is invisible to it), and a
// watch that cannot be added (no inotify, watch limit) is simply missing.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace campaign::engine {

class MarkerWatch {
 public:
  // `on_marker` runs on `io`'s thread when a marker appears in a watched directory.
  MarkerWatch(boost::asio::io_context& io, std::string marker_name, std::function<void()> on_marker);
  ~MarkerWatch();
  MarkerWatch(const MarkerWatch&) = delete;
  MarkerWatch& operator=(const MarkerWatch&) = delete;

  // Watches exactly these directories from now on (adds the new ones, drops the others).
  void watch(const std::set<std::string>& dirs);
  bool available() const { return fd_ >= 0; }
  size_t watched() const { return by_dir_.size(); }

 private:
  void read_events();

  std::string marker_;
  std::function<void()> on_marker_;
  int fd_ = -1;
  boost::asio::posix::stream_descriptor stream_;
  std::map<std::string, int> by_dir_;  // directory -> watch descriptor
  alignas(8) char buffer_[8192];
};

}  // namespace campaign::engine
