// The built-in launcher behind `campaign launch -n N [-l] [--] CMD ARGS...`: N copies of a command
// on this machine, set up like ranks of a torchrun/srun job.
//
// Each rank gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and
// MASTER_PORT (kept when already set, else a port free at launch time on 127.0.0.1), and the Slurm
// equivalents SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NNODES=1, SLURM_NODEID=0. With at
// least as many CPUs in its affinity mask as ranks, each rank runs on its own equal share of them
// (as srun --cpu-bind=cores). Each rank is shown its GPUs of the job's (CUDA_VISIBLE_DEVICES, else
// ROCR_VISIBLE_DEVICES, as the launcher got it; resource::rank_gpus): an equal block of them each,
// or with fewer GPUs than ranks one each, k ranks per GPU in rank order (--gpu-bind=single:k).
//
// Invariants: a rank that fails takes the others down (SIGTERM, SIGKILL after the grace period),
// so a crashed rank never leaves the rest hanging in a collective; SIGTERM and SIGINT sent to the
// launcher reach every rank; the ranks stay in the launcher's process group, so a job-wide kill
// reaches them too; with `label`, every output line is prefixed "R: " and lines of different ranks
// never interleave within a line.
//
// Meant for the main thread of a single-threaded program (the `campaign launch` subcommand): it
// blocks SIGINT, SIGTERM and SIGCHLD in the calling thread while the ranks run, and restores them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign::local {

struct LaunchOptions {
  bool label = false;  // prefix output lines with "R: ", like srun -l
  std::chrono::milliseconds kill_grace = std::chrono::seconds(5);
};

// Bad arguments, or nothing could be set up (no free port, no signal descriptor).
class LaunchError : public Error {
 public:
  using Error::Error;
};

// Runs `ranks` copies of argv (argv[0] looked up in PATH) and waits for all of them. Returns the
// first non-zero exit status in time order (128+N for a rank killed by signal N; 127 or 126 when
// argv[0] cannot be found or executed), else 0. Throws LaunchError.
int launch(int ranks, const std::vector<std::string>& argv, const LaunchOptions& options = {});

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0). Throws LaunchError.
int free_tcp_port();

}  // namespace campaign::local
