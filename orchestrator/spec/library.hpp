// Where the user-editable data folders are found (systems/, templates/,
// collectors/), and which system profile a command uses.
//
// Search order for data roots: $CAMPAIGN_PATH (colon-separated), the campaign
// file's directory and its parents (the first holding the folder), the
// installed <prefix>/share/campaign, then the source tree the binary was built from.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/campaign.hpp"
#include "spec/system.hpp"

namespace campaign::spec {

// Roots that may hold `folder` (e.g. "systems"), most specific first.
std::vector<std::filesystem::path> data_roots(const std::filesystem::path& near, const std::string& folder);

// `name` as a path if it is one (contains '/' or ends in .yaml), else NAME.yaml in `folder`.
std::optional<std::filesystem::path> find_data_file(const std::filesystem::path& near,
                                                    const std::string& folder, const std::string& name,
                                                    const std::string& ext);

// Names available in `folder` (file stems), for "did you mean" and listings.
std::vector<std::string> available(const std::filesystem::path& near, const std::string& folder,
                                   const std::string& ext);

struct ResolvedSystem {
  System system;
  std::string how;  // "--system", "campaign", "auto: host daint101", "auto: default"
};

// --system (requested, may be empty) > campaign `system:` > auto (hostnames) > local.
// Unknown names are InputErrors pointing at the campaign key or naming the option.
ResolvedSystem resolve_system(const std::string& requested, const Campaign& campaign);

// Host names used for auto-detection ($CAMPAIGN_HOSTNAME overrides, for tests).
std::pair<std::string, std::string> host_names();

}  // namespace campaign::spec
