// The metrics a campaign's site follows across its runs, each read and judged
// by history::track as `campaign history METRIC` does without --baseline: the
// values per series (group: partition, ranks...), relative to the first run,
// with verdicts.
//
// Invariant: history::track is the site's only door to history's readings and
// verdicts, so a change of regression rules reaches the site, and its exit
// status, in one place.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/runs.hpp"
#include "history/verdicts.hpp"
#include "spec/campaign.hpp"

namespace campaign::site {

struct Track {
  spec::Tracked spec;
  bool by_default = false;  // an analysis' headline column, followed because the campaign has no `track:`
  std::string kind, unit;   // what the metric was read as, from the first run that had it
  history::Better better = history::Better::lower;
  std::vector<history::RunValues> runs;  // one per run, oldest first
  history::History history;              // empty series when not judged
  std::string problem;                   // why the metric is not followed ("" when it is)
  std::vector<std::string> notes;        // runs without a value, and why
  // The campaign's reference for the metric on the runs' system (`reference:`, issue 34): its band is
  // drawn on the plot of values.
  std::optional<spec::Reference> reference;
};

// Reads every metric of `specs` from every run (each run's catalog once) and
// judges it against the oldest run. A metric that does not parse, is not
// found or has no known direction gets a `problem`.
std::vector<Track> track(const std::vector<history::Run>& runs, const std::string& campaign,
                         const std::vector<spec::Tracked>& specs);

// The worst verdict of the newest judged points: regressed, then improved, within, baseline, none.
history::Verdict latest_verdict(const history::History& h);

}  // namespace campaign::site
