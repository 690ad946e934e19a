// `campaign validate FILE [--system S]`: check a campaign against its system:
// structure, expressions, partitions, limits, templates, collectors, analyses.
#include <iostream>

#include "cli/cli.hpp"
#include "render/script.hpp"

namespace campaign::cli {

void add_validate(CLI::App& app) {
  auto o = std::make_shared<CampaignOptions>();
  auto* cmd = app.add_subcommand("validate",
                                 "Check a campaign and its system profile (no output on success but a "
                                 "summary; errors as file:line:col: key: message, exit status 2)");
  add_campaign_options(*cmd, *o);
  cmd->callback([o] {
    Loaded l = load(*o);
    render::RenderOptions ro{l.workdir, self_exe(), 1, 0, {}};
    auto scripts = render::render_all(l.plan, ro);
    const auto& sys = l.plan.system;
    std::string account = l.campaign.account ? *l.campaign.account : sys.account;
    if (sys.account_required && account.empty())
      std::cerr << "warning: system " << sys.name
                << " requires an account/project: set `account:` in the campaign or the variable its profile "
                   "reads\n";
    std::cout << "ok: campaign " << l.campaign.name << " on " << sys.name << " (" << l.system_how
              << "): " << l.plan.cases.size() << " cases in " << l.plan.steps.size() << " step"
              << (l.plan.steps.size() == 1 ? "" : "s") << ", " << scripts.size() << " scripts render, "
              << l.campaign.analyses.size() << " analyses\n";
  });
}

}  // namespace campaign::cli
