// What goes to the scheduler (engine/choose.cpp): batch jobs from hand-made rows, the dependencies,
// the queue limit, the budget, walltime growth, the array hold-back rule and the fallbacks.
#include <catch2/catch.hpp>

#include "engine/decide.hpp"
#include "rows.hpp"

using namespace campaign;
using namespace campaign::engine;
using namespace engine_test;

namespace {

// Every case planned, case ids 1..n in plan order.
std::vector<AttemptRow> planned(const matrix::Plan& plan) {
  std::vector<AttemptRow> rows;
  for (size_t i = 0; i < plan.cases.size(); ++i)
    rows.push_back(row(static_cast<std::int64_t>(i + 1), State::planned));
  return rows;
}
std::vector<std::int64_t> ids_of(const matrix::Plan& plan) {
  std::vector<std::int64_t> ids;
  for (size_t i = 0; i < plan.cases.size(); ++i) ids.push_back(static_cast<std::int64_t>(i + 1));
  return ids;
}
SubmitChoice choose(const matrix::Plan& plan, const std::vector<AttemptRow>& rows, SubmitLimits limits = {}) {
  return choose_submissions(plan, interleaved_order(plan), ids_of(plan), rows, limits);
}
std::vector<batch::Kind> kinds(const SubmitChoice& c) {
  std::vector<batch::Kind> out;
  for (auto& b : c.batches) out.push_back(b.shape.kind);
  return out;
}
size_t cases_in(const SubmitChoice& c) {
  size_t n = 0;
  for (auto& b : c.batches) n += b.members.size();
  return n;
}

// Rows [from, to) queued as jobs of their own.
std::vector<AttemptRow> queued(std::vector<AttemptRow> rows, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    rows[i].state = State::queued;
    rows[i].job_id = std::to_string(100 + i);
  }
  return rows;
}

// 28 single jobs, then a step of 5 array tasks.
const char* kMixed = R"(name: mixed
job: {partition: mc, nodes: 1, walltime: "00:10:00", command: "true"}
steps:
  solo: {matrix: {repeat: 28}, case_name: "solo-{{repeat}}"}
  arr: {matrix: {repeat: 5}, case_name: "arr-{{repeat}}", array: {throttle: 2}}
)";

const char* kPacked = R"(name: packed
matrix:
  repeat: 6
job: {partition: mc, nodes: 1, walltime: "00:10:00", command: "true"}
pack: {nodes: 4, cases: 2}
)";

const char* kArray = R"(name: arr
matrix:
  repeat: 5
job: {partition: mc, nodes: 1, walltime: "00:10:00", command: "true"}
array: {throttle: 2}
)";

}  // namespace

TEST_CASE("dependencies: afterok on a running job's id, or on an earlier batch of the same choice") {
  auto plan = plan_of(kDeps);
  auto c = choose(plan, deps_rows(plan, State::planned, State::planned));
  REQUIRE(c.batches.size() == 3);
  CHECK(c.batches[0].shape.ids == std::vector<size_t>{0});
  CHECK(c.batches[1].after_batches == std::vector<size_t>{0});
  CHECK(c.batches[2].after_batches == std::vector<size_t>{0});
  c = choose(plan, deps_rows(plan, State::running, State::planned));
  REQUIRE(c.batches.size() == 2);
  CHECK(c.batches[0].after == std::vector<std::string>{"100"});
  // A failed dependency cancels its dependents, with the cause a decision reads.
  c = choose(plan, deps_rows(plan, State::failed, State::planned));
  CHECK(c.batches.empty());
  REQUIRE(c.actions.marks.size() == 2);
  CHECK(*c.actions.marks[0].update.reason == "dependency prepare ended failed");
  CHECK(*c.actions.marks[0].update.cause == Cause::dependency);
}

TEST_CASE("the queue limit counts the user's other jobs and ours, an allocation as one job") {
  auto plan = plan_of(kDeps, 3);
  SubmitLimits l;
  l.others_in_queue = 1;
  CHECK(choose(plan, deps_rows(plan, State::planned, State::planned), l).batches.size() == 2);

  // 6 packed cases, at most 2 per allocation: 3 allocations. Two running allocations of ours (4
  // cases, one job each) and a limit of 3: one more allocation, not the whole step.
  auto packed = plan_of(kPacked, 3);
  auto rows = planned(packed);
  CHECK(kinds(choose(packed, rows)) == std::vector<batch::Kind>(3, batch::Kind::allocation));
  for (int k = 0; k < 4; ++k) {
    rows[static_cast<size_t>(k)].state = State::running;
    rows[static_cast<size_t>(k)].job_name = k < 2 ? "alloc-a" : "alloc-b";
    rows[static_cast<size_t>(k)].step_name = "s" + std::to_string(k);
  }
  auto c = choose(packed, rows);
  REQUIRE(c.batches.size() == 1);
  CHECK(c.batches[0].members.size() == 2);
  CHECK(c.queue_full == false);
  l.others_in_queue = 1;
  c = choose(packed, rows, l);
  CHECK(c.batches.empty());
  CHECK(c.queue_full);
  // Nothing running, a limit of 2: two of the step's three allocations, never over the limit.
  c = choose(plan_of(kPacked, 2), planned(packed));
  CHECK(c.batches.size() == 2);
  CHECK(c.queue_full);
}

TEST_CASE("an array counts a slot per task; cut to what fits, unless our own jobs will free a tenth") {
  auto plan = plan_of(kArray, 100);
  SubmitLimits arrays;
  arrays.arrays = true;
  auto c = choose(plan, planned(plan), arrays);
  REQUIRE(c.batches.size() == 1);
  CHECK(c.batches[0].shape.kind == batch::Kind::array);
  CHECK(c.batches[0].shape.throttle == 2);
  CHECK(c.batches[0].members.size() == 5);
  // Limit 3, none of ours queued: the first 3 tasks now.
  c = choose(plan_of(kArray, 3), planned(plan), arrays);
  REQUIRE(c.batches.size() == 1);
  CHECK(c.batches[0].shape.ids == std::vector<size_t>{0, 1, 2});
  CHECK(c.queue_full);
  // Limit 30 (a tenth: 3), 28 of our own single jobs queued: 2 places free, fewer than a tenth, and
  // ours will free more: wait rather than an array per freed place.
  auto m = plan_of(kMixed, 30);
  auto rows = queued(planned(m), 0, 28);
  c = choose(m, rows, arrays);
  CHECK(c.batches.empty());
  CHECK(c.queue_full);
  // The same 2 free places taken by the user's other jobs, none of ours: 2 tasks now.
  auto others = planned(m);
  for (size_t i = 0; i < 28; ++i) others[i].state = State::completed;
  SubmitLimits busy = arrays;
  busy.others_in_queue = 28;
  c = choose(m, others, busy);
  REQUIRE(c.batches.size() == 1);
  CHECK(c.batches[0].members.size() == 2);
}

TEST_CASE("a choice that chose nothing stands until its first batch's room frees or the rows change") {
  // The mixed campaign of the test above: 28 of our single jobs queued, 2 places free of 30, the
  // array's 5 tasks wait for a tenth (3).
  auto m = plan_of(kMixed, 30);
  auto rows = queued(planned(m), 0, 28);
  SubmitLimits arrays;
  arrays.arrays = true;
  const ChoiceInputs then = choice_inputs(rows, {});
  CHECK(then.planned == 5);
  CHECK(then.ours == 28);
  const auto chosen = idle_choice(choose(m, rows, arrays), then);
  REQUIRE(chosen);
  const IdleChoice& idle = *chosen;
  REQUIRE(idle.stopped);
  CHECK(idle.stopped->slots == 4);  // of the 5, a tenth and one more looked at
  CHECK(idle.stopped->array);
  // Nothing changed: nothing again, and choosing again agrees.
  CHECK(chooses_nothing_again(m, idle, choice_inputs(rows, {}), 0));
  // One of ours ended: 3 places, a tenth of the limit: the array goes in part.
  auto freed = rows;
  freed[0].state = State::completed;
  CHECK_FALSE(chooses_nothing_again(m, idle, choice_inputs(freed, {}), 0));
  CHECK(choose(m, freed, arrays).batches.size() == 1);
  // The same place taken by a job of the user's outside the campaign: still 2.
  CHECK(chooses_nothing_again(m, idle, choice_inputs(freed, {}), 1));
  CHECK(choose(m, freed,
               [&] {
                 auto l = arrays;
                 l.others_in_queue = 1;
                 return l;
               }())
            .batches.empty());
  // None of ours queued any more: any place will do, as none of ours will free more.
  auto none = rows;
  for (size_t i = 0; i < 28; ++i) none[i].state = State::completed;
  CHECK_FALSE(chooses_nothing_again(m, idle, choice_inputs(none, {}), 29));
  CHECK(chooses_nothing_again(m, idle, choice_inputs(none, {}), 30));
  // A planned attempt less (cancelled) or another (a retry): the rows changed.
  auto cancelled = rows;
  cancelled[30].state = State::cancelled;
  CHECK_FALSE(chooses_nothing_again(m, idle, choice_inputs(cancelled, {}), 0));
  auto retried = rows;
  retried[30].id = 99;
  CHECK_FALSE(chooses_nothing_again(m, idle, choice_inputs(retried, {}), 0));
  // A choice with a batch is no idle choice; a campaign with a budget chooses again always.
  CHECK_FALSE(idle_choice(choose(m, freed, arrays), choice_inputs(freed, {})));
  auto budget = plan_of(std::string(kMixed) + "budget: 100\n", 30);
  CHECK_FALSE(chooses_nothing_again(budget, idle, then, 0));

  // Nothing ready: the training cases wait for prepare's submission. It stands until prepare's
  // attempt changes, which choice_inputs sees only when told prepare is a dependency.
  auto deps = plan_of(kDeps);
  auto waiting = deps_rows(deps, State::submitting, State::planned);
  const std::unordered_set<std::int64_t> prepare{1};
  const auto none_ready = idle_choice(choose(deps, waiting), choice_inputs(waiting, prepare));
  REQUIRE(none_ready);
  CHECK_FALSE(none_ready->stopped);
  CHECK(chooses_nothing_again(deps, *none_ready, choice_inputs(waiting, prepare), 0));
  auto queued = deps_rows(deps, State::queued, State::planned);
  CHECK_FALSE(chooses_nothing_again(deps, *none_ready, choice_inputs(queued, prepare), 0));
  CHECK(choose(deps, queued).batches.size() == 2);
  const auto blind = idle_choice(choose(deps, waiting), choice_inputs(waiting, {}));
  REQUIRE(blind);
  CHECK(chooses_nothing_again(deps, *blind, choice_inputs(queued, {}), 0));
  // A completion on its marker alone lets nobody go; the accounting's confirmation does.
  auto marked = deps_rows(deps, State::completed, State::planned);
  marked[0].confirmed = false;
  const auto unconfirmed = idle_choice(choose(deps, marked), choice_inputs(marked, prepare));
  REQUIRE(unconfirmed);
  auto confirmed = marked;
  confirmed[0].confirmed = true;
  CHECK_FALSE(chooses_nothing_again(deps, *unconfirmed, choice_inputs(confirmed, prepare), 0));
  CHECK(choose(deps, confirmed).batches.size() == 2);
}

TEST_CASE("under the queue limit a choice looks at its room's worth of ready cases, not all of them") {
  // 100 array tasks, a limit of 30 (a tenth: 3), 20 of ours queued: 10 places.
  auto many = plan_of(R"(name: arr
matrix:
  repeat: 100
job: {partition: mc, nodes: 1, walltime: "00:10:00", command: "true"}
array: {throttle: 2}
)",
                      30);
  auto rows = queued(planned(many), 0, 20);
  SubmitLimits arrays;
  arrays.arrays = true;
  auto c = choose(many, rows, arrays);
  CHECK(c.ready.size() == 11);  // the room and one more
  REQUIRE(c.batches.size() == 1);
  CHECK(c.batches[0].shape.ids == std::vector<size_t>{20, 21, 22, 23, 24, 25, 26, 27, 28, 29});
  CHECK(c.queue_full);
  // Sparse case ids (cases of several campaigns in one catalog): the same choice.
  auto sparse = rows;
  std::vector<std::int64_t> ids;
  for (auto& r : sparse) {
    r.case_id *= 1000;
    ids.push_back(r.case_id);
  }
  auto s = choose_submissions(many, interleaved_order(many), ids, sparse, arrays);
  REQUIRE(s.batches.size() == 1);
  CHECK(s.batches[0].shape.ids == c.batches[0].shape.ids);
  // 2 places, fewer than a tenth: the array waits, as it would with all 80 ready tasks seen.
  rows = queued(rows, 20, 28);
  c = choose(many, rows, arrays);
  CHECK(c.batches.empty());
  REQUIRE(c.stopped);
  CHECK(c.stopped->slots == 4);  // a tenth and one more looked at
  CHECK(c.stopped->array);
  // Without a queue limit (`plan` shows every job), every ready case.
  SubmitLimits all = arrays;
  all.queue = false;
  CHECK(choose(many, rows, all).ready.size() == 72);
}

TEST_CASE("a scheduler without arrays runs an array step's cases one job each") {
  auto plan = plan_of(kArray);
  CHECK(kinds(choose(plan, planned(plan))) == std::vector<batch::Kind>(5, batch::Kind::single));
}

TEST_CASE("the budget: node-hours per batch, stopped before the one that would pass it") {
  auto plan = plan_of(std::string(kDeps) + "budget: 3.5\n");
  SubmitLimits l;
  l.committed_node_hours = 0.0;
  auto c = choose(plan, deps_rows(plan, State::planned, State::planned), l);
  CHECK(cases_in(c) == 2);  // prepare (1 node x 1 h) and one training case (2 x 1 h)
  CHECK(c.budget_note.find("would need 2.0 more of 3.5") != std::string::npos);
  // An allocation costs its whole nodes for its walltime.
  auto packed = plan_of(kPacked);
  auto all = choose(packed, planned(packed));
  REQUIRE(all.batches.size() == 3);
  const auto& b = all.batches[0];
  CHECK(b.node_hours == Approx(b.shape.nodes * b.shape.walltime_s / 3600.0));
  // plan shows every job: no queue limit, no budget.
  SubmitLimits none;
  none.queue = false;
  CHECK(cases_in(choose(plan, deps_rows(plan, State::planned, State::planned), none)) == 3);
}

TEST_CASE("a retry after timeouts asks for more time, never past the partition's limit") {
  auto plan = plan_of(kDeps);
  SubmitLimits l;
  l.timeouts[2] = 1;  // train-1 timed out once: 1 h x 1.5
  l.timeouts[3] = 9;  // train-2 nine times: capped at the system's 4 h
  auto c = choose(plan, deps_rows(plan, State::planned, State::planned), l);
  REQUIRE(c.batches.size() == 3);
  CHECK(c.batches[0].shape.walltime_s == 3600);
  CHECK(c.batches[1].shape.walltime_s == 5400);
  CHECK(c.batches[2].shape.walltime_s == 4 * 3600);
}
