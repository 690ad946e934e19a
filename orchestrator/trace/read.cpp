// The catalog rows the trace is built from (trace.hpp); the builder itself reads nothing.
#include <limits>

#include "trace/trace.hpp"

namespace campaign::trace {

Input read(Catalog& catalog, const CampaignRecord& campaign) {
  Input in;
  in.campaign = campaign;
  std::vector<State> all;
  for (int s = 0; s <= static_cast<int>(State::collect_failed); ++s) all.push_back(static_cast<State>(s));
  in.attempts = catalog.attempts_in(campaign.id, all);
  in.events = catalog.events(campaign.id, std::numeric_limits<std::size_t>::max());
  in.series = catalog.metric_series_of(campaign.id, series_names());
  return in;
}

}  // namespace campaign::trace
