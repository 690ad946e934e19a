// Blocks signals in this thread for its lifetime and restores the previous mask: the launcher and
// the pack driver wait for their children and for signals in one loop (signalfd/sigtimedwait).
#pragma once

#include <pthread.h>

#include <csignal>

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

}  // namespace campaign
