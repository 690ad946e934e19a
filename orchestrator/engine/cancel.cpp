// `campaign cancel`'s choice (decide.hpp choose_cancel): what ends, how, and what is refused.
#include <map>

#include "engine/decide.hpp"
#include "engine/rules.hpp"
#include "util/strings.hpp"

namespace campaign::engine {

namespace {

bool cancellable(const AttemptRow& a) {
  return a.state == State::planned || (is_active(a.state) && !a.job_id.empty());
}
bool packed(const AttemptRow& a) { return cancellable(a) && !a.step_name.empty() && !a.job_id.empty(); }

std::set<std::int64_t> chosen_of(const std::vector<AttemptRow>& latest,
                                 const std::set<std::int64_t>& matched) {
  std::set<std::int64_t> chosen;
  for (auto& a : latest)
    if (cancellable(a) && matched.count(a.id)) chosen.insert(a.id);
  return chosen;
}

// Allocation -> its active cases not chosen.
std::map<std::string, std::vector<const AttemptRow*>> others_of(const std::vector<AttemptRow>& latest,
                                                                const std::set<std::int64_t>& chosen) {
  std::map<std::string, std::vector<const AttemptRow*>> others;
  for (auto& a : latest)
    if (packed(a) && !chosen.count(a.id)) others[a.job_id].push_back(&a);
  return others;
}

}  // namespace

std::vector<std::string> cancel_partial(const std::vector<AttemptRow>& latest,
                                        const std::set<std::int64_t>& matched) {
  const auto chosen = chosen_of(latest, matched);
  const auto others = others_of(latest, chosen);
  std::set<std::string> partial;
  for (auto& a : latest)
    if (packed(a) && chosen.count(a.id) && others.count(a.job_id)) partial.insert(a.job_id);
  return {partial.begin(), partial.end()};
}

CancelChoice choose_cancel(const std::vector<AttemptRow>& latest, const std::set<std::int64_t>& matched,
                           const std::optional<std::vector<sched::StepInfo>>& steps) {
  CancelChoice out;
  auto chosen = chosen_of(latest, matched);
  const auto others = others_of(latest, chosen);
  const auto partial_list = cancel_partial(latest, matched);
  const std::set<std::string> partial(partial_list.begin(), partial_list.end());
  std::map<std::int64_t, std::string> own_step;  // chosen packed attempt -> its running step
  std::map<std::int64_t, std::string> along;     // attempt -> why it goes with a chosen one
  for (auto& a : latest) {
    if (!chosen.count(a.id) || !packed(a) || !partial.count(a.job_id)) continue;
    const auto& beside = others.at(a.job_id);
    if (!steps) {
      for (auto* o : beside)
        if (chosen.insert(o->id).second)
          along[o->id] =
              o->case_name + ": cancelled with its allocation " + a.job_id + " (a case of it matched)";
      continue;
    }
    for (auto& st : *steps)
      if (st.job_id == a.job_id && st.name == a.step_name) own_step[a.id] = st.step_id;
    if (!own_step.count(a.id)) {
      std::vector<std::string> names;
      for (auto* o : beside) names.push_back(o->case_name);
      out.refused.push_back(a.case_name + " (allocation " + a.job_id + ", beside " + join(names, ", ") + ")");
    }
  }
  if (!out.refused.empty()) return out;
  for (auto& a : latest)
    if (a.state == State::completed && !a.confirmed && a.cause != Cause::user && matched.count(a.id)) {
      JobUpdate u;
      u.cause = Cause::user;
      out.actions.marks.push_back({a.id, State::completed, u, "", "", false});
    }
  std::set<std::string> ids;
  for (auto& a : latest) {
    if (!chosen.count(a.id)) continue;
    ++out.cancelled;
    JobUpdate u;
    u.reason = "cancelled by the user";
    if (auto step = own_step.find(a.id); step != own_step.end())
      ids.insert(step->second);
    else if (!a.job_id.empty())
      ids.insert(a.job_id);
    auto why = along.find(a.id);
    out.actions.marks.push_back({a.id, State::cancelled, u, "",
                                 why == along.end() ? std::string() : why->second, why != along.end()});
  }
  out.actions.cancel.assign(ids.begin(), ids.end());
  return out;
}

}  // namespace campaign::engine
