#include "render/catalog_rows.hpp"

#include "render/script.hpp"

namespace fs = std::filesystem;

namespace campaign::render {

CampaignRow campaign_row(const matrix::Plan& plan, const fs::path& workdir) {
  CampaignRow row;
  row.name = plan.campaign.name;
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
    const auto& names = plan.step_of(c).schema->names;
    for (size_t i = 0; i < names.size(); ++i) r.params[names[i]] = c.values[i].text;
    r.run_dir = run_dir_of ? run_dir_of(c) : (workdir / c.name).string();
    r.script = (fs::path(r.run_dir) / kScriptName).string();
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace campaign::render
