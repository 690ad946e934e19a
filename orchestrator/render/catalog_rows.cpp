#include "render/catalog_rows.hpp"

#include <fmt/format.h>

#include <cmath>

#include "matrix/select.hpp"
#include "render/script.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::render {

nlohmann::json case_definition(const matrix::Plan& plan, const matrix::Case& c) {
  const auto& step = plan.step_of(c);
  const auto& job = step.job;
  nlohmann::json d;
  d["command"] = step.command.render(c.values, matrix::Escape::none);
  if (job.setup) d["setup"] = *job.setup;
  if (job.modules) d["modules"] = *job.modules;
  if (!job.env.empty()) d["env"] = job.env;
  if (job.container) d["container"] = job.container->image;
  d["partition"] = plan.partition_of(c).name;
  d["nodes"] = c.nodes;
  d["ranks"] = c.ranks;
  d["cpus_per_rank"] = c.cpus_per_rank;
  // Whole counts as integers, as they always were written (a definition compares by its text).
  if (c.gpus_per_rank == std::floor(c.gpus_per_rank))
    d["gpus_per_rank"] = static_cast<long>(c.gpus_per_rank);
  else
    d["gpus_per_rank"] = c.gpus_per_rank;
  if (c.instances != 1) d["instances"] = c.instances;
  d["walltime"] = format_hms(c.walltime_s);
  if (c.memory_mb) d["memory_mb"] = c.memory_mb;
  if (c.exclusive) d["exclusive"] = true;
  return d;
}

std::vector<std::string> definition_changes(const std::string& before, const std::string& after) {
  const auto b = nlohmann::json::parse(before, nullptr, false),
             a = nlohmann::json::parse(after, nullptr, false);
  if (b.is_discarded() || a.is_discarded() || !b.is_object() || !a.is_object()) return {"definition"};
  auto text = [](const nlohmann::json& v) {
    return v.is_string() ? fmt::format("'{}'", v.get<std::string>()) : v.dump();
  };
  std::vector<std::string> out;
  for (auto& [k, v] : a.items())
    if (!b.contains(k))
      out.push_back(fmt::format("{}: (none) -> {}", k, text(v)));
    else if (b[k] != v)
      out.push_back(fmt::format("{}: {} -> {}", k, text(b[k]), text(v)));
  for (auto& [k, v] : b.items())
    if (!a.contains(k)) out.push_back(fmt::format("{}: {} -> (none)", k, text(v)));
  return out;
}

CampaignRow campaign_row(const matrix::Plan& plan, const fs::path& workdir) {
  CampaignRow row;
  row.name = plan.campaign.catalog_name();
  row.spec_text = plan.campaign.text;
  row.spec_hash = plan.campaign.sha256;
  row.system = plan.system.name;
  row.workdir = workdir.string();
  return row;
}

std::vector<CaseRow> case_rows(const matrix::Plan& plan, const fs::path& workdir,
                               const std::function<std::string(const matrix::Case&)>& run_dir_of) {
  std::vector<CaseRow> rows;
  rows.reserve(plan.cases.size());
  for (auto& c : plan.cases) {
    CaseRow r;
    r.key = c.key;
    r.step = plan.step_of(c).name;
    r.name = c.name;
    r.params = matrix::case_params(plan, c);
    set_run_dir(r, run_dir_of ? run_dir_of(c) : (workdir / c.name).string());
    r.definition = case_definition(plan, c).dump();
    rows.push_back(std::move(r));
  }
  return rows;
}

void set_run_dir(CaseRow& row, std::string run_dir) {
  row.run_dir = std::move(run_dir);
  row.script = (fs::path(row.run_dir) / kScriptName).string();
}

}  // namespace campaign::render
