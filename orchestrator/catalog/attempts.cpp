// Attempt state changes and attempt queries. Each state change is one
// IMMEDIATE transaction that goes through Impl::set_state (impl.hpp).
//
// Durability: WAL with synchronous=NORMAL survives any crash of the process
// (kill -9 included: committed pages are in the OS cache) but an OS crash or
// power loss may roll back the last commits. Every commit but one is safe to
// lose: the state of a job is asked again from the scheduler, metrics are
// collected again, a lost job id is found again by job name. The exception is
// begin_submit: if `submitting` were rolled back after the job was submitted,
// reconciliation would not look for the job and the case would run twice. So
// that one commit runs with synchronous=FULL (one fsync per submission, which
// also makes every earlier commit durable).
#include <algorithm>
#include <unordered_set>

#include "catalog/catalog.hpp"
#include "catalog/impl.hpp"
#include "catalog/transitions.hpp"

namespace campaign {

// --- attempt state -------------------------------------------------------

void Catalog::begin_submit(std::int64_t attempt_id, std::string_view job_name, std::int64_t walltime_s,
                           int nodes, std::string_view step_name) {
  begin_submit(
      {SubmitStart{attempt_id, std::string(job_name), walltime_s, nodes, std::string(step_name), {}}});
}

void Catalog::begin_submit(const std::vector<SubmitStart>& starts, const std::vector<AttemptRow*>& rows) {
  Impl& c = *impl_;
  c.require_writer("begin_submit");
  if (!rows.empty() && rows.size() != starts.size())
    throw CatalogError(c.where() + ": begin_submit: " + std::to_string(rows.size()) + " rows for " +
                       std::to_string(starts.size()) + " attempts");
  for (auto& s : starts) {
    if (s.job_name.empty()) throw CatalogError(c.where() + ": begin_submit: empty job name");
    if (s.walltime_s <= 0 || s.nodes <= 0)
      throw CatalogError(c.where() + ": begin_submit: walltime and nodes must be positive");
  }
  c.guard("begin_submit", [&] {
    Impl::FullSync durable(c);
    Impl::Tx tx(c);
    auto q = c.query(
        "UPDATE attempts SET job_name = ?, walltime_s = ?, nodes = ?, submitted = ?, job_id = NULL, "
        "reason = '', step_name = NULLIF(?, ''), array_task = ? WHERE id = ?");
    const std::int64_t now = c.now();
    for (auto& s : starts) {
      Current cur = c.current(s.attempt);
      if (cur.state != State::planned)
        throw TransitionError(c.where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                              ", only a planned attempt can be submitted");
      q->reset();
      q->bind(1, s.job_name);
      q->bind(2, s.walltime_s);
      q->bind(3, s.nodes);
      q->bind(4, now);
      q->bind(5, s.step_name);
      if (s.array_task)
        q->bind(6, static_cast<std::int64_t>(*s.array_task));
      else
        q->bind(6);
      q->bind(7, s.attempt);
      q->exec();
      c.set_state(cur, State::submitting,
                  "job name " + s.job_name + (s.step_name.empty() ? "" : ", step " + s.step_name) +
                      (s.array_task ? ", task " + std::to_string(*s.array_task) : ""));
    }
    tx.commit();
    for (size_t k = 0; k < rows.size(); ++k) {  // as read_attempt reads what was written
      const SubmitStart& s = starts[k];
      AttemptRow& r = *rows[k];
      r.state = State::submitting;
      r.job_name = s.job_name;
      r.walltime_s = s.walltime_s;
      r.nodes = s.nodes;
      r.submitted = from_secs(now);
      r.job_id.clear();
      r.reason.clear();
      r.step_name = s.step_name;
      r.array_task = s.array_task;
    }
  });
}

void Catalog::import_runs(const std::vector<ImportedRun>& runs) {
  Impl& c = *impl_;
  c.require_writer("import_runs");
  c.guard("import_runs", [&] {
    Impl::Tx tx(c);
    // Catalogs of schema 3 on keep no metric in the per-value table: then no DELETE from it per run.
    bool legacy_rows = true;
    {
      auto q = c.query("SELECT EXISTS (SELECT 1 FROM metrics)");
      legacy_rows = q->executeStep() && q->getColumn(0).getInt() != 0;
    }
    for (const auto& run : runs) {
      Current cur = c.current(run.attempt_id);
      if (cur.state != State::planned)
        throw TransitionError(c.where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                              ", only a planned attempt can be imported");
      // planned -> submitting -> completed -> collected (or collect_failed): the state written once,
      // with the job it came from.
      const Impl::Submitted job{"import", run.origin, c.now()};
      const bool failed = !run.collect_error.empty();
      const std::string origin = "imported from " + run.origin;
      const std::string done =
          failed ? run.collect_error : std::to_string(value_count(run.series)) + " metrics";
      const Impl::Move path[] = {{State::submitting, origin},
                                 {State::completed, "a run done outside campaign"},
                                 {failed ? State::collect_failed : State::collected, done}};
      JobUpdate info;
      info.reason = run.collect_error;
      c.set_states(cur, path, failed ? &info : nullptr, &job);
      if (!failed) c.write_series(run.attempt_id, run.series, legacy_rows);
    }
    tx.commit();
  });
}

bool Catalog::record_job_id(std::int64_t attempt_id, std::string_view job_id, State seen) {
  Impl& c = *impl_;
  c.require_writer("record_job_id");
  if (job_id.empty()) throw CatalogError(c.where() + ": record_job_id: empty job id");
  return c.guard("record_job_id", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    const bool recorded = c.record_job(cur, job_id, seen);
    tx.commit();
    return recorded;
  });
}

bool Catalog::record_job_id(AttemptRow& row, std::string_view job_id, State seen) {
  Impl& c = *impl_;
  c.require_writer("record_job_id");
  if (job_id.empty()) throw CatalogError(c.where() + ": record_job_id: empty job id");
  return c.guard("record_job_id", [&] {
    Impl::Tx tx(c);
    Current cur = current_of(row);
    const bool recorded = c.record_job(cur, job_id, seen);
    tx.commit();
    row.job_id = job_id;
    row.state = cur.state;
    return recorded;
  });
}

bool Catalog::Impl::record_job(Current& cur, std::string_view job_id, State seen) {
  if (cur.state != State::submitting) {
    if (cur.job_id == job_id) return false;
    throw TransitionError(where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                          (cur.job_id.empty() ? std::string() : " with job " + cur.job_id) +
                          ", cannot record job " + std::string(job_id));
  }
  if (seen == State::planned)
    throw TransitionError(where() + ": " + cur.describe() +
                          ": a job was found, it cannot go back to planned");
  auto q = query("UPDATE attempts SET job_id = ? WHERE id = ?");
  q->bind(1, std::string(job_id));
  q->bind(2, cur.id);
  q->exec();
  set_state(cur, seen, "job " + std::string(job_id));
  return true;
}

bool Catalog::update_state(std::int64_t attempt_id, State to, const JobUpdate& info) {
  Impl& c = *impl_;
  c.require_writer("update_state");
  return c.guard("update_state", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    const bool moved = c.change_state(cur, to, info);
    tx.commit();
    return moved;
  });
}

bool Catalog::update_state(AttemptRow& row, State to, const JobUpdate& info) {
  Impl& c = *impl_;
  c.require_writer("update_state");
  return c.guard("update_state", [&] {
    Impl::Tx tx(c);
    Current cur = current_of(row);
    const bool moved = c.change_state(cur, to, info);
    tx.commit();
    apply_written(row, to, info, moved);
    return moved;
  });
}

bool Catalog::Impl::change_state(Current& cur, State to, const JobUpdate& info) {
  if (to == cur.state) {
    store_info(cur.id, info, false);
    return false;
  }
  if (to == State::planned || to == State::submitting)
    throw TransitionError(where() + ": " + cur.describe() + ": use " +
                          (to == State::planned ? "revert_submitting" : "begin_submit") + " to reach " +
                          state_name(to));
  if (cur.state == State::submitting)
    throw TransitionError(where() + ": " + cur.describe() +
                          " is submitting: record its job id or revert it first");
  std::string message = info.reason.value_or("");
  if (info.exit_code) {
    if (!message.empty()) message += ' ';
    message += "exit ";
    message += std::to_string(*info.exit_code);
  }
  set_state(cur, to, message, &info);
  return true;
}

void Catalog::return_to_plan(std::int64_t attempt_id, std::string_view why) {
  Impl& c = *impl_;
  c.require_writer("return_to_plan");
  c.guard("return_to_plan", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    {
      auto step = c.query("SELECT step_name FROM attempts WHERE id = ?");
      step->bind(1, attempt_id);
      if (!step->executeStep() || step->getColumn(0).isNull())
        throw TransitionError(c.where() + ": " + cur.describe() +
                              " is not a job step of a shared allocation");
    }
    if (cur.state != State::queued && cur.state != State::running)
      throw TransitionError(c.where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                            ", only a queued or running packed attempt can return to the plan");
    auto q = c.query(
        "UPDATE attempts SET job_id = NULL, job_name = NULL, step_name = NULL, submitted = NULL, started = "
        "NULL "
        "WHERE id = ?");
    q->bind(1, attempt_id);
    q->exec();
    c.set_state(cur, State::planned, why);
    tx.commit();
  });
}

void Catalog::revert_submitting(std::int64_t attempt_id, std::string_view why) {
  Impl& c = *impl_;
  c.require_writer("revert_submitting");
  c.guard("revert_submitting", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    if (cur.state != State::submitting)
      throw TransitionError(c.where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                            ", only a submitting attempt can be reverted");
    auto q = c.query("UPDATE attempts SET job_id = NULL, submitted = NULL WHERE id = ?");
    q->bind(1, attempt_id);
    q->exec();
    c.set_state(cur, State::planned, why);
    tx.commit();
  });
}

std::int64_t Catalog::new_attempt_for_retry(std::int64_t case_id, std::string_view why, bool requested) {
  Impl& c = *impl_;
  c.require_writer("new_attempt_for_retry");
  return c.guard("new_attempt_for_retry", [&] {
    Impl::Tx tx(c);
    auto q = c.query(
        "SELECT a.number, a.state, c.campaign_id, c.key FROM attempts a JOIN cases c ON c.id = a.case_id "
        "WHERE a.case_id = ? ORDER BY a.number DESC LIMIT 1");
    q->bind(1, case_id);
    if (!q->executeStep()) throw CatalogError(c.where() + ": no case with id " + std::to_string(case_id));
    const int number = q->getColumn(0).getInt();
    const State state = parse_state(q->getColumn(1).getString());
    const std::int64_t campaign_id = q->getColumn(2).getInt64();
    const std::string key = q->getColumn(3).getString();
    q->reset();
    const bool ended_well =
        state == State::completed || state == State::collected || state == State::collect_failed;
    if (!retryable(state) && !(requested && ended_well))
      throw TransitionError(c.where() + ": case " + key + ": its attempt #" + std::to_string(number) +
                            " is " + state_name(state) + ", which is not retried");
    std::int64_t id = c.insert_attempt(campaign_id, case_id, number + 1, why);
    tx.commit();
    return id;
  });
}

// --- attempts ------------------------------------------------------------

AttemptRow Catalog::attempt(std::int64_t attempt_id) {
  Impl& c = *impl_;
  return c.guard("attempt", [&] {
    auto rows = c.attempts("WHERE a.id = ?", attempt_id);
    if (rows.empty()) throw CatalogError(c.where() + ": no attempt with id " + std::to_string(attempt_id));
    return rows.front();
  });
}

std::vector<AttemptRow> Catalog::attempts_in(std::int64_t campaign_id, const std::vector<State>& states) {
  Impl& c = *impl_;
  return c.guard("attempts_in", [&] {
    // One cached statement per state rather than an IN list of varying length.
    std::vector<AttemptRow> out;
    std::unordered_set<int> seen;
    for (State s : states) {
      if (!seen.insert(static_cast<int>(s)).second) continue;
      auto q = c.query(kAttemptSelect + "WHERE c.campaign_id = ? AND a.state = ?");
      q->bind(1, campaign_id);
      q->bind(2, state_name(s));
      while (q->executeStep()) out.push_back(read_attempt(*q));
    }
    std::sort(out.begin(), out.end(), [](const AttemptRow& a, const AttemptRow& b) { return a.id < b.id; });
    return out;
  });
}

std::vector<AttemptRow> Catalog::latest_attempts(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("latest_attempts", [&] {
    return c.attempts(
        "WHERE c.campaign_id = ? AND a.number = (SELECT max(number) FROM attempts WHERE case_id = c.id) "
        "ORDER BY c.id",
        campaign_id);
  });
}

std::vector<AttemptRow> Catalog::attempts_of_case(std::int64_t case_id) {
  Impl& c = *impl_;
  return c.guard("attempts_of_case",
                 [&] { return c.attempts("WHERE a.case_id = ? ORDER BY a.number", case_id); });
}

}  // namespace campaign
