// `campaign systems [FILE]`: every system profile the search path offers (spec/library.hpp), the file
// each comes from and the files it hides, and which one `auto` picks on this host.
#include <iostream>

#include "cli/cli.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

int list_systems(const std::string& campaign_file) {
  fs::path near;
  if (!campaign_file.empty()) {
    if (!fs::is_regular_file(campaign_file))
      throw InputError({"campaign systems"}, "FILE", "'" + campaign_file + "' is not a file");
    near = fs::absolute(campaign_file).parent_path();
  }
  auto files = spec::data_files(near, "systems", ".yaml");
  size_t width = 6;
  for (auto& f : files) width = std::max(width, f.name.size());
  std::cout << "System profiles (the first found wins; `campaign paths` shows the search order):\n";
  int status = 0;
  for (auto& f : files) {
    std::string what;
    try {
      spec::System s = spec::load_system_file(f.path);
      what = s.scheduler;
    } catch (const Error& e) {
      what = "error";
      std::cerr << e.what() << "\n";
      status = 2;
    }
    std::cout << "  " << f.name << std::string(width + 2 - f.name.size(), ' ') << what
              << std::string(what.size() < 7 ? 7 - what.size() : 1, ' ') << f.path.string() << "  ["
              << spec::to_string(f.kind) << "]\n";
    for (auto& h : f.hidden)
      std::cout << "  " << std::string(width + 9, ' ') << "hides " << h.string() << "\n";
  }
  if (files.empty()) std::cout << "  (none)\n";
  try {
    spec::ResolvedSystem chosen = spec::auto_system(near);
    std::cout << "auto: " << chosen.system.name << " (" << chosen.how.substr(chosen.how.find(": ") + 2)
              << ")\n";
  } catch (const Error& e) {
    std::cout << "auto: none (" << e.what() << ")\n";
    status = 2;
  }
  return status;
}

}  // namespace

void add_systems(CLI::App& app, int& status) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "systems",
      "List every system profile with the file it comes from (and those it hides) and the one "
      "`auto` picks on this host");
  cmd->add_option("FILE", *file, "A campaign file: its own systems/ folder is searched first");
  cmd->callback([file, &status] { status = list_systems(*file); });
}

}  // namespace campaign::cli
