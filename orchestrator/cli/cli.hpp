// The command-line interface: CLI11 subcommands, one file each. No logic
// beyond parsing options and calling the modules.
//
// Exit status: 0 success, 1 runtime failure, 2 bad input (campaign, system,
// template or command line, a damaged catalog), 3 regressions found (history),
// 3 also a value outside its reference's band (run, resume, report, history),
// 4 the work directory or the catalog could not be written (disk full,
// read-only, I/O error: app.cpp), 130 interrupted.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "collect/attempt.hpp"
#include "history/references.hpp"
#include "matrix/plan.hpp"
#include "matrix/select.hpp"
#include "spec/library.hpp"

namespace campaign::cli {

int main(int argc, char** argv);

// Options shared by the commands that load a campaign.
struct CampaignOptions {
  std::string file;
  std::string system;   // --system
  std::string workdir;  // --workdir
  // Commands that only read what ran set skip: this machine need not hold the cases (matrix::Fit).
  matrix::Fit fit = matrix::Fit::check;
};
void add_campaign_options(CLI::App& cmd, CampaignOptions& o);

// --case GLOB and --only KEY=VALUE (matrix/select.hpp): the cases a command acts on. `what` ends
// the options' help ("run", "show").
struct SelectOptions {
  std::vector<std::string> cases;
  std::vector<std::string> only;
};
void add_select_options(CLI::App& cmd, SelectOptions& o, const std::string& what);
// The selection; an --only without KEY=VALUE is an InputError (exit 2) of `command`.
matrix::Selection selection_of(const SelectOptions& o, const std::string& command);
// Checks it against the cases it chooses from (InputError: an unknown parameter, nothing chosen).
void check_selection(const matrix::Selection& s, const std::string& command,
                     const std::vector<std::pair<std::string, nlohmann::json>>& cases);
void check_selection(const matrix::Selection& s, const std::string& command, const matrix::Plan& plan);

// --tag KEY=VALUE or --tag WORD (repeatable): free-form tags of a run (run, resume) or the tags a run
// must have (list). KEY: letters, digits and _ . : - ; a word's value is "". An InputError (exit 2)
// of `command` for a malformed one.
std::map<std::string, std::string> parse_tags(const std::vector<std::string>& tags,
                                              const std::string& command);
// Whether `tags` hold every one of `wanted` (a word: that tag, whatever its value).
bool has_tags(const std::map<std::string, std::string>& tags,
              const std::map<std::string, std::string>& wanted);

struct Loaded {
  spec::Campaign campaign;  // with the system's override applied
  std::string system_how;   // how the system was chosen
  matrix::Plan plan;
  std::filesystem::path workdir;  // absolute; local (the catalog's) even for a remote system
  collect::StepCollectors collectors;
  // Where the catalog is: the work directory, or for one system of a campaign across several
  // (`system: [a, b]`, `part`) the campaign's, whose folder SYSTEM is this part's work directory.
  std::filesystem::path catalog_dir;
  bool part = false;
};
// Called once the work directory is known, before the matrix is expanded: returns the work
// directory the job scripts will refer to ({{workdir}}), "" for the local work directory.
using ScriptRoot = std::function<std::string(const spec::Campaign&, const spec::System&,
                                             const std::filesystem::path& workdir)>;
// Everything a campaign says is checked here, analyses included, so that a
// mistake stops every command (exit status 2) before anything is submitted.
// `workdir_option` (e.g. plan --out) takes precedence over --workdir.
// A campaign across several systems is one Loaded per system (all of them, or the one --system
// names); load() refuses it, for the commands that take one system.
std::vector<Loaded> load_all(const CampaignOptions& o, const std::string& workdir_option = "",
                             const ScriptRoot& script_root = {});
Loaded load(const CampaignOptions& o, const std::string& workdir_option = "",
            const ScriptRoot& script_root = {});
// An InputError at `file` when `systems` are several: "the campaign runs on several systems (a, b)"
// and `what` (why one is needed).
void require_one_system(const std::vector<std::string>& systems, const std::string& file,
                        const std::string& what);

// For the commands that read what ran (status, show, results, trace): the work directory TARGET
// names ("" is the current directory), a campaign file's resolved as `run` would without checking the
// machine; require_catalog throws Error when nothing has run there yet.
std::filesystem::path reading_workdir(const std::string& target, const std::string& system,
                                      const std::string& workdir);
void require_catalog(const std::filesystem::path& workdir);

// --workdir, else the campaign's `workdir`, else the system's `workdir`/<name>,
// else runs/<name> beside the campaign file. ${VAR} is expanded. For a system
// reached over ssh the system's `workdir` names the remote work directory, not
// this one, so it is skipped.
std::filesystem::path resolve_workdir(const spec::Campaign& c, const spec::System& s,
                                      const std::string& option);

std::string self_exe();

// Subcommand registration (each in its own file).
void add_plan(CLI::App& app);
void add_validate(CLI::App& app);
// Subcommands whose exit status is not just "no error" set `status` (read by main after parsing).
void add_run(CLI::App& app, int& status);  // run and resume
void add_status(CLI::App& app);
void add_cancel(CLI::App& app);
void add_launch(CLI::App& app, int& status);
void add_executor(CLI::App& app);                // hidden: the local executor driven over ssh
void add_pack_exec(CLI::App& app, int& status);  // hidden: the driver inside a packed allocation
void add_sample(CLI::App& app, int& status);     // the utilisation sampler job scripts start
void add_collect(CLI::App& app, int& status);
void add_import(CLI::App& app, int& status);
void add_show(CLI::App& app);
void add_results(CLI::App& app);     // the per-case results table (parameters and metrics)
void add_list(CLI::App& app);        // the campaigns under a folder
void add_completion(CLI::App& app);  // the bash completion script
void add_report(CLI::App& app, int& status);
void add_reference(CLI::App& app);  // reference set: references per system from a run
void add_history(CLI::App& app, int& status);
void add_trace(CLI::App& app);  // the timeline in the Trace Event Format
void add_site(CLI::App& app, int& status);
void add_systems(CLI::App& app, int& status);  // the profiles found, and which one `auto` picks
void add_paths(CLI::App& app);                 // the version and the data folders searched
// The version, the binary and the data folders searched, in order (`paths`, `--version`); a campaign
// file's folder first when one is given.
std::string paths_text(const std::string& campaign_file);

}  // namespace campaign::cli

#include "catalog/catalog.hpp"
#include "report/input.hpp"

namespace campaign::cli {

// Whether catalog row `c` is one system's part of the campaign `name` (NAME@SYSTEM).
bool is_part_of(const CampaignRecord& c, const std::string& name);

// Collects finished cases (with `again`, collected ones too); returns how many failed. `fetch`, when
// given, is called first with the attempts about to be collected (to bring their files back from a
// remote system); its exceptions propagate.
int collect_finished(Catalog& catalog, std::int64_t campaign_id, const collect::StepCollectors& collectors,
                     bool again, const std::function<void(const std::vector<AttemptRow>&)>& fetch = {});
// The cases of the catalog's campaigns that `s` chooses (their ids), by the parameters the catalog
// recorded (the file may have changed since); with `all`, also the cases the file no longer lists. The
// selection is checked against the cases of every campaign together: one catalog can hold several
// campaigns, and a parameter only one of them has, or a glob only one's cases match, is no mistake.
// An empty selection chooses every case. status, show, results and report choose so.
std::set<std::int64_t> chosen_cases(Catalog& catalog, const matrix::Selection& s, bool all,
                                    const std::string& command);

// The report at the end of run/import when the campaign declares analyses; its HTML path.
std::optional<std::filesystem::path> write_final_report(Catalog& catalog, const spec::Campaign& campaign,
                                                        std::int64_t id,
                                                        const std::filesystem::path& workdir);
// The same for a campaign of one system or across several (each part's campaign row), with the
// campaign's references checked: the report's table "references", and what was out.
struct FinalPart {
  const spec::Campaign* campaign;
  std::string system;
  std::int64_t campaign_id = 0;
  bool part = false;  // one system of a campaign across several
};
struct FinalReport {
  std::optional<std::filesystem::path> path;
  history::ReferenceSummary references;
};
FinalReport write_final_report(Catalog& catalog, const std::vector<FinalPart>& parts,
                               const std::filesystem::path& catalog_dir);
// The report's request for `parts`: the references' table added to it, the summary in `summary`.
void add_reference_checks(report::ReportRequest& request, const std::vector<FinalPart>& parts,
                          history::ReferenceSummary& summary);

}  // namespace campaign::cli
