// `campaign import`: adopting runs done elsewhere, and recording a campaign
// and its cases in the catalog (as `run` does).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "collect/attempt.hpp"
#include "matrix/plan.hpp"

namespace campaign::collect {

struct ImportSummary {
  size_t found = 0, absent = 0, collected = 0, failed = 0, already = 0;
  std::vector<std::string> errors;  // "case: reason"
};

// Each case whose run directory (named by the campaign's case_name) is under
// `from` (directly, or one level down, e.g.
// results/weak_scaling/<timestamp>/scaling-gpu-n8) becomes a completed case
// and is collected; absent ones stay planned. Cases already completed are
// left alone. `code` is the code version recorded (history/code_version.hpp).
ImportSummary import_runs(Catalog& catalog, const matrix::Plan& plan, const std::filesystem::path& workdir,
                          const std::filesystem::path& from, const StepCollectors& collectors,
                          const CodeRecord& code = {}, const std::string& output = {});

// Records the campaign and syncs its cases (as `run` does); returns its id.
std::int64_t sync_campaign(Catalog& catalog, const matrix::Plan& plan, const std::filesystem::path& workdir,
                           const CodeRecord& code,
                           const std::function<std::string(const matrix::Case&)>& run_dir_of = {});

}  // namespace campaign::collect
