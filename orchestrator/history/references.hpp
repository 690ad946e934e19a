// References per system (issue 34): the values a campaign's runs must reach on each system, with
// bounds (`reference:`, spec::Reference), checked against a run as ReFrame checks its references:
// a value in [value * (1 + lower), value * (1 + upper)] is within; outside, or a metric the run does
// not have, is out. `campaign reference set --from RUN` writes them from a run (its values, bounds
// from their spread when it had repetitions).
//
// Invariant: pure functions of the references and the run's cases (its analyses are computed from
// them here), so every rule is tested on hand-made cases.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"
#include "spec/analyses.hpp"
#include "spec/campaign.hpp"

namespace campaign::history {

enum class Bound { within, below, above, missing };
std::string_view to_string(Bound b);  // "within", "below", "above", "missing"

struct ReferenceCheck {
  spec::Reference reference;
  std::string series;              // the series of the metric ("" when one)
  std::optional<double> measured;  // absent: `problem` says why
  std::string problem;
  Bound verdict = Bound::missing;
  std::optional<double> low() const;   // value * (1 + lower)
  std::optional<double> high() const;  // value * (1 + upper)
};

struct ReferenceSummary {
  std::vector<ReferenceCheck> checks;
  size_t checked = 0, out = 0;  // out: below, above or missing
};

// Each reference of `references` against the cases of its system: `cases` are one run's, of one
// system (`system` given: every case is of it) or of several (`system` empty: a case's `system`
// parameter says which); the analyses `specs` are computed per system.
ReferenceSummary check_references(const std::vector<spec::Reference>& references,
                                  const std::vector<analysis::AnalysisSpec>& specs,
                                  const std::vector<analysis::CaseResult>& cases,
                                  const std::string& system = "");

// The checks as a report table ("references": system, metric, series, measured, reference, low, high,
// verdict), for every format of the report.
analysis::AnalysisResult reference_table(const ReferenceSummary& summary);

// "references: 3 of 4 within their bounds; out: ..." with each value that left its band.
void print_reference_summary(const ReferenceSummary& summary, std::ostream& os);

// A reference for each series of each metric, from one run: the value measured, the bounds
// +-max(tolerance, 3 standard deviations of its repetitions) as fractions (`tolerance` when it had
// none). A metric the run lacks is an InputError naming it.
std::vector<spec::Reference> references_from(const std::vector<std::string>& metrics,
                                             const std::string& system,
                                             const std::vector<analysis::AnalysisSpec>& specs,
                                             const std::vector<analysis::CaseResult>& cases,
                                             double tolerance);
// As YAML a campaign's `reference:` file holds.
std::string references_yaml(const std::vector<spec::Reference>& references);

}  // namespace campaign::history
