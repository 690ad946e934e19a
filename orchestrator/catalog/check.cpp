// Catalog::check(): the catalog's own fsck. It trusts nothing it did not
// replay: SQLite's integrity and foreign-key checks, then every attempt's
// state events folded through allowed() must end at its stored state.
#include <map>
#include <unordered_map>

#include "catalog/catalog.hpp"
#include "catalog/impl.hpp"
#include "catalog/transitions.hpp"

namespace campaign {

// --- health --------------------------------------------------------------

std::vector<std::string> Catalog::check() {
  Impl& c = *impl_;
  return c.guard("check", [&] {
    std::vector<std::string> problems;
    {
      SQLite::Statement q(c.db, "PRAGMA integrity_check");
      while (q.executeStep())
        if (q.getColumn(0).getString() != "ok")
          problems.push_back("integrity: " + q.getColumn(0).getString());
    }
    {
      SQLite::Statement q(c.db, "PRAGMA foreign_key_check");
      while (q.executeStep())
        problems.push_back("table " + q.getColumn(0).getString() + " row " + q.getColumn(1).getString() +
                           " refers to a missing row of " + q.getColumn(2).getString());
    }
    // Attempts by case: numbers 1..n, only the last one unended.
    struct Attempt {
      std::int64_t id;
      std::string state;
    };
    std::map<std::int64_t, std::string> stored;  // ordered: stable reports
    {
      SQLite::Statement q(c.db, "SELECT id, case_id, number, state FROM attempts ORDER BY case_id, number");
      std::int64_t case_id = -1;
      int expected = 1;
      std::optional<Attempt> previous;
      while (q.executeStep()) {
        const std::int64_t id = q.getColumn(0).getInt64();
        const std::int64_t cid = q.getColumn(1).getInt64();
        const int number = q.getColumn(2).getInt();
        const std::string state = q.getColumn(3).getString();
        stored[id] = state;
        if (cid != case_id) {
          case_id = cid;
          expected = 1;
        } else if (previous) {
          auto s = state_from_string(previous->state);
          if (s && !is_final(*s))
            problems.push_back("attempt " + std::to_string(previous->id) + " is " + previous->state +
                               " but is not the latest of its case");
        }
        if (number != expected)
          problems.push_back("case " + std::to_string(cid) + ": attempt number " + std::to_string(number) +
                             ", expected " + std::to_string(expected));
        if (!state_from_string(state))
          problems.push_back("attempt " + std::to_string(id) + ": unknown state '" + state + "'");
        expected = number + 1;
        previous = Attempt{id, state};
      }
    }
    // Replay the state events of every attempt.
    std::unordered_map<std::int64_t, std::optional<State>> replayed;
    {
      SQLite::Statement q(c.db,
                          "SELECT attempt_id, from_state, to_state, id FROM events "
                          "WHERE kind = 'state' ORDER BY attempt_id, id");
      while (q.executeStep()) {
        const std::int64_t aid = q.getColumn(0).getInt64();
        const auto from = state_from_string(q.getColumn(1).getString());
        const auto to = state_from_string(q.getColumn(2).getString());
        const std::string ev = "event " + q.getColumn(3).getString() + " of attempt " + std::to_string(aid);
        auto [it, first] = replayed.try_emplace(aid, std::nullopt);
        if (!to) {
          problems.push_back(ev + ": no valid target state");
          continue;
        }
        if (first) {
          if (!q.getColumn(1).isNull() || *to != State::planned)
            problems.push_back(ev + ": an attempt must start as planned");
        } else if (!from || from != it->second) {
          problems.push_back(ev + ": starts from " + q.getColumn(1).getString() + " but the attempt was " +
                             (it->second ? state_name(*it->second) : std::string("?")));
        } else if (!allowed(*from, *to)) {
          problems.push_back(ev + ": " + state_name(*from) + " -> " + state_name(*to) + " is not allowed");
        }
        it->second = *to;
      }
    }
    for (const auto& [id, state] : stored) {
      auto it = replayed.find(id);
      if (it == replayed.end() || !it->second)
        problems.push_back("attempt " + std::to_string(id) + " has no state events");
      else if (state_name(*it->second) != state)
        problems.push_back("attempt " + std::to_string(id) + " is " + state + " but its events end at " +
                           state_name(*it->second));
    }
    return problems;
  });
}

}  // namespace campaign
