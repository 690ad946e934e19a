// Signals handled in a poll loop: blocked in this thread for the object's lifetime (the previous
// mask restored after) and read from a signalfd. The launcher and the pack driver wait for their
// children and for SIGINT/SIGTERM this way.
#pragma once

#include <pthread.h>
#include <sys/signalfd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <initializer_list>
#include <string>

#include "util/error.hpp"
#include "util/fd.hpp"

namespace campaign {

class SignalBlock {
 public:
  explicit SignalBlock(const sigset_t& set) { ::pthread_sigmask(SIG_BLOCK, &set, &old_); }
  ~SignalBlock() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

class SignalFd {
 public:
  // Throws Error when the signalfd cannot be made.
  explicit SignalFd(std::initializer_list<int> signals) : block_(set_of(signals)) {
    sigset_t set = set_of(signals);
    fd_ = Fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_.open()) throw Error(std::string("signalfd: ") + std::strerror(errno));
  }
  int get() const { return fd_.get(); }

 private:
  static sigset_t set_of(std::initializer_list<int> signals) {
    sigset_t set;
    sigemptyset(&set);
    for (int s : signals) sigaddset(&set, s);
    return set;
  }
  SignalBlock block_;
  Fd fd_;
};

}  // namespace campaign
