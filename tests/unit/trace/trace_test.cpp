// trace::build on hand-made catalog rows: a case retried after a node failure (then collected, with
// epochs and per-rank stalls), a case cancelled while queued, a case never submitted.
#include "trace/trace.hpp"

#include <catch2/catch.hpp>

#include "../temp_dir.hpp"
#include "sched/nodelist.hpp"

using namespace campaign;
using json = nlohmann::json;

namespace {

constexpr std::int64_t T0 = 1'700'000'000;  // Unix seconds
Time at(std::int64_t s) { return Time(std::chrono::seconds(T0 + s)); }
std::int64_t us(std::int64_t s) { return (T0 + s) * 1'000'000; }

struct Rows {
  trace::Input in;
  std::int64_t next_event = 1;

  AttemptRow& attempt(std::int64_t id, std::int64_t case_id, const std::string& name, int number,
                      State state) {
    AttemptRow a;
    a.id = id;
    a.case_id = case_id;
    a.case_name = name;
    a.case_key = "k" + std::to_string(case_id);
    a.number = number;
    a.state = state;
    in.attempts.push_back(a);
    return in.attempts.back();
  }
  // The state events of attempt `id`: planned at 0, then each (time, state).
  void states(std::int64_t id, std::vector<std::pair<std::int64_t, State>> steps) {
    std::optional<State> from;
    for (auto [s, to] : steps) {
      EventRow e;
      e.id = next_event++;
      e.time = at(s);
      e.scope.attempt_id = id;
      e.kind = "state";
      e.from = from;
      e.to = to;
      e.message = to == State::node_fail ? "job 11: NODE_FAIL" : "";
      in.events.push_back(e);
      from = to;
    }
  }
  void series(std::int64_t attempt, const std::string& name, std::vector<double> values,
              std::int64_t first = 0) {
    Catalog::Series s;
    s.attempt_id = attempt;
    s.name = name;
    for (size_t i = 0; i < values.size(); ++i) s.steps.push_back(first + static_cast<std::int64_t>(i));
    s.values = values;
    in.series.push_back(s);
  }
};

Rows campaign_rows() {
  Rows r;
  r.in.campaign.name = "demo";
  r.in.campaign.system = "testcluster";
  // Case a: attempt 1 lost to a node failure, attempt 2 collected.
  auto& a1 = r.attempt(1, 10, "a", 1, State::node_fail);
  a1.job_id = "11";
  a1.nodes = 2;
  a1.node_list = "nid[001-002]";
  a1.submitted = at(100);
  a1.started = at(110);
  a1.ended = at(150);
  a1.reason = "NodeFail";
  r.states(1, {{0, State::planned},
               {100, State::submitting},
               {101, State::queued},
               {112, State::running},
               {152, State::node_fail}});
  auto& a2 = r.attempt(2, 10, "a", 2, State::collected);
  a2.job_id = "12";
  a2.nodes = 2;
  a2.node_list = "nid[003-004]";
  a2.submitted = at(153);
  a2.started = at(160);
  a2.ended = at(200);
  a2.exit_code = 0;
  r.states(2, {{152, State::planned},
               {153, State::submitting},
               {153, State::queued},
               {161, State::running},
               {201, State::completed},
               {205, State::collected}});
  constexpr double t0 = T0;  // the series hold Unix seconds
  r.series(2, "epoch_start", {t0 + 165, t0 + 180});
  r.series(2, "epoch_end", {t0 + 180, t0 + 195});
  for (int rank = 0; rank < 2; ++rank) {
    std::string k = ":rank" + std::to_string(rank);
    r.series(2, "training_start" + k, {t0 + 166.5, t0 + 170, t0 + 174});
    r.series(2, "stall_time" + k, {1.5, 0, 0.25});
    r.series(2, "compute_time" + k, {3, 3.5, 3});
    r.series(2, "iteration_epoch" + k, {0, 0, 0});
  }
  // Case b: cancelled while queued, never started.
  auto& b = r.attempt(3, 11, "b", 1, State::cancelled);
  b.job_id = "13";
  b.submitted = at(100);
  r.states(3, {{0, State::planned}, {100, State::submitting}, {100, State::queued}, {130, State::cancelled}});
  // Case c: never submitted.
  r.attempt(4, 12, "c", 1, State::planned);
  r.states(4, {{0, State::planned}});
  return r;
}

// The events named `name` of phase `ph` on the row named `row`.
std::vector<json> on_row(const json& trace, const std::string& row, const std::string& ph,
                         const std::string& name = "") {
  std::set<std::pair<int, int>> rows;
  for (auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == row)
      rows.insert({e["pid"].get<int>(), e["tid"].get<int>()});
  std::vector<json> out;
  for (auto& e : trace["traceEvents"])
    if (e["ph"] == ph && rows.count({e["pid"].get<int>(), e["tid"].get<int>()}) &&
        (name.empty() || e["name"] == name))
      out.push_back(e);
  return out;
}

std::pair<std::int64_t, std::int64_t> span(const json& e) {
  return {e["ts"].get<std::int64_t>(), e["ts"].get<std::int64_t>() + e["dur"].get<std::int64_t>()};
}

// Complete events of one row must nest or be disjoint, or the viewers draw them wrongly.
void check_nesting(const json& trace) {
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> rows;
  for (auto& e : trace["traceEvents"])
    if (e["ph"] == "X") {
      REQUIRE(e["dur"].get<std::int64_t>() >= 0);
      rows[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(span(e));
    }
  for (auto& [row, spans] : rows)
    for (auto& x : spans)
      for (auto& y : spans) {
        bool disjoint = x.second <= y.first || y.second <= x.first;
        bool nested =
            (x.first <= y.first && y.second <= x.second) || (y.first <= x.first && x.second <= y.second);
        INFO("row " << row.first << "/" << row.second << ": [" << x.first << "," << x.second << ") vs ["
                    << y.first << "," << y.second << ")");
        CHECK((disjoint || nested));
      }
}

}  // namespace

TEST_CASE("trace: the object form with metadata", "[trace]") {
  json t = trace::build(campaign_rows().in);
  CHECK(t["displayTimeUnit"] == "ms");
  CHECK(t["otherData"]["campaign"] == "demo");
  CHECK(t["otherData"]["rows"] == "case");
  REQUIRE(t["traceEvents"].is_array());
  bool process = false;
  for (auto& e : t["traceEvents"]) {
    REQUIRE(e["name"].is_string());
    REQUIRE(e["pid"].is_number_integer());
    REQUIRE(e["tid"].is_number_integer());
    if (e["ph"] == "M" && e["name"] == "process_name") process |= e["args"]["name"] == "campaign demo";
  }
  CHECK(process);
  check_nesting(t);
}

TEST_CASE("trace: a retried case is one row with an attempt per retry", "[trace]") {
  json t = trace::build(campaign_rows().in);
  auto attempts = on_row(t, "a", "X");
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> by_name;
  std::vector<std::string> names;
  for (auto& e : attempts) names.push_back(e["name"]);
  CHECK(std::count(names.begin(), names.end(), "attempt 1") == 1);
  CHECK(std::count(names.begin(), names.end(), "attempt 2") == 1);
  CHECK(std::count(names.begin(), names.end(), "queued") == 2);
  CHECK(std::count(names.begin(), names.end(), "running") == 2);
  CHECK(std::count(names.begin(), names.end(), "collecting") == 1);  // only the completed one
  auto first = on_row(t, "a", "X", "attempt 1").at(0);
  CHECK(span(first) == std::pair(us(100), us(150)));
  CHECK(first["args"]["job_id"] == "11");
  CHECK(first["args"]["state"] == "node_fail");
  CHECK(first["args"]["nodes"] == 2);
  CHECK(first["args"]["node_list"] == "nid[001-002]");
  auto second = on_row(t, "a", "X", "attempt 2").at(0);
  CHECK(span(second) == std::pair(us(153), us(205)));
  CHECK(second["args"]["exit_code"] == 0);
  // The scheduler's times, not when the engine noticed.
  std::vector<std::pair<std::int64_t, std::int64_t>> running;
  for (auto& e : on_row(t, "a", "X", "running")) running.push_back(span(e));
  std::sort(running.begin(), running.end());
  CHECK(running ==
        std::vector<std::pair<std::int64_t, std::int64_t>>{{us(110), us(150)}, {us(160), us(200)}});
  CHECK(span(on_row(t, "a", "X", "collecting").at(0)) == std::pair(us(200), us(205)));
}

TEST_CASE("trace: a node failure is an instant with its reason", "[trace]") {
  json t = trace::build(campaign_rows().in);
  auto fails = on_row(t, "a", "i");
  REQUIRE(fails.size() == 1);
  CHECK(fails[0]["name"] == "node_fail");
  CHECK(fails[0]["s"] == "t");
  CHECK(fails[0]["ts"] == us(150));
  CHECK(fails[0]["args"]["reason"] == "NodeFail");
  CHECK(fails[0]["args"]["message"] == "job 11: NODE_FAIL");
  CHECK(fails[0]["args"]["from"] == "running");
  CHECK(fails[0]["args"]["attempt"] == 1);
}

TEST_CASE("trace: a case never started has only its queued time; one never submitted, only its row",
          "[trace]") {
  json t = trace::build(campaign_rows().in);
  auto b = on_row(t, "b", "X");
  REQUIRE(b.size() == 2);  // attempt 1 and its queued phase, to the cancellation
  for (auto& e : b) CHECK(span(e) == std::pair(us(100), us(130)));
  auto cancelled = on_row(t, "b", "i");
  REQUIRE(cancelled.size() == 1);
  CHECK(cancelled[0]["name"] == "cancelled");
  CHECK(cancelled[0]["ts"] == us(130));
  CHECK(on_row(t, "c", "X").empty());
  CHECK(on_row(t, "c", "i").empty());
  bool row = false;
  for (auto& e : t["traceEvents"]) row |= e["ph"] == "M" && e["args"].value("name", "") == "c";
  CHECK(row);
}

TEST_CASE("trace: a phase still going on ends with the record", "[trace]") {
  Rows r = campaign_rows();
  auto& d = r.attempt(5, 13, "d", 1, State::running);
  d.submitted = at(300);
  d.started = at(310);
  r.states(5, {{0, State::planned}, {300, State::submitting}, {300, State::queued}, {311, State::running}});
  r.states(4, {{400, State::planned}});  // the latest thing the record holds
  json t = trace::build(r.in);
  CHECK(span(on_row(t, "d", "X", "running").at(0)) == std::pair(us(310), us(400)));
}

TEST_CASE("trace: epochs and per-rank stalls on sub-rows", "[trace]") {
  json t = trace::build(campaign_rows().in);
  auto epochs = on_row(t, "a epochs", "X");
  REQUIRE(epochs.size() == 2);
  CHECK(epochs[0]["name"] == "epoch 0");
  CHECK(span(epochs[0]) == std::pair(us(165), us(180)));
  CHECK(span(epochs[1]) == std::pair(us(180), us(195)));
  for (std::string rank : {"a rank 0", "a rank 1"}) {
    auto stalls = on_row(t, rank, "X", "data stall");
    REQUIRE(stalls.size() == 2);  // iteration 1 did not stall
    CHECK(span(stalls[0]) == std::pair(us(165), us(166) + 500'000));
    CHECK(stalls[0]["args"]["iteration"] == 0);
    CHECK(stalls[0]["args"]["epoch"] == 0);
    auto compute = on_row(t, rank, "X", "compute");
    REQUIRE(compute.size() == 3);
    CHECK(span(compute[1]) == std::pair(us(170), us(173) + 500'000));
  }
  // The sub-rows follow their case's row.
  std::vector<std::string> order;
  for (auto& e : t["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") order.push_back(e["args"]["name"]);
  CHECK(order == std::vector<std::string>{"a", "a epochs", "a rank 0", "a rank 1", "b", "c"});
  check_nesting(t);

  json first = trace::build(campaign_rows().in, {.iterations = 1});
  CHECK(on_row(first, "a rank 0", "X", "compute").size() == 1);
  CHECK(on_row(first, "a rank 1", "X", "data stall").size() == 1);
}

TEST_CASE("trace: the text `campaign trace` writes is the document build makes", "[trace]") {
  for (auto by : {trace::By::case_, trace::By::node}) {
    std::size_t count = 0;
    const std::string text = trace::write(campaign_rows().in, {.by = by}, &count);
    const json t = trace::build(campaign_rows().in, {.by = by});
    CHECK(json::parse(text) == t);
    CHECK(count == t["traceEvents"].size());
    CHECK(text.back() == '\n');
  }
}

TEST_CASE("trace: by node, a group per node with the cases that ran on it", "[trace]") {
  json t = trace::build(campaign_rows().in, {.by = trace::By::node});
  CHECK(t["otherData"]["rows"] == "node");
  std::map<int, std::string> processes;
  for (auto& e : t["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  std::vector<std::string> names;
  for (auto& [pid, name] : processes) names.push_back(name);
  CHECK(names == std::vector<std::string>{"nid001", "nid002", "nid003", "nid004", "(no node)"});
  auto process_of = [&](const json& e) { return processes.at(e["pid"].get<int>()); };
  std::multiset<std::string> first, second;
  for (auto& e : on_row(t, "a", "X", "attempt 1")) first.insert(process_of(e));
  for (auto& e : on_row(t, "a", "X", "attempt 2")) second.insert(process_of(e));
  CHECK(first == std::multiset<std::string>{"nid001", "nid002"});
  CHECK(second == std::multiset<std::string>{"nid003", "nid004"});
  auto fails = on_row(t, "a", "i");
  CHECK(fails.size() == 2);  // on both nodes of the failed attempt
  CHECK(process_of(on_row(t, "b", "X").at(0)) == "(no node)");
  CHECK(process_of(on_row(t, "a rank 0", "X").at(0)) == "nid003");
  check_nesting(t);
}

TEST_CASE("trace: Slurm host lists", "[trace]") {
  using V = std::vector<std::string>;
  CHECK(sched::node_names("") == V{});
  CHECK(sched::node_names("login1") == V{"login1"});
  CHECK(sched::node_names("nid[001-003,010],gpu7") == V{"nid001", "nid002", "nid003", "nid010", "gpu7"});
  CHECK(sched::node_names("r[1-2]n[8-9]") == V{"r1n8", "r1n9", "r2n8", "r2n9"});
  CHECK(sched::node_names("c[9-10]-ib") == V{"c9-ib", "c10-ib"});
  CHECK(sched::node_names("odd[x-2]") == V{"odd[x-2]"});
}

TEST_CASE("trace: read takes every attempt, the state events and only the series it draws", "[trace]") {
  campaign_test::TempDir dir("trace");
  Catalog c = Catalog::open(dir.path);
  std::int64_t now = 0;
  c.set_clock([&] { return at(now); });
  auto id = c.upsert_campaign({.name = "demo", .spec_text = "name: demo\n", .system = "local"});
  c.sync_cases(id, {{.key = "kx", .name = "x", .run_dir = "x"}, {.key = "ky", .name = "y", .run_dir = "y"}});
  auto first = c.latest_attempts(id).at(0);
  now = 10;
  c.begin_submit(first.id, "job-x", 600, 2);
  c.record_job_id(first.id, "7");
  now = 20;
  c.update_state(first.id, State::running, {.started = at(19), .node_list = "n[1-2]"});
  now = 30;
  c.update_state(first.id, State::node_fail, {.reason = "NodeFail", .ended = at(29)});
  auto retry = c.new_attempt_for_retry(first.case_id, "retry policy: node_fail");
  now = 40;
  c.begin_submit(retry, "job-x2", 600, 2);
  c.record_job_id(retry, "8");
  c.update_state(retry, State::running, {.started = at(41), .node_list = "n[3-4]"});
  now = 50;
  c.update_state(retry, State::completed, {.exit_code = 0, .ended = at(50), .confirmed = true});
  now = 52;
  constexpr double t0 = T0;
  c.record_collection(retry, {{.name = "epoch_start", .step = 0, .value = t0 + 42, .unit = "s"},
                              {.name = "epoch_end", .step = 0, .value = t0 + 48, .unit = "s"},
                              {.name = "stall_time:rank0", .step = 0, .value = 0.5, .unit = "s"},
                              {.name = "training_start:rank0", .step = 0, .value = t0 + 43, .unit = "s"},
                              {.name = "loss", .step = 0, .value = 0.1}});

  auto in = trace::read(c, *c.find_campaign("demo"));
  CHECK(in.attempts.size() == 3);  // x's two and y's planned one
  std::set<std::string> names;
  for (auto& s : in.series) names.insert(s.name);
  CHECK(names ==
        std::set<std::string>{"epoch_start", "epoch_end", "stall_time:rank0", "training_start:rank0"});

  json t = trace::build(in);
  CHECK(span(on_row(t, "x", "X", "attempt 1").at(0)) == std::pair(us(10), us(29)));
  CHECK(span(on_row(t, "x", "X", "attempt 2").at(0)) == std::pair(us(40), us(52)));
  CHECK(span(on_row(t, "x", "X", "collecting").at(0)) == std::pair(us(50), us(52)));
  auto fail = on_row(t, "x", "i").at(0);
  CHECK(fail["name"] == "node_fail");
  CHECK(fail["ts"] == us(29));
  CHECK(fail["args"]["reason"] == "NodeFail");
  CHECK(span(on_row(t, "x epochs", "X").at(0)) == std::pair(us(42), us(48)));
  CHECK(span(on_row(t, "x rank 0", "X", "data stall").at(0)) == std::pair(us(42) + 500'000, us(43)));
  CHECK(on_row(t, "y", "X").empty());
}
