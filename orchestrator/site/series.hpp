// One tracked metric of a campaign across its runs, as `campaign history`
// reads and judges it: the values per series (group: partition, ranks...),
// relative to the first run, with verdicts.
//
// Invariant: this file is the site's only door to history's verdicts
// (judge_series), so a change of regression rules reaches the site, and its
// exit status, in one place.
#pragma once

#include <string>
#include <vector>

#include "history/runs.hpp"
#include "history/verdicts.hpp"
#include "spec/campaign.hpp"

namespace campaign::site {

struct Track {
  spec::Tracked spec;
  std::string kind, unit;  // what the metric was read as, from the first run that had it
  history::Better better = history::Better::lower;
  std::vector<history::RunValues> runs;  // one per run, oldest first
  history::History history;              // empty series when not judged
  std::string problem;                   // why the metric is not followed ("" when it is)
  std::vector<std::string> notes;        // runs without a value, and why
};

// The adapter to history's rules: verdicts of `runs` against the first run.
history::History judge_series(const std::vector<history::RunValues>& runs, history::Better better,
                              double threshold_percent);

// Reads every metric of `specs` from every run (history::measure: each run's
// catalog once) and judges it. A metric that is not found, does not parse or
// has no known direction gets a `problem`.
std::vector<Track> track(const std::vector<history::Run>& runs, const std::vector<spec::Tracked>& specs);

// The worst verdict of the newest judged points: regressed, then improved, within, baseline, none.
history::Verdict latest_verdict(const history::History& h);

}  // namespace campaign::site
