// A plan as the catalog records it: the campaign's row and one row per case, with the run
// directory and script path each case's jobs use. `run` (engine) and `import` (collect) record
// plans the same way through these.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matrix/plan.hpp"

namespace campaign::render {

CampaignRow campaign_row(const matrix::Plan& plan, const std::filesystem::path& workdir);

// What a case runs, as the catalog keeps it (CaseRow::definition): its command, setup, modules,
// environment and container, its partition and resources.
nlohmann::json case_definition(const matrix::Plan& plan, const matrix::Case& c);
// What differs between two definitions, one "field: before -> after" per field, in the order of
// `after` (then fields only `before` had).
std::vector<std::string> definition_changes(const std::string& before, const std::string& after);

// `run_dir_of` (optional) says where a case ran; default workdir/<case name>.
std::vector<CaseRow> case_rows(const matrix::Plan& plan, const std::filesystem::path& workdir,
                               const std::function<std::string(const matrix::Case&)>& run_dir_of = {});
// Moves a row to another run directory (its script with it), as case_rows with that run_dir_of.
void set_run_dir(CaseRow& row, std::string run_dir);

}  // namespace campaign::render
