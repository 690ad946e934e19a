// The site index's combined plot: every tracked metric of a campaign (each of its series) relative
// to its baseline, in one figure over the commit dates - the ExaRL plan's plot of % MPI, % memcpy and
// runtime - above the small plot of each. `campaign history --plot` draws the same lines
// (history/combined.hpp) with gnuplot.
//
// Invariant: a pure function of the site model; the lines are the relative values of the tracks'
// verdicts, as each metric's own plot shows them.
#pragma once

#include <string>

#include "site/site.hpp"

namespace campaign::site {

// The SVG, or "" when fewer than two metrics have a relative value (the metric's plot says it all).
std::string combined_svg(const CampaignSite& c);

}  // namespace campaign::site
