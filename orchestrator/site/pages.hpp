// The pages of the site (site.hpp), each a pure function of the model to the
// text of one HTML file, so every piece is tested on strings.
#pragma once

#include <string>

#include "site/site.hpp"

namespace campaign::site {

std::string index_html(const Site& site);
std::string run_html(const CampaignSite& c, size_t run);
std::string metric_html(const CampaignSite& c, size_t metric);

// The label a run was given (--label), "" when its version is just the commit.
std::string label_of(const CodeRecord& code);

}  // namespace campaign::site
