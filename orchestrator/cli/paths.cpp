// `campaign paths [FILE]` and `campaign --version`: the version, the binary, and the folders searched
// for systems/, templates/, collectors/, campaigns/ and workloads/, in order (spec/library.hpp), so a
// user sees which profile or collector wins before running anything.
#include <iostream>
#include <sstream>

#include "cli/cli.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

std::string paths_text(const std::string& campaign_file) {
  fs::path near;
  if (!campaign_file.empty()) {
    if (!fs::is_regular_file(campaign_file))
      throw InputError({"campaign paths"}, "FILE", "'" + campaign_file + "' is not a file");
    near = fs::absolute(campaign_file).parent_path();
  }
  // Each root once, in the order of the first folder that searches it.
  std::vector<spec::DataRoot> roots;
  for (const char* folder : spec::kDataFolders)
    for (auto& r : spec::search_roots(near, folder))
      if (std::none_of(roots.begin(), roots.end(), [&](const spec::DataRoot& u) { return u.path == r.path; }))
        roots.push_back(r);
  // In the order every folder searches them: a campaign's own folder first, even when it holds only
  // some folders (found after the source tree by the first folder's search otherwise: issue 33).
  std::stable_sort(roots.begin(), roots.end(), [](const spec::DataRoot& a, const spec::DataRoot& b) {
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  std::ostringstream out;
  out << "campaign " << CAMPAIGN_VERSION << " (" << self_exe() << ")\n";
  out << "Folders searched for "
      << join(std::vector<std::string>(std::begin(spec::kDataFolders), std::end(spec::kDataFolders)), "/, ")
      << "/, in order (the first file found wins):\n";
  auto line = [&](const std::string& number, const std::string& kind, const std::string& what) {
    out << "  " << number << kind << std::string(kind.size() < 21 ? 21 - kind.size() : 1, ' ') << what
        << "\n";
  };
  if (near.empty())
    line("-  ", "campaign", "(given a campaign file) its folder, or the nearest parent holding the folder");
  size_t n = 0;
  for (auto& r : roots) {
    std::vector<std::string> has;
    std::error_code ec;
    for (const char* folder : spec::kDataFolders)
      if (fs::is_directory(r.path / folder, ec)) has.push_back(folder);
    line(std::to_string(++n) + ". ", std::string(spec::to_string(r.kind)),
         r.path.string() + "  (" + (has.empty() ? "nothing there" : join(has, ", ")) + ")");
  }
  if (!std::getenv("CAMPAIGN_PATH")) out << "  CAMPAIGN_PATH is not set (site folders, colon-separated)\n";
  return out.str();
}

void add_paths(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("paths",
                                 "Print the version and the folders searched for system profiles, templates, "
                                 "collectors, campaigns and workloads, in order (also: campaign --version)");
  cmd->add_option("FILE", *file, "A campaign file: its own folder is searched first");
  cmd->callback([file] { std::cout << paths_text(*file); });
}

}  // namespace campaign::cli
