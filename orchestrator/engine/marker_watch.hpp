// Wakes the engine the moment a job writes its exit marker, instead of at the next marker read.
//
// Linux inotify on the run directories of active jobs: a job script ends by renaming `.exit.tmp` to
// `.exit` (templates/*.sh.mustache), which is one IN_MOVED_TO event. This only speeds things up:
// markers are still read on their timer, because inotify sees only writes made through this
// machine's kernel (a job on a compute node writing to Lustre or NFS is invisible to it), and a
// watch that cannot be added (no inotify, watch limit) is simply missing. Where the jobs run on this
// machine (the local executor), the directories it names (take_changes) are the ones to read
// between the timer's full reads: a tick's cost follows the markers that came, not the jobs.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace campaign::engine {

class MarkerWatch {
 public:
  // `markers`: the file names followed, the first the one that wakes the engine (the exit marker).
  // `on_marker(job_ended)` runs on `io`'s thread when that one appears in a watched directory;
  // `job_ended`: in a directory watched as a job's own (watch()), not only a packed case's.
  MarkerWatch(boost::asio::io_context& io, std::vector<std::string> markers,
              std::function<void(bool job_ended)> on_marker);
  ~MarkerWatch();
  MarkerWatch(const MarkerWatch&) = delete;
  MarkerWatch& operator=(const MarkerWatch&) = delete;

  // Watches exactly these directories from now on (adds the new ones, drops the others).
  struct Dir {
    std::int64_t key;  // what stands for the directory (its attempt's id), instead of the path
    const std::string* path;
    bool job = true;  // a scheduler's job's own directory: its exit marker frees what the job held
  };
  void watch(const std::vector<Dir>& dirs);
  bool available() const { return fd_ >= 0; }
  size_t watched() const { return by_key_.size(); }
  // The keys of the directories the last watch() named that could not be watched (gone, the watch
  // limit): to read every time.
  const std::unordered_set<std::int64_t>& unwatched() const { return unwatched_; }

  // The keys of the watched directories where marker `k` (an index into `markers`) appeared since
  // the last call for it, and of those first watched since (a marker may have come before its
  // watch). `all`: the kernel's queue overflowed and events were lost, or nothing is watched: read
  // every directory.
  struct Changes {
    bool all = false;
    std::unordered_set<std::int64_t> keys;
  };
  Changes take_changes(size_t k = 0);

 private:
  void read_events();
  void take_events(size_t n);  // the `n` bytes of events read into buffer_

  struct Watched {
    int wd = -1;
    bool job = true;
    unsigned long generation = 0;  // the last watch() that named it
  };
  std::vector<std::string> markers_;
  std::function<void(bool)> on_marker_;
  int fd_ = -1;
  boost::asio::posix::stream_descriptor stream_;
  std::unordered_map<std::int64_t, Watched> by_key_;
  std::unordered_map<int, std::int64_t> by_wd_;
  unsigned long generation_ = 0;
  std::unordered_set<std::int64_t> unwatched_;
  std::vector<Changes> changes_;  // one per marker
  alignas(8) char buffer_[8192];
};

}  // namespace campaign::engine
