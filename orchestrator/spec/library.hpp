// Where the user-editable data folders are found (systems/, templates/,
// collectors/, ...), and which system profile a command uses.
//
// Search order for data roots, most specific first (the first file found
// wins):
//   1. the campaign's own folder: the campaign file's directory or the
//      nearest parent holding the folder;
//   2. the user's folder: $XDG_CONFIG_HOME/campaign (default ~/.config/campaign);
//   3. the site's folders: $CAMPAIGN_PATH (colon-separated, in order);
//   4. the shipped data: <exe>/../share/campaign when that exists (an
//      installed, relocatable tree), else the source tree the binary was built
//      from (a build tree). An installed binary never reads the source tree.
// A campaign folder that is the shipped one (a shipped campaign) takes the
// shipped place, so a user's or a site's profile still overrides it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/campaign.hpp"
#include "spec/system.hpp"

namespace campaign::spec {

// The data folders a root may hold, as installed under share/campaign.
inline constexpr const char* kDataFolders[] = {"systems", "templates", "collectors", "campaigns",
                                               "workloads"};

enum class RootKind { campaign, user, site, installed, source };
std::string_view to_string(RootKind k);  // "campaign", "user", "site (CAMPAIGN_PATH)", ...

struct DataRoot {
  std::filesystem::path path;
  RootKind kind;
};

// The roots searched for `folder` (e.g. "systems"), in order; `near` is the
// campaign file's directory ("" when there is no campaign). Roots need not
// exist. Each root appears once.
std::vector<DataRoot> search_roots(const std::filesystem::path& near, const std::string& folder);

// The paths of search_roots.
std::vector<std::filesystem::path> data_roots(const std::filesystem::path& near, const std::string& folder);

// `name` as a path if it is one (contains '/' or ends in .yaml), else NAME.yaml in `folder`.
std::optional<std::filesystem::path> find_data_file(const std::filesystem::path& near,
                                                    const std::string& folder, const std::string& name,
                                                    const std::string& ext);

// Names available in `folder` (file stems), for "did you mean" and listings.
std::vector<std::string> available(const std::filesystem::path& near, const std::string& folder,
                                   const std::string& ext);

// Every file NAME`ext` in `folder`, per name the one that wins and those it
// hides (later roots), in name order.
struct DataFile {
  std::string name;
  std::filesystem::path path;
  RootKind kind;
  std::vector<std::filesystem::path> hidden;
};
std::vector<DataFile> data_files(const std::filesystem::path& near, const std::string& folder,
                                 const std::string& ext);

struct ResolvedSystem {
  System system;
  std::string how;  // "--system", "campaign", "auto: host daint101", "auto: default"
};

// --system (requested, may be empty) > campaign `system:` > auto (hostnames) > local.
// Unknown names are InputErrors pointing at the campaign key or naming the option.
ResolvedSystem resolve_system(const std::string& requested, const Campaign& campaign);
// The i-th system of a campaign across several (`system: [a, b]`), its errors at that entry.
ResolvedSystem resolve_listed(const Campaign& campaign, size_t i);

// What `auto` picks here for a campaign in `near`: the first profile (in name
// order) whose hostnames (and detect_env) match this host, else `local`.
ResolvedSystem auto_system(const std::filesystem::path& near);

// Host names used for auto-detection ($CAMPAIGN_HOSTNAME overrides, for tests).
std::pair<std::string, std::string> host_names();

}  // namespace campaign::spec
