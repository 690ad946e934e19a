#include "trace/trace.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "sched/nodelist.hpp"
#include "util/strings.hpp"

namespace campaign::trace {

namespace {

using json = nlohmann::json;
using Us = std::int64_t;  // microseconds since the Unix epoch

Us us(Time t) { return static_cast<Us>(t.time_since_epoch().count()) * 1'000'000; }
Us us(double unix_seconds) { return std::llround(unix_seconds * 1e6); }

constexpr std::string_view kNoNode = "(no node)";

// The moments of one attempt, each no earlier than the one before it (the scheduler's clock and the
// catalog's may disagree by a second).
struct Moments {
  std::optional<Us> submitted, started, ended, collected;
  Us last = 0;  // its latest event: where a phase ends that was left without an end
};

bool is_collection(State s) { return s == State::collected || s == State::collect_failed; }

Moments moments_of(const AttemptRow& a, const std::vector<const EventRow*>& events) {
  auto first = [&](auto pred) -> std::optional<Us> {
    for (auto* e : events)
      if (e->to && pred(*e->to)) return us(e->time);
    return std::nullopt;
  };
  Moments m;
  m.submitted = a.submitted ? us(*a.submitted)
                            : first([](State s) { return s == State::submitting || s == State::queued; });
  m.started = a.started ? us(*a.started) : first([](State s) { return s == State::running; });
  m.ended = a.ended ? us(*a.ended) : first([](State s) { return is_final(s) && !is_collection(s); });
  m.collected = first(is_collection);
  for (auto* e : events) m.last = std::max(m.last, us(e->time));
  Us floor = std::numeric_limits<Us>::min();
  for (auto* t : {&m.submitted, &m.started, &m.ended, &m.collected})
    if (*t) floor = ** t = std::max(**t, floor);
  if (floor != std::numeric_limits<Us>::min()) m.last = std::max(m.last, floor);
  return m;
}

// Where the events go as they are drawn: a JSON array (build), or the text of one (write), so that
// a campaign of 100,000 cases does not hold a document tree of its million events.
class Sink {
 public:
  explicit Sink(json* array) : array_(array) {}
  explicit Sink(std::string* text) : text_(text) {}
  void push_back(json e) {
    if (array_) {
      array_->push_back(std::move(e));
    } else {
      if (count_) text_->push_back(',');
      // replace: a reason quoting a program's bytes must not stop the trace
      *text_ += e.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    ++count_;
  }
  std::size_t size() const { return count_; }

 private:
  json* array_ = nullptr;
  std::string* text_ = nullptr;
  std::size_t count_ = 0;
};

// Process and thread ids, each announced once with its name (metadata events) in the order rows are
// first asked for, which is the order the viewers show them in.
class Rows {
 public:
  explicit Rows(Sink& events) : events_(events) {}

  int pid(const std::string& process) {
    auto [it, added] = pids_.try_emplace(process, static_cast<int>(pids_.size()) + 1);
    if (added) {
      events_.push_back(meta("process_name", it->second, 0, {{"name", process}}));
      events_.push_back(meta("process_sort_index", it->second, 0, {{"sort_index", it->second}}));
    }
    return it->second;
  }
  int tid(int pid, const std::string& row) {
    auto [it, added] = tids_.try_emplace({pid, row}, static_cast<int>(tids_.size()) + 1);
    if (added) {
      events_.push_back(meta("thread_name", pid, it->second, {{"name", row}}));
      events_.push_back(meta("thread_sort_index", pid, it->second, {{"sort_index", it->second}}));
    }
    return it->second;
  }

 private:
  static json meta(const char* name, int pid, int tid, json args) {
    return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
  }
  Sink& events_;
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, int> tids_;
};

json complete(std::string name, std::string_view cat, int pid, int tid, Us from, Us to, json args) {
  return {{"name", std::move(name)}, {"cat", cat}, {"ph", "X"},  {"ts", from},
          {"dur", to - from},        {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json instant(std::string name, std::string_view cat, int pid, int tid, Us at, json args) {
  return {{"name", std::move(name)},
          {"cat", cat},
          {"ph", "i"},
          {"s", "t"},
          {"ts", at},
          {"pid", pid},
          {"tid", tid},
          {"args", std::move(args)}};
}

json attempt_args(const AttemptRow& a) {
  json j{{"case", a.case_name},
         {"key", a.case_key},
         {"attempt", a.number},
         {"state", to_string(a.state)},
         {"job_id", a.job_id}};
  if (!a.step.empty()) j["step"] = a.step;
  if (!a.job_name.empty()) j["job_name"] = a.job_name;
  if (a.exit_code) j["exit_code"] = *a.exit_code;
  if (a.nodes) j["nodes"] = *a.nodes;
  if (!a.node_list.empty()) j["node_list"] = a.node_list;
  if (!a.reason.empty()) j["reason"] = a.reason;
  return j;
}

// One attempt on the row (pid, tid): "attempt N" around its phases, and instants for how it ended
// badly or went back to the plan.
void draw_attempt(Sink& out, const AttemptRow& a, const std::vector<const EventRow*>& events, Us record_end,
                  int pid, int tid) {
  Moments m = moments_of(a, events);
  // A phase without its end is still going on (to the end of the record) or was left when the attempt
  // moved on otherwise (cancelled while queued, returned to the plan): then it ends at its last event.
  Us open_end = is_active(a.state) || a.state == State::submitting ? std::max(record_end, m.last) : m.last;
  json args = attempt_args(a);
  std::vector<json> phases;
  auto phase = [&](const char* name, std::optional<Us> from, std::optional<Us> to) {
    if (from)
      phases.push_back(
          complete(name, "phase", pid, tid, *from, std::max(*from, to.value_or(open_end)), args));
  };
  phase("queued", m.submitted, m.started ? m.started : m.ended);
  phase("running", m.started, m.ended);
  if (m.ended && m.collected) phase("collecting", m.ended, m.collected);
  if (!phases.empty()) {
    Us from = phases.front()["ts"].get<Us>(), to = from;
    for (auto& p : phases) to = std::max(to, p["ts"].get<Us>() + p["dur"].get<Us>());
    out.push_back(complete("attempt " + std::to_string(a.number), "attempt", pid, tid, from, to, args));
    for (auto& p : phases) out.push_back(std::move(p));
  }
  for (auto* e : events) {
    if (!e->to) continue;
    bool bad_end = is_final(*e->to) && *e->to != State::completed && *e->to != State::collected;
    bool replanned = *e->to == State::planned && e->from;
    if (!bad_end && !replanned) continue;
    json why = args;
    if (!e->message.empty()) why["message"] = e->message;
    if (e->from) why["from"] = to_string(*e->from);
    Us at = us(e->time);
    // The scheduler's end is when it happened; the event is when the engine learnt it.
    if (bad_end && !is_collection(*e->to) && m.ended) at = *m.ended;
    if (*e->to == State::collect_failed && m.collected) at = *m.collected;
    out.push_back(instant(replanned ? "returned to plan" : std::string(to_string(*e->to)), "failure", pid,
                          tid, at, why));
  }
}

// One attempt's collected series, by kind.
struct Collected {
  const Catalog::Series *epoch_start = nullptr, *epoch_end = nullptr;
  // rank -> series name before ":rank" -> series
  std::map<long, std::map<std::string, const Catalog::Series*>> ranks;
};

constexpr std::string_view kRankSeries[] = {"training_start", "stall_time", "compute_time",
                                            "iteration_epoch"};

std::map<std::pair<std::int64_t, std::optional<std::int64_t>>, Collected> collected_of(
    const std::vector<Catalog::Series>& series) {
  std::map<std::pair<std::int64_t, std::optional<std::int64_t>>, Collected> out;
  for (auto& s : series) {
    Collected& c = out[{s.attempt_id, s.instance}];
    if (s.name == "epoch_start") c.epoch_start = &s;
    if (s.name == "epoch_end") c.epoch_end = &s;
    auto colon = s.name.find(":rank");
    if (colon == std::string::npos) continue;
    std::string rank = s.name.substr(colon + 5);
    if (rank.empty() || rank.find_first_not_of("0123456789") != std::string::npos) continue;
    c.ranks[std::stol(rank)][s.name.substr(0, colon)] = &s;
  }
  return out;
}

std::map<std::int64_t, double> by_step(const Catalog::Series* s) {
  std::map<std::int64_t, double> out;
  if (!s) return out;
  for (size_t i = 0; i < s->steps.size() && i < s->values.size(); ++i)
    if (s->steps[i] && std::isfinite(s->values[i])) out[*s->steps[i]] = s->values[i];
  return out;
}

void draw_epochs(Sink& out, const Collected& c, int pid, int tid) {
  auto ends = by_step(c.epoch_end);
  for (auto& [epoch, start] : by_step(c.epoch_start)) {
    auto end = ends.find(epoch);
    if (end == ends.end() || end->second < start) continue;
    out.push_back(complete("epoch " + std::to_string(epoch), "epoch", pid, tid, us(start), us(end->second),
                           {{"epoch", epoch}}));
  }
}

void draw_iterations(Sink& out, const std::map<std::string, const Catalog::Series*>& rank, int pid, int tid,
                     std::optional<std::size_t> limit) {
  auto get = [&](std::string_view name) {
    auto it = rank.find(std::string(name));
    return by_step(it == rank.end() ? nullptr : it->second);
  };
  auto stall = get("stall_time"), compute = get("compute_time"), epoch = get("iteration_epoch");
  std::size_t n = 0;
  for (auto& [iteration, start] : get("training_start")) {
    if (limit && n++ >= *limit) break;
    json args{{"iteration", iteration}};
    if (auto e = epoch.find(iteration); e != epoch.end()) args["epoch"] = std::llround(e->second);
    if (auto s = stall.find(iteration); s != stall.end() && s->second > 0)
      out.push_back(complete("data stall", "stall", pid, tid, us(start - s->second), us(start), args));
    if (auto c = compute.find(iteration); c != compute.end() && c->second >= 0)
      out.push_back(complete("compute", "compute", pid, tid, us(start), us(start) + us(c->second), args));
  }
}

}  // namespace

std::set<std::string> series_names() {
  std::set<std::string> names{"epoch_start", "epoch_end"};
  for (auto n : kRankSeries) names.insert(std::string(n) + ":rank{rank}");
  return names;
}

namespace {

// Draws every event into `events`; returns the trace's otherData.
json draw(const Input& in, const Options& options, Sink& events) {
  Rows rows(events);

  std::map<std::int64_t, std::vector<const EventRow*>> events_of;
  Us record_end = 0;
  for (auto& e : in.events) {
    record_end = std::max(record_end, us(e.time));
    if (e.kind == "state" && e.scope.attempt_id) events_of[*e.scope.attempt_id].push_back(&e);
  }
  for (auto& a : in.attempts)
    for (auto& t : {a.submitted, a.started, a.ended})
      if (t) record_end = std::max(record_end, us(*t));

  std::vector<const AttemptRow*> attempts;
  for (auto& a : in.attempts) attempts.push_back(&a);
  std::stable_sort(attempts.begin(), attempts.end(), [](auto* x, auto* y) {
    return std::tie(x->case_id, x->number) < std::tie(y->case_id, y->number);
  });

  // The processes: the campaign, or the nodes by name (those without a node last).
  auto groups_of = [&](const AttemptRow& a) {
    if (options.by == By::case_) return std::vector<std::string>{"campaign " + in.campaign.name};
    auto nodes = sched::node_names(a.node_list);
    if (nodes.empty()) nodes.emplace_back(kNoNode);
    return nodes;
  };
  std::set<std::string> names;
  for (auto* a : attempts)
    for (auto& g : groups_of(*a)) names.insert(g);
  std::vector<std::string> ordered(names.begin(), names.end());
  std::stable_partition(ordered.begin(), ordered.end(), [](auto& n) { return n != kNoNode; });
  for (auto& n : ordered) rows.pid(n);

  auto collected = collected_of(in.series);
  static const std::vector<const EventRow*> kNone;
  for (size_t i = 0; i < attempts.size(); ++i) {
    const AttemptRow& a = *attempts[i];
    auto groups = groups_of(a);
    auto ev = events_of.find(a.id);
    for (auto& g : groups) {
      int pid = rows.pid(g);
      draw_attempt(events, a, ev == events_of.end() ? kNone : ev->second, record_end, pid,
                   rows.tid(pid, a.case_name));
    }
    // Sub-rows of what this attempt collected, below its case's row (of its first node).
    int pid = rows.pid(groups.front());
    for (auto it = collected.lower_bound({a.id, std::nullopt});
         it != collected.end() && it->first.first == a.id; ++it) {
      std::string base = a.case_name + (it->first.second ? " #" + std::to_string(*it->first.second) : "");
      const Collected& c = it->second;
      if (c.epoch_start && c.epoch_end) draw_epochs(events, c, pid, rows.tid(pid, base + " epochs"));
      for (auto& [rank, series] : c.ranks)
        draw_iterations(events, series, pid, rows.tid(pid, base + " rank " + std::to_string(rank)),
                        options.iterations);
    }
  }

  json other{{"campaign", in.campaign.name},
             {"system", in.campaign.system},
             {"workdir", in.campaign.workdir},
             {"rows", options.by == By::case_ ? "case" : "node"},
             {"clock", "microseconds since the Unix epoch; the catalog records whole seconds"}};
  if (!in.campaign.code.version.empty()) other["code_version"] = in.campaign.code.version;
  if (!in.campaign.code.commit.empty()) other["commit"] = in.campaign.code.commit;
  return other;
}

}  // namespace

json build(const Input& in, const Options& options) {
  json events = json::array();
  Sink sink(&events);
  json other = draw(in, options, sink);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
}

std::string write(const Input& in, const Options& options, std::size_t* count) {
  std::string text = "{\"traceEvents\":[";
  Sink sink(&text);
  json other = draw(in, options, sink);
  text += "],\"displayTimeUnit\":\"ms\",\"otherData\":";
  text += other.dump(-1, ' ', false, json::error_handler_t::replace);
  text += "}\n";
  if (count) *count = sink.size();
  return text;
}

}  // namespace campaign::trace
