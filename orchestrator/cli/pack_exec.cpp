// `campaign pack-exec [--nodes NAMES] MANIFEST`: the driver inside a packed allocation (pack/driver.hpp),
// started by the allocation's script (templates/pack/). Exit status 0 when every case that could
// run has ended (whatever their exit statuses: each has its own marker), 143 when stopped by SIGTERM
// or SIGINT, 2 for a bad manifest.
#include <algorithm>
#include <sstream>

#include "cli/cli.hpp"
#include "pack/driver.hpp"

namespace campaign::cli {

void add_pack_exec(CLI::App& app, int& status) {
  struct Options {
    std::string manifest;
    std::string nodes;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "pack-exec",
      "Run the cases of a packed allocation as job steps, as many at once as its nodes allow (internal: "
      "started by the allocation's job script)");
  cmd->group("");  // hidden from --help: users never type it
  cmd->add_option("--nodes", o->nodes,
                  "The allocation's node names, separated by blanks or commas (default: the manifest's "
                  "node count, names unknown)");
  cmd->add_option("manifest", o->manifest, "The allocation's manifest.json")->required();
  cmd->callback([o, &status] {
    pack::Allocation a = pack::read_manifest(o->manifest);
    pack::DriverOptions d;
    std::string names = o->nodes;
    std::replace(names.begin(), names.end(), ',', ' ');
    std::istringstream words(names);
    for (std::string w; words >> w;) d.nodes.push_back(w);
    status = pack::run_allocation(a, d);
  });
}

}  // namespace campaign::cli
