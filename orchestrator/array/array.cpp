#include "array/array.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "render/batch.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

namespace campaign::array {

std::vector<PlannedArray> group_arrays(const matrix::Plan& plan, const std::vector<size_t>& cases,
                                       const std::function<long(size_t)>& walltime_of, long max_tasks) {
  std::vector<PlannedArray> out;
  for (size_t i : cases) {
    const matrix::Case& c = plan.cases[i];
    if (out.empty() || static_cast<long>(out.back().ids.size()) >= max_tasks ||
        out.back().partition != c.partition)
      out.push_back({c.partition, {}, 0});
    out.back().ids.push_back(i);
    out.back().walltime_s = std::max(out.back().walltime_s, walltime_of ? walltime_of(i) : c.walltime_s);
  }
  return out;
}

std::string render_array(const matrix::Plan& plan, const matrix::Case& first, const ArrayJob& job) {
  Mustache tmpl = render::batch_template(plan, "array", "job arrays");
  MustacheData d = render::batch_data(plan, job.partition, {&first}, job.job_name, job.walltime_s);
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  const long tasks = static_cast<long>(job.scripts.size());
  set("nodes", std::to_string(first.job_nodes()));
  set("ranks", std::to_string(first.job_ranks()));
  render::set_case_resources(d, plan, first);
  set("tasks", std::to_string(tasks));
  set("first_task", std::to_string(job.first_task));
  set("last_task", std::to_string(job.first_task + tasks - 1));
  set("throttle", job.throttle > 0 ? std::to_string(job.throttle) : "");
  set("dir", job.dir.string());
  set("index", (job.dir / kIndexName).string());
  return tmpl.render(d, true);
}

void write_array(const ArrayJob& job, const std::string& script_text) {
  std::error_code ec;
  fs::create_directories(job.dir, ec);
  if (ec) throw Error("cannot create " + job.dir.string() + ": " + ec.message());
  std::string index;
  for (auto& s : job.scripts) index += s.string() + "\n";
  write_file_atomic(job.dir / kIndexName, index);
  write_file_atomic(job.dir / kArrayScript, script_text,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec);
}

std::vector<fs::path> read_index(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path.string());
  std::vector<fs::path> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.emplace_back(line);
  return out;
}

}  // namespace campaign::array
