// `campaign launch -n N [-l] -- CMD ARGS...`: the built-in launcher of the
// local system profile. Starts N ranks of CMD with RANK/WORLD_SIZE/LOCAL_RANK/
// MASTER_ADDR/MASTER_PORT and the SLURM_PROCID/SLURM_NTASKS equivalents, so
// MPI-less data-parallel codes (torch.distributed) run unchanged.
#include "local/launch.hpp"

#include "cli/cli.hpp"

namespace campaign::cli {

void add_launch(CLI::App& app, int& status) {
  struct Options {
    int ranks = 1;
    bool label = false;
    std::vector<std::string> argv;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("launch",
                                 "Start N ranks of a command on this machine (the local profile's launcher)");
  cmd->add_option("-n,--ranks", o->ranks, "Number of ranks")->check(CLI::Range(1, 4096));
  cmd->add_flag("-l,--label", o->label,
                "Prefix each output line with its rank (\"R: \"), as Slurm's launcher does with -l");
  cmd->add_option("command", o->argv, "The command and its arguments, after --")->required();
  cmd->callback([o, &status] {
    const std::vector<std::string>& argv = o->argv;
    local::LaunchOptions lo;
    lo.label = o->label;
    status = local::launch(o->ranks, argv, lo);
  });
}

}  // namespace campaign::cli
