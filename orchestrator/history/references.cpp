// Implements history/references.hpp.
#include "history/references.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/scaling.hpp"
#include "history/verdicts.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace campaign::history {

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::within:
      return "within";
    case Bound::below:
      return "below";
    case Bound::above:
      return "above";
    case Bound::missing:
      return "missing";
  }
  return "";
}

std::optional<double> ReferenceCheck::low() const {
  if (!reference.lower) return std::nullopt;
  return reference.value * (1 + *reference.lower);
}

std::optional<double> ReferenceCheck::high() const {
  if (!reference.upper) return std::nullopt;
  return reference.value * (1 + *reference.upper);
}

namespace {

// The cases of `system`: those whose `system` parameter names it (all of them when `only` is set).
std::vector<analysis::CaseResult> cases_of(const std::vector<analysis::CaseResult>& cases,
                                           const std::string& system, const std::string& only) {
  if (!only.empty()) return only == system ? cases : std::vector<analysis::CaseResult>{};
  std::vector<analysis::CaseResult> out;
  for (auto& c : cases)
    if (auto it = c.params.find("system"); it != c.params.end() && it->second == system) out.push_back(c);
  return out;
}

// The bands are closed; a value exactly on a bound is within.
Bound judge(const ReferenceCheck& c) {
  if (!c.measured) return Bound::missing;
  if (auto lo = c.low(); lo && *c.measured < *lo) return Bound::below;
  if (auto hi = c.high(); hi && *c.measured > *hi) return Bound::above;
  return Bound::within;
}

// A YAML double-quoted scalar.
std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string percent(std::optional<double> f) {
  if (!f) return "open";
  return fmt::format("{:+g}%", *f * 100);
}

// The analyses as one system's run sees them: a comparison or ratio across systems has one side
// there, so each system's values are its own columns (`times`, not `times_SYSTEM`).
std::vector<analysis::AnalysisSpec> one_system(std::vector<analysis::AnalysisSpec> specs) {
  for (auto& s : specs) {
    if (s.compare && s.compare->axis == "system") s.compare.reset();
    if (s.ratio && s.ratio->axis == "system") s.ratio.reset();
  }
  return specs;
}

}  // namespace

ReferenceSummary check_references(const std::vector<spec::Reference>& references,
                                  const std::vector<analysis::AnalysisSpec>& specs,
                                  const std::vector<analysis::CaseResult>& cases, const std::string& system) {
  ReferenceSummary out;
  std::map<std::string, std::pair<std::vector<analysis::CaseResult>, std::vector<analysis::AnalysisResult>>>
      runs;
  for (auto& r : references) {
    auto it = runs.find(r.system);
    if (it == runs.end()) {
      auto mine = cases_of(cases, r.system, system);
      auto analyses = analysis::analyze_all(one_system(specs), mine);
      it = runs.emplace(r.system, std::make_pair(std::move(mine), std::move(analyses))).first;
    }
    const auto& [mine, analyses] = it->second;
    if (!system.empty() && r.system != system) continue;  // another system's: not this run's to meet
    if (system.empty() && mine.empty()) continue;         // a system the campaign did not run on
    Extraction ex = extract(parse_metric(r.metric), analyses, mine);
    if (ex.values.empty()) {
      ReferenceCheck c{r, "", std::nullopt, ex.problem.empty() ? "no value" : ex.problem, Bound::missing};
      out.checks.push_back(std::move(c));
    } else {
      for (auto& [series, m] : ex.values) {
        ReferenceCheck c{r, ex.values.size() > 1 ? series : "", m.value, "", Bound::missing};
        c.verdict = judge(c);
        out.checks.push_back(std::move(c));
      }
    }
  }
  out.checked = out.checks.size();
  for (auto& c : out.checks) out.out += c.verdict != Bound::within;
  return out;
}

analysis::AnalysisResult reference_table(const ReferenceSummary& summary) {
  analysis::AnalysisResult a;
  a.spec.name = "references";
  a.spec.x = "system";
  a.spec.description =
      "Each value of the campaign's `reference:` against its band, value x (1 + lower) to value x (1 + "
      "upper): "
      "within, below, above, or missing (the run has no such value).";
  analysis::Table t;
  t.analysis = "references";
  t.x = "system";
  t.columns = {"system", "metric", "series", "measured", "reference",
               "lower",  "upper",  "low",    "high",     "verdict"};
  for (auto& c : summary.checks) {
    auto num = [](std::optional<double> v) { return v ? analysis::Cell(*v) : analysis::Cell(); };
    t.rows.push_back({c.reference.system, c.reference.metric, c.series, num(c.measured), c.reference.value,
                      percent(c.reference.lower), percent(c.reference.upper), num(c.low()), num(c.high()),
                      std::string(to_string(c.verdict)) + (c.problem.empty() ? "" : ": " + c.problem)});
  }
  a.tables.push_back(std::move(t));
  a.notes.push_back(
      fmt::format("{} of {} values within their bounds", summary.checked - summary.out, summary.checked));
  return a;
}

void print_reference_summary(const ReferenceSummary& summary, std::ostream& os) {
  os << "references: " << summary.checked - summary.out << " of " << summary.checked
     << " values within their bounds\n";
  for (auto& c : summary.checks) {
    if (c.verdict == Bound::within) continue;
    os << "  " << c.reference.system << ": " << c.reference.metric
       << (c.series.empty() ? "" : " [" + c.series + "]");
    if (!c.measured) {
      os << ": missing (" << c.problem << ")\n";
      continue;
    }
    os << fmt::format(" = {:g}, {} its band [{}, {}] (reference {:g}, {} / {})\n", *c.measured,
                      c.verdict == Bound::below ? "below" : "above",
                      c.low() ? fmt::format("{:g}", *c.low()) : std::string("-inf"),
                      c.high() ? fmt::format("{:g}", *c.high()) : std::string("inf"), c.reference.value,
                      percent(c.reference.lower), percent(c.reference.upper));
  }
}

std::vector<spec::Reference> references_from(const std::vector<std::string>& metrics,
                                             const std::string& system,
                                             const std::vector<analysis::AnalysisSpec>& specs,
                                             const std::vector<analysis::CaseResult>& cases,
                                             double tolerance) {
  auto analyses = analysis::analyze_all(one_system(specs), cases);
  std::vector<spec::Reference> out;
  for (auto& text : metrics) {
    MetricQuery q = parse_metric(text);
    Extraction ex = extract(q, analyses, cases);
    if (ex.values.empty())
      throw InputError(Location{"--metric"}, text, ex.problem.empty() ? "no value in the run" : ex.problem);
    for (auto& [series, m] : ex.values) {
      spec::Reference r;
      r.system = system;
      r.metric = text;
      if (ex.values.size() > 1) {
        // A table's series is its group and row ("partition=gpu, ranks=4"): conditions that pick it.
        if (series.find('=') == std::string::npos)
          throw InputError(Location{"--metric"}, text,
                           fmt::format("{} series in the run ({}): add conditions that pick one (@KEY=VALUE)",
                                       ex.values.size(), series));
        std::string conditions;
        for (auto& part : split(series, ',')) conditions += (conditions.empty() ? "" : ",") + trim(part);
        r.metric = text + (q.conditions.empty() ? "@" : ",") + conditions;
      }
      r.value = m.value;
      double spread = m.std && m.value != 0 ? 3 * *m.std / std::fabs(m.value) : 0;
      const double band = std::max(tolerance, spread);
      r.lower = -band;
      r.upper = band;
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::string references_yaml(const std::vector<spec::Reference>& references) {
  std::ostringstream os;
  os << "# References per system: METRIC: {value, lower, upper} (bounds as fractions of the value;\n"
        "# `campaign reference set` wrote these, edit freely). A run outside a band makes report exit 3.\n";
  std::string system;
  for (auto& r : references) {
    if (r.system != system) os << yaml_quote(r.system) << ":\n", system = r.system;
    os << "  " << yaml_quote(r.metric) << ": {value: " << analysis::format_exact(r.value);
    if (r.lower) os << ", lower: " << analysis::format_exact(*r.lower);
    if (r.upper) os << ", upper: " << analysis::format_exact(*r.upper);
    os << "}\n";
  }
  return os.str();
}

}  // namespace campaign::history
