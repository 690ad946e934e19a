// Work done beside the caller's: on a thread of its own when one can be had, else when the caller
// waits for it. One place for the pattern (the import's case rows, a report's parameters).
#pragma once

#include <exception>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

namespace campaign {

// Starts `work` on a thread of its own (when `thread` and one can be had; else it runs in wait()).
// wait() returns once it has run and throws what it threw. The destructor waits too, so that the
// work never outlives what it uses when an exception leaves the caller's scope first (what the
// work threw is then dropped: the caller's exception is the one that counts).
class Beside {
 public:
  explicit Beside(std::function<void()> work, bool thread = true) : work_(std::move(work)) {
    if (thread) try {
        thread_ = std::thread([this] { run(); });
      } catch (const std::system_error&) {  // no thread to be had: wait() runs it
      }
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  ~Beside() {
    if (thread_.joinable()) thread_.join();
  }

  void wait() {
    if (thread_.joinable())
      thread_.join();
    else if (!ran_)
      run();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void run() {
    ran_ = true;
    try {
      work_();
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  std::function<void()> work_;
  std::exception_ptr error_;
  bool ran_ = false;
  std::thread thread_;
};

}  // namespace campaign
