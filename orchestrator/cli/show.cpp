// `campaign show [FILE|WORKDIR] CASE [--json] [--lines N]`: everything the catalog knows of one case
// (its parameters, what it runs, every attempt with its job, times, nodes and reason, the latest
// attempt's metrics) and the tail of its job's output. Reads the catalog as `status` does, without
// the writer lock.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "collect/attempt.hpp"
#include "report/input.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

// The last `n` lines of `path` ("" when it cannot be read).
std::vector<std::string> tail_of(const fs::path& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(std::move(line));
    if (lines.size() > n) lines.erase(lines.begin());
  }
  return lines;
}

nlohmann::json attempt_json(const AttemptRow& a) {
  nlohmann::json j{{"attempt", a.number},    {"state", to_string(a.state)}, {"job_id", a.job_id},
                   {"job_name", a.job_name}, {"reason", a.reason},          {"node_list", a.node_list}};
  auto time = [&](const char* key, const std::optional<Time>& t) {
    if (t) j[key] = report::format_utc(*t);
  };
  time("submitted", a.submitted);
  time("started", a.started);
  time("ended", a.ended);
  if (a.elapsed_s) j["elapsed_s"] = *a.elapsed_s;
  if (a.exit_code) j["exit_code"] = *a.exit_code;
  if (a.nodes) j["nodes"] = *a.nodes;
  if (!a.step_name.empty()) j["step_name"] = a.step_name;
  if (a.array_task) j["array_task"] = *a.array_task;
  return j;
}

// One case: its JSON (with `json`), else its text on stdout (and null).
nlohmann::json show_case(Catalog& catalog, const CampaignRecord& c, const CaseRecord& k, bool json,
                         size_t lines) {
  auto attempts = catalog.attempts_of_case(k.id);
  const AttemptRow& latest = attempts.back();
  auto metrics = catalog.metrics_of_attempt(latest.id);
  const fs::path output = collect::job_output(latest.run_dir, latest.job_id, latest.step_name);
  auto tail = output.empty() ? std::vector<std::string>{} : tail_of(output, lines);
  if (json) {
    nlohmann::json j{{"campaign", c.name},   {"system", c.system},   {"case", k.name},
                     {"step", k.step},       {"key", k.key},         {"params", k.params},
                     {"run_dir", k.run_dir}, {"in_file", k.in_spec}, {"tags", c.tags}};
    if (!k.definition.empty()) j["definition"] = nlohmann::json::parse(k.definition, nullptr, false);
    j["attempts"] = nlohmann::json::array();
    for (auto& a : attempts) j["attempts"].push_back(attempt_json(a));
    j["metrics"] = nlohmann::json::array();
    for (auto& m : metrics) {
      nlohmann::json mj{{"name", m.name}, {"value", m.value}, {"unit", m.unit}};
      if (m.step) mj["step"] = *m.step;
      if (m.instance) mj["instance"] = *m.instance;
      j["metrics"].push_back(mj);
    }
    if (!output.empty()) j["output"] = {{"file", output.string()}, {"tail", tail}};
    return j;
  }
  std::cout << "case " << k.name << (k.step.empty() ? "" : " (step " + k.step + ")") << " of campaign "
            << c.name << " on " << c.system << (k.in_spec ? "" : " (no longer in the campaign file)") << "\n";
  if (!c.tags.empty()) std::cout << "tags " << report::describe_tags(c.tags) << "\n";
  std::cout << "run directory " << k.run_dir << "\n";
  std::vector<std::string> params;
  for (auto& [name, v] : k.params.items())
    params.push_back(name + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  std::cout << "parameters " << join(params, ", ") << "\n";
  if (auto d = nlohmann::json::parse(k.definition.empty() ? "{}" : k.definition, nullptr, false);
      d.is_object() && d.contains("command"))
    std::cout << "command " << d["command"].get<std::string>() << "\n";
  std::cout << "\nattempts\n";
  for (auto& a : attempts) {
    std::cout << "  #" << a.number << " " << to_string(a.state);
    if (!a.job_id.empty()) std::cout << ", job " << a.job_id;
    if (a.submitted) std::cout << ", submitted " << report::format_utc(*a.submitted);
    if (a.started) std::cout << ", started " << report::format_utc(*a.started);
    if (a.elapsed_s) std::cout << ", ran " << format_hms(static_cast<long>(*a.elapsed_s));
    if (a.exit_code && *a.exit_code) std::cout << ", exit " << *a.exit_code;
    if (!a.node_list.empty()) std::cout << ", on " << a.node_list;
    if (!a.reason.empty()) std::cout << ": " << a.reason;
    std::cout << "\n";
  }
  if (!metrics.empty()) {
    std::map<std::string, std::vector<double>> by_name;
    for (auto& m : metrics) by_name[m.name].push_back(m.value);
    std::cout << "\nmetrics of attempt " << latest.number << "\n";
    for (auto& [name, values] : by_name)
      std::cout << "  " << name << ": "
                << (values.size() == 1 ? fmt::format("{:g}", values[0])
                                       : std::to_string(values.size()) + " values, last " +
                                             fmt::format("{:g}", values.back()))
                << "\n";
  }
  if (!output.empty()) {
    std::cout << "\n" << output.string() << " (last " << tail.size() << " lines)\n";
    for (auto& line : tail) std::cout << "  " << line << "\n";
  }
  return nullptr;
}

}  // namespace

void add_show(CLI::App& app) {
  struct Options {
    std::string target, name, system, workdir;
    bool json = false;
    size_t lines = 20;
    SelectOptions select;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "show",
      "Show one case (or each case --case/--only choose): its parameters and definition, every attempt "
      "(job, times, nodes, reason), the latest attempt's metrics and the tail of its job's output");
  cmd->add_option("TARGET", o->target, "Campaign file or work directory")->required();
  cmd->add_option("CASE", o->name, "The case's name (as status prints it); or choose with --case/--only");
  cmd->add_option("-s,--system", o->system, "System profile, as for run (with a campaign file)");
  cmd->add_option("-w,--workdir", o->workdir, "Work directory, as for run (with a campaign file)");
  cmd->add_option("-n,--lines", o->lines, "Lines of the job's output to show")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON (an object; with --case/--only an array, one per case)");
  add_select_options(*cmd, o->select, "shown, in status's order");
  cmd->callback([o] {
    const matrix::Selection selection = selection_of(o->select, "campaign show");
    if (o->name.empty() == selection.empty())
      throw InputError({"campaign show"}, "CASE",
                       selection.empty() ? "name a case, or choose cases with --case or --only"
                                         : "name a case or choose with --case/--only, not both");
    const fs::path workdir = reading_workdir(o->target, o->system, o->workdir);
    require_catalog(workdir);
    Catalog catalog = Catalog::open_for_reading(workdir);
    if (!selection.empty()) {
      const std::set<std::int64_t> chosen = chosen_cases(catalog, selection, true, "campaign show");
      nlohmann::json all = nlohmann::json::array();
      bool first = true;
      for (auto& c : catalog.campaigns())
        for (auto& k : catalog.cases_of(c.id)) {
          if (!chosen.count(k.id)) continue;
          if (!o->json && !first) std::cout << "\n";
          first = false;
          auto j = show_case(catalog, c, k, o->json, o->lines);
          if (o->json) all.push_back(std::move(j));
        }
      if (o->json) std::cout << all.dump(2) << "\n";
      return;
    }
    std::vector<std::string> names;
    for (auto& c : catalog.campaigns())
      for (auto& k : catalog.cases_of(c.id)) {
        names.push_back(k.name);
        if (k.name != o->name) continue;
        auto j = show_case(catalog, c, k, o->json, o->lines);
        if (o->json) std::cout << j.dump(2) << "\n";
        return;
      }
    throw InputError({"campaign show"}, "CASE", "no case '" + o->name + "'" + did_you_mean(o->name, names));
  });
}

}  // namespace campaign::cli
