// The data-stall components of a run's page: for each `scaling: stalls`
// analysis of the run's campaign, DS-Analyzer's summary table of its cases,
// the what-if iteration times as grouped bars (a case per group, a fetch /
// start alignment per bar, ± std), each case's what-if table, and the cases
// left out with their reasons (analysis/stalls.hpp computes them all).
//
// Invariant: drawn here as plain SVG, like the rest of the site: no gnuplot,
// no script; every text goes through esc().
#pragma once

#include <string>
#include <vector>

#include "analysis/table.hpp"
#include "catalog/catalog.hpp"
#include "history/runs.hpp"

namespace campaign::site {

// The stalls analyses of `run` (its own campaign text) over its catalog; none when the campaign has
// none or does not parse.
std::vector<analysis::AnalysisResult> run_stalls(Catalog& catalog, const history::Run& run);

// The HTML of those analyses ("" when there are none).
std::string stalls_html(const std::vector<analysis::AnalysisResult>& stalls);

// Grouped bars of the what-if plot table (x = case; per series a mean column and its _std).
std::string whatif_svg(const analysis::Table& plot);

}  // namespace campaign::site
