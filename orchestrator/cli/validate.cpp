// `campaign validate FILE [--system S] [--json]`: check a campaign against its system:
// structure, expressions, partitions, limits, templates, collectors, analyses. With --json, what a
// program needs: the cases the campaign expands to, or the error (with its file, line, column and key).
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "matrix/select.hpp"
#include "render/script.hpp"
#include "util/walltime.hpp"

namespace campaign::cli {

namespace {

// One case as validate --json lists it: what plan's table prints, and its parameters.
nlohmann::json validated_case(const matrix::Plan& plan, const matrix::Case& c) {
  return {{"case", c.name},
          {"step", plan.step_of(c).name},
          {"partition", plan.partition_of(c).name},
          {"nodes", c.job_nodes()},
          {"ranks", c.job_ranks()},
          {"walltime", format_hms(c.walltime_s)},
          {"walltime_s", c.walltime_s},
          {"node_hours", plan.node_hours_of(c)},
          {"params", matrix::case_params(plan, c)}};
}

}  // namespace

void add_validate(CLI::App& app) {
  auto o = std::make_shared<CampaignOptions>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("validate",
                                 "Check a campaign and its system profile (no output on success but a "
                                 "summary; errors as file:line:col: key: message, exit status 2)");
  add_campaign_options(*cmd, *o);
  cmd->add_flag("--json", *json,
                "Print JSON: {ok: true, campaign, system, cases: [{case, step, partition, nodes, ranks, "
                "walltime, walltime_s, node_hours, params}], warnings}, or {ok: false, errors: [{file, line, "
                "column, key, message}]} (line and column null when unknown; exit status 2; the error's line "
                "still goes to stderr)");
  cmd->callback([o, json] {
    nlohmann::json warnings = nlohmann::json::array();
    try {
      // A campaign across several systems: each of them checked (--system: that one).
      auto parts = load_all(*o);
      const bool several = parts.front().part;  // one of several systems (a lone system is no part)
      nlohmann::json systems = nlohmann::json::array();
      for (auto& l : parts) {
        render::RenderOptions ro{l.workdir, self_exe(), 1, 0, {}};
        auto scripts = render::render_all(l.plan, ro);
        const auto& sys = l.plan.system;
        std::string account = l.campaign.account ? *l.campaign.account : sys.account;
        if (sys.account_required && account.empty()) {
          const std::string w =
              "system " + sys.name +
              " requires an account/project: set `account:` in the campaign or the variable "
              "its profile reads";
          std::cerr << "warning: " << w << "\n";
          warnings.push_back(w);
        }
        if (*json) {
          nlohmann::json cases = nlohmann::json::array();
          for (auto& c : l.plan.cases) cases.push_back(validated_case(l.plan, c));
          systems.push_back(nlohmann::json{{"ok", true},
                                           {"campaign", l.campaign.name},
                                           {"system", sys.name},
                                           {"system_how", l.system_how},
                                           {"steps", l.plan.steps.size()},
                                           {"scripts", scripts.size()},
                                           {"analysis_count", l.campaign.analyses.size()},
                                           {"cases", cases},
                                           {"warnings", warnings}});
          continue;
        }
        std::cout << "ok: campaign " << l.campaign.name << " on " << sys.name << " (" << l.system_how
                  << "): " << l.plan.cases.size() << " cases in " << l.plan.steps.size() << " step"
                  << (l.plan.steps.size() == 1 ? "" : "s") << ", " << scripts.size() << " scripts render, "
                  << l.campaign.analyses.size() << " analyses\n";
      }
      if (*json && !several) std::cout << systems.front().dump(2) << "\n";
      if (*json && several)
        std::cout << nlohmann::json{{"ok", true},
                                    {"campaign", parts.front().campaign.name},
                                    {"systems", systems},
                                    {"warnings", warnings}}
                         .dump(2)
                  << "\n";
    } catch (const InputError& e) {
      if (*json) {
        auto known = [](int n) { return n > 0 ? nlohmann::json(n) : nlohmann::json(nullptr); };
        nlohmann::json where{{"file", e.where().file},
                             {"line", known(e.where().line)},
                             {"column", known(e.where().column)},
                             {"key", e.key()},
                             {"message", e.message()}};
        std::cout << nlohmann::json{{"ok", false}, {"errors", {where}}, {"warnings", warnings}}.dump(2)
                  << "\n";
      }
      throw;  // the line on stderr and exit status 2, as without --json
    }
  });
}

}  // namespace campaign::cli
