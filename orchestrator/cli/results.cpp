// `campaign results [FILE|WORKDIR] [--case GLOB] [--only KEY=VALUE] [--format table|csv|json]`: the
// per-case results table, one row per case (its latest attempt) with the parameters that tell the
// cases apart and every collected metric, as JUBE's result table or ReFrame's perflog give it: for a
// spreadsheet or pandas without writing an analysis. A metric with several values (per epoch, per instance,
// samples) shows their mean in the table and CSV; JSON gives its count, mean, min, max and last value too.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/table.hpp"
#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "report/input.hpp"
#include "report/writers.hpp"
#include "util/columns.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

struct Summary {
  std::string unit;
  std::size_t n = 0;
  double sum = 0, min = 0, max = 0, last = 0;
  void add(double v) {
    min = n == 0 ? v : std::min(min, v);
    max = n == 0 ? v : std::max(max, v);
    sum += v, last = v, ++n;
  }
  double mean() const { return n ? sum / static_cast<double>(n) : std::nan(""); }
};

struct Row {
  std::string campaign, system, name, step, state, job_id;
  std::map<std::string, std::string> tags;  // the run's (run --tag)
  int attempt = 0;
  std::optional<std::int64_t> elapsed_s;
  nlohmann::json params;
  std::map<std::string, Summary> metrics;
};

std::string param_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Exact where a double allows (as the report's CSV): a results table is read by programs.
std::string number(double v) { return std::isnan(v) ? "" : analysis::format_exact(v); }

}  // namespace

void add_results(CLI::App& app) {
  struct Options {
    std::string target, system, workdir, format = "table";
    bool all = false;
    SelectOptions select;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "results",
      "The per-case results table: one row per case (its latest attempt) with the parameters that differ "
      "between cases (JSON: every parameter) and every collected metric (a metric with several values: "
      "their mean), as a table, CSV or JSON");
  cmd->add_option("TARGET", o->target, "Campaign file or work directory (default: the current directory)");
  cmd->add_option("-s,--system", o->system, "System profile, as for run (with a campaign file)");
  cmd->add_option("-w,--workdir", o->workdir, "Work directory, as for run (with a campaign file)");
  cmd->add_option("-f,--format", o->format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_flag("--all", o->all, "Also the cases the campaign file no longer lists (kept in the catalog)");
  add_select_options(*cmd, o->select, "listed");
  cmd->callback([o] {
    const matrix::Selection selection = selection_of(o->select, "campaign results");
    const fs::path workdir = reading_workdir(o->target, o->system, o->workdir);
    require_catalog(workdir);
    Catalog catalog = Catalog::open_for_reading(workdir);

    std::vector<Row> rows;
    std::vector<std::string> param_names, metric_names;  // in first-seen order / sorted
    std::set<std::string> seen_params, seen_metrics;
    const std::set<std::int64_t> choice = chosen_cases(catalog, selection, o->all, "campaign results");
    for (auto& c : catalog.campaigns()) {
      std::map<std::int64_t, const CaseRecord*> chosen;
      std::map<std::string, nlohmann::json> first_value;  // a parameter's value in the first case
      std::set<std::string> varying;
      auto cases = catalog.cases_of(c.id);
      for (auto& k : cases) {
        if (!k.in_spec && !o->all) continue;
        if (choice.count(k.id)) chosen[k.id] = &k;
        for (auto& [name, v] : k.params.items())
          if (auto [it, first] = first_value.emplace(name, v); !first && it->second != v)
            varying.insert(name);
      }
      // The table's columns: the parameters that tell the campaign's cases apart (the matrix's axes and
      // what follows from them), not the ones every case shares (its name, directories, system).
      for (auto& [name, v] : first_value)
        if (varying.count(name) && seen_params.insert(name).second) param_names.push_back(name);
      std::map<std::int64_t, std::size_t> row_of_attempt;
      for (auto& a : catalog.latest_attempts(c.id)) {
        auto k = chosen.find(a.case_id);
        if (k == chosen.end()) continue;
        Row r{c.name,   c.system, a.case_name, a.step,      std::string(to_string(a.state)),
              a.job_id, c.tags,   a.number,    a.elapsed_s, k->second->params,
              {}};
        row_of_attempt[a.id] = rows.size();
        rows.push_back(std::move(r));
      }
      for (auto& s : catalog.metric_series_of(c.id)) {
        auto at = row_of_attempt.find(s.attempt_id);
        if (at == row_of_attempt.end()) continue;  // an earlier attempt's
        Summary& m = rows[at->second].metrics[s.name];
        m.unit = s.unit;
        for (double v : s.values) m.add(v);
        seen_metrics.insert(s.name);
      }
    }
    metric_names.assign(seen_metrics.begin(), seen_metrics.end());
    std::set<std::string> campaigns;
    for (auto& r : rows) campaigns.insert(r.campaign);
    const bool several = campaigns.size() > 1;  // one catalog can hold several campaigns
    const bool tagged = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.tags.empty(); });

    if (o->format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (auto& r : rows) {
        nlohmann::json j{{"campaign", r.campaign}, {"system", r.system}, {"case", r.name},
                         {"step", r.step},         {"params", r.params}, {"state", r.state},
                         {"attempt", r.attempt},   {"job_id", r.job_id}, {"tags", r.tags}};
        if (r.elapsed_s) j["elapsed_s"] = *r.elapsed_s;
        j["metrics"] = nlohmann::json::object();
        for (auto& [name, m] : r.metrics) {
          auto value = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
          j["metrics"][name] = {{"value", value(m.mean())}, {"unit", m.unit},      {"n", m.n},
                                {"min", value(m.min)},      {"max", value(m.max)}, {"last", value(m.last)}};
        }
        out.push_back(std::move(j));
      }
      std::cout << out.dump(2) << "\n";
      return;
    }

    // The table and CSV: fixed columns, the parameters, the metrics (a unit in the table's header only:
    // CSV headers stay names a program can look up).
    std::vector<std::string> header;
    if (several) header.push_back("campaign");
    header.insert(header.end(), {"case", "step"});
    header.insert(header.end(), param_names.begin(), param_names.end());
    header.insert(header.end(), {"state", "attempt", "job", "elapsed_s"});
    if (tagged) header.push_back("tags");
    std::map<std::string, std::string> units;
    for (auto& r : rows)
      for (auto& [name, m] : r.metrics)
        if (!m.unit.empty()) units[name] = m.unit;
    const std::size_t first_metric = header.size();
    header.insert(header.end(), metric_names.begin(), metric_names.end());
    std::vector<std::vector<std::string>> table;
    // The metrics' values as doubles beside the text (the table rounds them to 6 digits, CSV keeps them
    // exact): one value, formatted once per output, never read back from its own text.
    std::vector<std::vector<double>> values;
    for (auto& r : rows) {
      std::vector<std::string> line;
      if (several) line.push_back(r.campaign);
      line.insert(line.end(), {r.name, r.step});
      for (auto& p : param_names) line.push_back(r.params.contains(p) ? param_text(r.params[p]) : "");
      line.insert(line.end(), {r.state, std::to_string(r.attempt), r.job_id,
                               r.elapsed_s ? std::to_string(*r.elapsed_s) : ""});
      if (tagged) line.push_back(report::describe_tags(r.tags));
      std::vector<double>& v = values.emplace_back();
      for (auto& name : metric_names) {
        auto m = r.metrics.find(name);
        v.push_back(m == r.metrics.end() ? std::nan("") : m->second.mean());
      }
      table.push_back(std::move(line));
    }
    if (o->format == "csv") {
      auto csv_line = [](const std::vector<std::string>& fields) {
        std::vector<std::string> quoted;
        for (auto& f : fields) quoted.push_back(report::detail::csv_field(f));
        return join(quoted, ",");
      };
      std::cout << csv_line(header) << "\n";
      for (std::size_t i = 0; i < table.size(); ++i) {
        for (double v : values[i]) table[i].push_back(number(v));
        std::cout << csv_line(table[i]) << "\n";
      }
      return;
    }
    for (std::size_t i = first_metric; i < header.size(); ++i)
      if (auto u = units.find(header[i]); u != units.end()) header[i] += " [" + u->second + "]";
    std::vector<bool> right(header.size());
    for (std::size_t i = first_metric; i < header.size(); ++i) right[i] = true;
    for (std::size_t i = 0; i < table.size(); ++i)
      for (double v : values[i]) table[i].push_back(std::isnan(v) ? "" : fmt::format("{:.6g}", v));
    table.insert(table.begin(), header);
    std::cout << format_columns(table, right);
    if (rows.empty()) std::cout << "(no case)\n";
  });
}

}  // namespace campaign::cli
