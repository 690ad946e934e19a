// Job scripts: a case rendered through its system's template (templates/
// slurm.sh.mustache, lsf.sh.mustache, local.sh.mustache or the campaign's
// own), with the system's directives, modules, environment and launch line.
// The case body they share (run directory, claim, start stamp, traps, modules,
// environment, setup) is one partial, templates/partials/case.sh.mustache,
// that each includes as `{{> case}}` (util/mustache.hpp writes it in).
//
// Invariants: every name a template uses is defined (else an InputError
// naming it); every script ends by writing its exit status to the marker
// file `.exit` in its run directory (the resume protocol, engine/engine.hpp); job names
// are deterministic (campaign, work directory, case key, attempt).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "matrix/plan.hpp"
#include "util/mustache.hpp"

namespace campaign::render {

inline constexpr const char* kExitMarker = ".exit";
inline constexpr const char* kScriptName = "job.sh";
// A retry runs in its case's run directory, where the earlier attempts' files stay (a checkpoint-
// restart workload reads them). So that an attempt is never credited with an earlier one's outputs,
// its script's first act writes the stamp RUN_DIR/.started-<attempt> (templates: {{start_stamp}}),
// on the machine and file system the job's files are written on; collection takes for attempt N > 1
// only files modified at or after that stamp (collect/attempt.hpp).
inline constexpr const char* kStartStampPrefix = ".started-";
inline std::string start_stamp(int attempt) { return kStartStampPrefix + std::to_string(attempt); }
// Before attempt N > 1 is written, attempt N-1's script is kept as RUN_DIR/attempt-<N-1>/job.sh
// (keep_previous_script): a retry replaces job.sh, where the scheduler reads it, but loses nothing.
// The scheduler's output files are named after their job id and are never overwritten.
inline constexpr const char* kAttemptDirPrefix = "attempt-";
inline std::string attempt_dir(int attempt) { return kAttemptDirPrefix + std::to_string(attempt); }
// A job script's exit status when a `module load` failed (sysexits' EX_CONFIG): the engine names it
// in the attempt's reason. Templates see it as {{module_load_failed}}.
inline constexpr int kModuleLoadFailed = 78;
// One job per attempt: a job script's first act creates RUN_DIR/.claimed-<attempt> holding its job id
// (templates: {{claim}}). A second job of the attempt (a submission answered twice, whose other copy
// ran before the engine could cancel it) finds another id there, leaves the run directory as it is and
// exits with kClaimedElsewhere (sysexits' EX_TEMPFAIL; {{claimed_elsewhere}}); the same job started
// again (a requeue) finds its own.
inline constexpr const char* kClaimPrefix = ".claimed-";
inline std::string claim_file(int attempt) { return kClaimPrefix + std::to_string(attempt); }
inline constexpr int kClaimedElsewhere = 75;
// A case with `instances` runs instance i in RUN_DIR/instance-<i>, its output in kInstanceOutput there.
inline constexpr const char* kInstanceOutput = "output.log";
inline constexpr const char* kInstanceDirPrefix = "instance-";
inline std::string instance_dir(long instance) { return kInstanceDirPrefix + std::to_string(instance); }

struct RenderOptions {
  std::filesystem::path workdir;  // absolute; run dirs are workdir/<case name>
  std::string campaign_exe;       // the binary the local launcher runs
  int attempt = 1;
  long walltime_s = 0;  // 0: the case's own walltime (retries after TIMEOUT raise it)
  // Id used in job names; empty: campaign_id(name, workdir). The engine adds
  // the catalog's creation time, so a campaign run again from scratch in the
  // same directory never adopts jobs of the earlier run.
  std::string campaign_id;
  // A case run as one step of a packed allocation (pack/): the case script
  // (templates/pack/case.sh.mustache, no scheduler directives) with the step
  // launch line of sched/launchers.hpp.
  bool packed = false;
};

struct Script {
  std::string case_name;
  std::string job_name;
  std::filesystem::path run_dir;
  std::filesystem::path path;  // run_dir/job.sh
  std::string text;
  int attempt = 1;
};

// A stable short id of a campaign in one work directory, used in job names.
std::string campaign_id(const std::string& campaign_name, const std::filesystem::path& workdir,
                        const std::string& salt = "");
std::string job_name(const std::string& campaign_id, const matrix::Case& c, int attempt);
// A packed allocation's job name, after the catalog id of its first attempt (unique, and the same
// when a killed run's submission is reconciled).
std::string allocation_name(const std::string& campaign_id, std::int64_t first_attempt);
// A job array's job name, the same way.
std::string array_name(const std::string& campaign_id, std::int64_t first_attempt);

class Renderer {
 public:
  // Finds and compiles each step's template; errors name the template file.
  explicit Renderer(const matrix::Plan& plan);
  Script render(const matrix::Case& c, const RenderOptions& options) const;
  // The template file a step uses, for messages and `plan` output.
  const std::filesystem::path& template_path(size_t step) const { return steps_[step].path; }

 private:
  struct StepTemplates {
    std::filesystem::path path;
    std::shared_ptr<Mustache> script;
    std::shared_ptr<Mustache> launch;
    std::shared_ptr<Mustache> step_launch;  // packed runs and instances: a step on its own nodes
    std::shared_ptr<Mustache> container;
    std::vector<matrix::TextTemplate> setup;
    std::vector<std::pair<std::string, matrix::TextTemplate>> sys_env, job_env;
  };
  const matrix::Plan& plan_;
  std::vector<StepTemplates> steps_;
  std::shared_ptr<Mustache> case_script_;  // packed runs; null: no templates/pack/case.sh.mustache
};

// Renders every case (all errors surface before anything is written), then
// writes the scripts under options.workdir: a new directory appears whole or
// not at all, and each script file is replaced atomically.
std::vector<Script> render_all(const matrix::Plan& plan, const RenderOptions& options);
void write_scripts(const std::vector<Script>& scripts, const std::filesystem::path& workdir);
// Writes one script in place (temporary file + rename); its directory must exist.
void write_script(const Script& script);
// Before `script` (attempt N > 1) replaces its run directory's job.sh: keeps that job.sh, attempt
// N-1's, as attempt-<N-1>/job.sh. Never replaces a kept script, so preparing attempt N again (a
// submission retried) keeps attempt N-1's, not N's. Throws Error when the copy cannot be written.
void keep_previous_script(const Script& script);

// A case's geometry and what it asks beyond it (resource/model.hpp), for scripts and directives:
// ranks_per_node, cpus_per_rank, gpus_per_rank (0.5 for a share), ranks_per_gpu (k of a share 1/k, else
// 1), node_cores, node_gpus, node_memory_mb (per node; on a one-host system the whole job's), memory_mb,
// jsrun's resource_sets, resource_sets_per_node, ranks_per_resource_set, cpus_per_resource_set and
// gpus_per_resource_set (a set per rank, or k ranks and one GPU when they share),
// and the sections `gpus` (any), `gpus_whole` (whole GPUs per rank), `gpus_shared` (ranks share GPUs),
// `memory`, `exclusive`, `oversubscribe`. `nodes` and `ranks` are the caller's (per instance or the
// whole job's).
void set_case_resources(MustacheData& d, const matrix::Plan& plan, const matrix::Case& c);

}  // namespace campaign::render
