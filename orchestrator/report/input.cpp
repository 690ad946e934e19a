// Implements report/input.hpp.
#include "report/input.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <utility>

#include "analysis/scaling.hpp"
#include "report/usage.hpp"
#include "util/beside.hpp"
#include "util/strings.hpp"

namespace campaign::report {

std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::set<std::string>& metrics,
                                               const std::set<std::string>& sampled) {
  return case_results(catalog, campaign_id, catalog.latest_attempts(campaign_id), metrics, sampled);
}

std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::vector<AttemptRow>& latest,
                                               const std::set<std::string>& metrics,
                                               const std::set<std::string>& sampled) {
  // Each case's parameters as stored, parsed one at a time (a tree per case of 100,000 is most of
  // the memory of a report).
  std::map<std::int64_t, std::string> params = catalog.case_params(campaign_id);
  std::map<std::int64_t, analysis::CaseResult> by_attempt;
  std::vector<std::pair<analysis::CaseResult*, const std::string*>> to_parse;
  for (auto& a : latest) {
    if (!a.in_spec) continue;
    analysis::CaseResult r;
    r.name = a.case_name;
    r.step = a.step;
    r.state = std::string(to_string(a.state));
    r.job_id = a.job_id;
    r.nodelist = a.node_list;
    analysis::CaseResult& in = by_attempt[a.id] = std::move(r);
    if (auto p = params.find(a.case_id); p != params.end()) to_parse.emplace_back(&in, &p->second);
  }
  // From 1,000 cases on, the parameters are parsed on a thread of their own while the series are
  // read below (a fifth of the time of 10,000 cases'): it writes each result's params only, the
  // reading its metrics only. Fewer are parsed here, after the series.
  Beside parsing(
      [&] {
        for (auto& [r, text] : to_parse) {
          const auto parsed = nlohmann::json::parse(*text);
          for (auto& [k, v] : parsed.items()) r->params[k] = v.is_string() ? v.get<std::string>() : v.dump();
        }
      },
      to_parse.size() >= 1000);
  auto sampled_name = [&](const std::string& name) {
    for (const auto& t : sampled)
      if (matches_template(t, name)) return true;
    return false;
  };
  std::set<std::string> wanted = metrics;
  if (!metrics.empty()) wanted.insert(sampled.begin(), sampled.end());
  catalog.for_each_series(campaign_id, wanted, [&](Catalog::Series&& series) {
    auto it = by_attempt.find(series.attempt_id);
    if (it == by_attempt.end()) return;  // an earlier attempt's metrics
    bool stepped =
        std::all_of(series.steps.begin(), series.steps.end(), [](auto& s) { return s.has_value(); });
    if (stepped && sampled_name(series.name)) {  // packed: 16 bytes a sample, not a MetricRow
      analysis::SampledSeries p{std::move(series.name), std::move(series.unit), {}, std::move(series.values)};
      p.steps.reserve(series.steps.size());
      for (auto& s : series.steps) p.steps.push_back(*s);
      it->second.sampled.push_back(std::move(p));
      return;
    }
    auto& out = it->second.metrics;
    out.reserve(out.size() + series.values.size());
    for (size_t i = 0; i < series.values.size(); ++i) {
      analysis::MetricRow row;
      row.name = series.name;
      if (series.steps[i]) row.step = static_cast<double>(*series.steps[i]);
      row.instance = series.instance;
      row.value = series.values[i];
      row.unit = series.unit;
      out.push_back(std::move(row));
    }
  });
  parsing.wait();
  std::vector<analysis::CaseResult> out;
  out.reserve(by_attempt.size());
  for (auto& a : latest) {
    auto it = by_attempt.find(a.id);
    if (it != by_attempt.end()) out.push_back(std::move(it->second));
  }
  return out;
}

void check_analyses(const matrix::Plan& plan, const collect::StepCollectors& collectors,
                    const std::map<std::string, std::vector<std::string>>& across) {
  analysis::CampaignNames names;
  for (const auto& step : plan.campaign.steps) {
    analysis::StepNames s{step.name, {}, {}, {}, false};
    auto sp =
        std::find_if(plan.steps.begin(), plan.steps.end(), [&](auto& p) { return p.name == step.name; });
    if (sp != plan.steps.end()) s = {step.name, sp->schema->names, sp->axes, {}, true};
    if (auto it = collectors.find(step.name); it != collectors.end())
      for (const auto& c : it->second)
        for (auto& m : collect::declared_metrics(c))
          if (std::find(s.metrics.begin(), s.metrics.end(), m) == s.metrics.end()) s.metrics.push_back(m);
    names.steps.push_back(std::move(s));
  }
  names.values = [&plan, &across](const std::string& step, const std::string& param) {
    if (auto it = across.find(param); it != across.end()) return it->second;
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& c : plan.cases) {
      const matrix::StepPlan& sp = plan.step_of(c);
      int k = sp.schema->find(param);
      if ((!step.empty() && sp.name != step) || k < 0) continue;
      const std::string& v = c.values[static_cast<size_t>(k)].text;
      if (seen.insert(v).second) out.push_back(v);
    }
    return out;
  };
  analysis::check_names(plan.campaign.analyses, names);
}

spec::Campaign stored_campaign(const CampaignRecord& record, const std::filesystem::path& workdir) {
  spec::Campaign c = spec::parse_campaign(record.spec_text, (workdir / (record.name + ".yaml")).string());
  return spec::for_system(c, record.system);
}

std::shared_ptr<const std::vector<analysis::AnalysisSpec>> stored_analyses(
    const CampaignRecord& record, const std::filesystem::path& workdir) {
  // The analyses depend on the text and the system only (their locations name the file, for
  // messages of checks that history and the site do not make).
  static std::map<std::pair<std::string, std::string>,
                  std::shared_ptr<const std::vector<analysis::AnalysisSpec>>>
      parsed;
  auto key = std::make_pair(record.spec_text, record.system);
  if (auto it = parsed.find(key); it != parsed.end()) return it->second;
  auto specs =
      std::make_shared<const std::vector<analysis::AnalysisSpec>>(stored_campaign(record, workdir).analyses);
  parsed.emplace(std::move(key), specs);
  return specs;
}

std::set<std::string> metrics_used(const std::vector<analysis::AnalysisSpec>& specs) {
  std::set<std::string> names;
  for (auto& s : specs) {
    names.insert(s.time.metric);
    if (s.stall) names.insert(s.stall->data), names.insert(s.stall->compute);
    if (s.scaling == analysis::Scaling::mlperf_weak)
      names.insert({analysis::kRunStartMs, analysis::kRunStopMs, analysis::kRunSuccess, analysis::kSeed});
    if (s.scaling == analysis::Scaling::mlperf_strong) names.insert(analysis::kRunSuccess);
    if (s.window) names.insert({s.window->start, s.window->end});
    if (s.scaling == analysis::Scaling::stalls)
      for (const char* m : analysis::kStallMetrics) names.insert(std::string(m) + ":rank{rank}");
  }
  return names;
}

std::set<std::string> sampled_used(const std::vector<analysis::AnalysisSpec>& specs) {
  std::set<std::string> names;
  for (auto& s : specs) {
    if (s.window) names.insert(s.window->series);
    if (s.scaling == analysis::Scaling::stalls)  // 8 ranks x 100,000 iterations: 5.6 million values
      for (const char* m : analysis::kStallMetrics) names.insert(std::string(m) + ":rank{rank}");
  }
  return names;
}

std::string case_in_report(const std::string& system, const std::string& name) { return system + "/" + name; }

ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t campaign_id,
                         const ReportRequest& request, std::ostream* terminal) {
  return make_report(catalog, campaign, std::vector<std::int64_t>{campaign_id}, request, terminal);
}

ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign,
                         const std::vector<std::int64_t>& campaign_ids, const ReportRequest& request,
                         std::ostream* terminal) {
  const auto& specs = campaign.analyses;
  std::map<std::int64_t, CampaignRecord> records;
  for (auto& c : catalog.campaigns()) records[c.id] = c;
  // Several systems' parts side by side: each case named SYSTEM/NAME, its `system` parameter telling
  // them apart in the tables (the analyses split or compare by it like any parameter), its work
  // directory (a place, not a parameter) left out.
  const bool several = campaign_ids.size() > 1;
  std::vector<analysis::CaseResult> cases;
  std::vector<CaseUsage> usage;
  for (auto id : campaign_ids) {
    const auto latest = catalog.latest_attempts(id);
    auto part = case_results(catalog, id, latest, metrics_used(specs), sampled_used(specs));
    auto part_usage = case_usage(catalog, id, latest);
    if (several) {
      for (auto& c : part) c.name = case_in_report(records[id].system, c.name), c.params.erase("workdir");
      for (auto& u : part_usage) u.case_name = case_in_report(records[id].system, u.case_name);
    }
    cases.insert(cases.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    usage.insert(usage.end(), std::make_move_iterator(part_usage.begin()),
                 std::make_move_iterator(part_usage.end()));
  }
  const size_t all_cases = cases.size();
  if (request.cases)
    std::erase_if(cases, [&](const analysis::CaseResult& c) { return !request.cases->count(c.name); });
  ReportInput input;
  if (request.cases)
    input.provenance.cases = request.chosen + ": " + std::to_string(cases.size()) + " of the " +
                             std::to_string(all_cases) + " cases";
  input.analyses = analysis::analyze_all(specs, cases);
  // What each case used beside its request, where the sampler recorded it (report/usage.hpp).
  mark_analyses(input.analyses, cases, usage);
  if (auto table = usage_table(usage, samples_of(specs, cases))) input.analyses.push_back(std::move(*table));
  if (request.extra)
    for (auto& a : request.extra(cases)) input.analyses.push_back(std::move(a));
  input.provenance.campaign = campaign.name;
  input.provenance.campaign_hash = campaign.sha256;
  std::vector<std::string> systems, versions, tags;
  for (auto id : campaign_ids)
    if (auto it = records.find(id); it != records.end()) {
      const CampaignRecord& c = it->second;
      systems.push_back(c.system);
      const std::string code = describe_code(c.code), tag = describe_tags(c.tags);
      if (std::find(versions.begin(), versions.end(), code) == versions.end()) versions.push_back(code);
      if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
    }
  input.provenance.system = join(systems, ", ");
  input.provenance.code_version = join(versions, "; ");
  input.provenance.tags = join(tags, "; ");
  add_runs(input.provenance, cases);
  // Failed cases outside any analysis are listed too.
  for (auto& c : cases)
    if (!analysis::usable_state(c.state)) {
      bool listed = false;
      for (auto& a : input.analyses)
        for (auto& e : a.excluded) listed |= e.case_name == c.name;
      if (!listed) input.failed.push_back(analysis::Excluded{c.name, c.state, "did not complete"});
    }
  if (terminal) print_tables(*terminal, input.analyses);
  if (request.formats.empty()) return {};
  return write_report(input, request.formats, request.out_dir);
}

std::string format_utc(Time t) {
  std::time_t tt = static_cast<std::time_t>(t.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string describe_tags(const std::map<std::string, std::string>& tags) {
  std::vector<std::string> parts;
  for (auto& [k, v] : tags) parts.push_back(v.empty() ? k : k + "=" + v);
  return join(parts, ", ");
}

std::string describe_code(const CodeRecord& code) {
  const std::string shortened = code.commit.substr(0, 10);
  const bool label_is_commit = !code.commit.empty() && code.version.rfind(shortened, 0) == 0;
  std::vector<std::string> parts;
  if (!code.version.empty() && !label_is_commit) parts.push_back(code.version);
  if (!code.commit.empty())
    parts.push_back("commit " + shortened + (code.date ? " of " + format_utc(*code.date) : "") +
                    (code.dirty ? " (modified)" : ""));
  return join(parts, ", ");
}

}  // namespace campaign::report
