// The scheduler registry and the pieces every back end shares.
#include "sched/scheduler.hpp"

#include <map>

#include "sched/lsf.hpp"
#include "sched/slurm.hpp"
#include "util/strings.hpp"

namespace campaign::sched {

namespace {

std::map<std::string, SchedulerFactory>& registry() {
  static std::map<std::string, SchedulerFactory> r = {
      {"slurm",
       [](transport::Shell& shell, const SchedulerOptions& o) { return std::make_unique<Slurm>(shell, o); }},
      {"lsf",
       [](transport::Shell& shell, const SchedulerOptions& o) { return std::make_unique<Lsf>(shell, o); }},
  };
  return r;
}

}  // namespace

std::string_view to_string(SubmitFailure kind) {
  switch (kind) {
    case SubmitFailure::refused_by_limit:
      return "refused_by_limit";
    case SubmitFailure::transient:
      return "transient";
    case SubmitFailure::invalid:
      return "invalid";
  }
  return "invalid";
}

SubmitError::SubmitError(SubmitFailure kind, const std::string& message)
    : SchedulerError(message), kind_(kind) {}

void register_scheduler(const std::string& kind, SchedulerFactory factory) {
  registry()[kind] = std::move(factory);
}

std::vector<std::string> scheduler_kinds() {
  std::vector<std::string> kinds;
  for (const auto& [k, f] : registry()) kinds.push_back(k);
  return kinds;
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& kind, transport::Shell& shell,
                                          const SchedulerOptions& options) {
  auto it = registry().find(kind);
  if (it == registry().end()) {
    auto kinds = scheduler_kinds();
    throw Error("unknown scheduler '" + kind + "'" + did_you_mean(kind, kinds) +
                " (known: " + join(kinds, ", ") + ")");
  }
  return it->second(shell, options);
}

std::vector<std::vector<std::string>> chunk_by_length(const std::vector<std::string>& items,
                                                      size_t fixed_chars, size_t max_chars) {
  std::vector<std::vector<std::string>> chunks;
  size_t used = fixed_chars;
  for (const auto& item : items) {
    size_t cost = item.size() + 1;
    if (chunks.empty() || (used + cost > max_chars && !chunks.back().empty())) {
      chunks.emplace_back();
      used = fixed_chars;
    }
    chunks.back().push_back(item);
    used += cost;
  }
  return chunks;
}

ArrayTraits array_traits(std::string_view kind) {
  if (kind == "slurm") return {true, 0};  // --array=0-(n-1)
  if (kind == "lsf") return {true, 1};    // name[1-n]
  return {};
}

}  // namespace campaign::sched
