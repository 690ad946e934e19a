#include "engine/memory.hpp"

#include <fmt/format.h>

#include <charconv>

namespace campaign::engine {

namespace {

// How each recorded map's entries read as observations: a fact's name and its value as (since, value).
struct Encoded {
  std::optional<Time> since;
  std::string value;
};
Encoded encode(const Time& t) { return {t, {}}; }
Encoded encode(int status) { return {std::nullopt, std::to_string(status)}; }
Encoded encode(const Memory::Unconfirmed& u) { return {u.unrecorded_since, u.job_id}; }

void decode(const Observation& o, Time& t) { t = o.since.value_or(Time{}); }
void decode(const Observation& o, int& status) {
  status = 0;
  std::from_chars(o.value.data(), o.value.data() + o.value.size(), status);
}
void decode(const Observation& o, Memory::Unconfirmed& u) { u = {o.value, o.since}; }

template <class V>
void diff(const char* fact, const Facts<V>& before, const Facts<V>& after, std::vector<Observation>& out) {
  for (auto& [id, v] : after)
    if (auto it = before.find(id); it == before.end() || !(it->second == v)) {
      Encoded e = encode(v);
      out.push_back({id, fact, true, e.since, e.value});
    }
  for (auto& [id, v] : before)
    if (!after.count(id)) out.push_back({id, fact, false, std::nullopt, {}});
}

// diff(as at the mark, now) from what was noted: the same observations in the same order.
template <class V>
void noted_changes(const char* fact, const Facts<V>& now, std::vector<Observation>& out) {
  for (auto& [id, was] : now.noted())
    if (auto it = now.find(id); it != now.end() && !(was && *was == it->second)) {
      Encoded e = encode(it->second);
      out.push_back({id, fact, true, e.since, e.value});
    }
  for (auto& [id, was] : now.noted())
    if (was && !now.count(id)) out.push_back({id, fact, false, std::nullopt, {}});
}

template <class V>
bool apply(const char* fact, const Observation& o, Facts<V>& map) {
  if (o.fact != fact) return false;
  if (o.held)
    decode(o, map[o.attempt_id]);
  else
    map.erase(o.attempt_id);
  return true;
}

template <class V>
std::string compare(const char* fact, const Facts<V>& a, const Facts<V>& b) {
  for (auto& [id, v] : a)
    if (auto it = b.find(id); it == b.end() || !(it->second == v))
      return fmt::format("{} of attempt {}: {} in one, {} in the other", fact, id, encode(v).value,
                         it == b.end() ? "absent" : "different");
  for (auto& [id, v] : b)
    if (!a.count(id)) return fmt::format("{} of attempt {}: absent in one, held in the other", fact, id);
  return {};
}

}  // namespace

std::vector<Observation> memory_changes(const Memory& before, const Memory& after) {
  std::vector<Observation> out;
  diff("missing", before.missing, after.missing, out);
  diff("marker_exit", before.marker_exit, after.marker_exit, out);
  diff("unconfirmed", before.unconfirmed, after.unconfirmed, out);
  diff("awaiting_steps", before.awaiting_steps, after.awaiting_steps, out);
  return out;
}

Memory fold_memory(const std::vector<Observation>& recorded) {
  Memory m;
  for (const Observation& o : recorded)
    apply("missing", o, m.missing) || apply("marker_exit", o, m.marker_exit) ||
        apply("unconfirmed", o, m.unconfirmed) || apply("awaiting_steps", o, m.awaiting_steps);
  m.mark();  // what is recorded already
  return m;
}

void Memory::mark() {
  marked_polls_ = polls_since_confirm;
  marked_awaiting_ = awaiting_submission;  // (empty but for submissions of unknown outcome)
  missing.mark();
  marker_exit.mark();
  unconfirmed.mark();
  awaiting_steps.mark();
}

void Memory::undo() {
  polls_since_confirm = marked_polls_;
  awaiting_submission = marked_awaiting_;
  missing.undo();
  marker_exit.undo();
  unconfirmed.undo();
  awaiting_steps.undo();
}

std::vector<Observation> Memory::changes() const {
  std::vector<Observation> out;
  noted_changes("missing", missing, out);
  noted_changes("marker_exit", marker_exit, out);
  noted_changes("unconfirmed", unconfirmed, out);
  noted_changes("awaiting_steps", awaiting_steps, out);
  return out;
}

std::string memory_difference(const Memory& a, const Memory& b) {
  for (std::string d :
       {compare("missing", a.missing, b.missing), compare("marker_exit", a.marker_exit, b.marker_exit),
        compare("unconfirmed", a.unconfirmed, b.unconfirmed),
        compare("awaiting_steps", a.awaiting_steps, b.awaiting_steps)})
    if (!d.empty()) return d;
  return {};
}

}  // namespace campaign::engine
