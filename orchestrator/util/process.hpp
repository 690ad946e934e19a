// Running a program from an argv array - never through a shell - and collecting what it prints,
// and the pieces every process start in the orchestrator shares (argv/envp arrays, posix_spawn
// attributes, exit status decoding).
//
// Invariants of run_program(): it never blocks past its timeout for a child that misbehaves (fills
// a pipe, keeps its output open, ignores stdin); a timed-out child is killed with its whole process
// group; the child gets no descriptor of ours beyond its three standard ones, default signal
// dispositions and an empty signal mask, whatever the orchestrator has set up for itself; it
// returns only after the child has been reaped.
#pragma once

#include <spawn.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace campaign {

// Pointers into `strings` ending with nullptr, for exec and posix_spawn. `strings` must outlive it.
std::vector<char*> c_array(const std::vector<std::string>& strings);

// This process's program file (/proc/self/exe); empty when it cannot be read.
std::filesystem::path own_executable();

// The posix_spawn attribute objects, destroyed with the object.
struct SpawnAttributes {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnAttributes();
  ~SpawnAttributes();
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  // Default signal dispositions and an empty mask in the child (an ignored signal would stay
  // ignored across exec); `flags` are further POSIX_SPAWN_* flags.
  void default_signals(short flags = 0);
};

// A wait status by shell convention: the exit status, 128+N when killed by signal N.
int shell_exit_code(int status);

enum class Output { separate, merged };  // merged: stderr goes to `out`, interleaved as written
enum class Until { output_closed, exited };

struct RunOptions {
  std::chrono::milliseconds timeout{60000};
  std::string stdin_data;     // written to the child's standard input, then closed; empty: /dev/null
  std::filesystem::path cwd;  // empty: ours
  Output output = Output::separate;
  // exited: done when the child has exited, with what it wrote by then, even while a process it
  // started in the background still holds its output open.
  Until until = Until::output_closed;
  size_t max_output = std::numeric_limits<size_t>::max();  // per stream; the rest is dropped
};

struct RunResult {
  int start_error = 0;        // errno when the program could not be started (ENOENT, EACCES); then no more
  std::optional<int> status;  // the wait status; nullopt if someone else reaped the child
  bool timed_out = false;     // killed because it outlived its timeout
  std::string out, err;
};

// Runs argv[0] (looked up in PATH unless it holds a '/') and waits for it. Throws Error when a
// pipe or poll(2) fails, or posix_spawn for a reason other than the program.
RunResult run_program(const std::vector<std::string>& argv, const RunOptions& options = {});

}  // namespace campaign
