// The nsys engine: the GPU summaries of Nsight Systems' `nsys stats --format csv`, per kernel and
// per memory operation kind: nsys_time:NAME (total, s), nsys_instances:NAME, nsys_avg:NAME (s).
//
// What it reads, in any number of files: the files `--output PREFIX` writes (one table each,
// PREFIX_cuda_gpu_kern_sum.csv ...), or the console output (tables after "Processing [...]" and
// " ** ... Summary (report):" lines, blank lines between). A table is recognised by its header:
//   kernels (cuda_gpu_kern_sum; before 2022.4 gpukernsum):
//     Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
//     Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name
//   memory operations by time (cuda_gpu_mem_time_sum; gpumemtimesum):
//     Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation
//     Time(%),Total Time (ns),Operations,Average,Minimum,Maximum,Operation
// that is "Total Time (ns)", a count (Instances, Count or Operations) and a name (Name or
// Operation). Other tables (API, OS runtime, memory sizes, NVTX) have none of these sets and are
// skipped with the tool's chatter. The average is total / instances: exact, and the same in both
// layouts (a kernel listed once per grid size, as some versions do, is summed first).
//
// Policy: a row of a recognised table with the wrong number of cells or a cell that is not a
// number is an error (file and line); a line that does not start with a number ends the table
// (the tool's next message); a last line without newline is dropped with a warning; no table at
// all is an error, unless nsys said SKIPPED (no CUDA data in the report): then a warning.
#include <map>

#include "collect/engines.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace {

struct Table {
  size_t ncols = 0;
  size_t time = 0, count = 0, name = 0;
};

// The columns of a kernel or memory-time summary, or nullopt for any other line.
std::optional<Table> recognise(const std::vector<std::string_view>& cells) {
  std::optional<size_t> time, count, name;
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string_view c = trim_view(cells[i]);
    if (c == "Total Time (ns)") time = i;
    if (c == "Instances" || c == "Count" || c == "Operations") count = i;
    if (c == "Name" || c == "Operation") name = i;
  }
  if (!time || !count || !name) return std::nullopt;
  return Table{cells.size(), *time, *count, *name};
}

[[noreturn]] void fail(const Input& in, size_t line, std::string reason) {
  throw CollectError(Location{in.name, static_cast<int>(line), 0}, std::move(reason));
}

struct Sum {
  double time_ns = 0, count = 0;
};

}  // namespace

void run_nsys(const std::vector<Input>& inputs, Output& out) {
  std::map<std::string, Sum> sums;  // by kernel or operation name, over every table and file
  bool any_table = false;
  std::string skipped;  // nsys's own "SKIPPED: ... does not contain CUDA ... data" line
  std::vector<std::string_view> cells;
  for (const Input& in : inputs) {
    LineReader lines(in.text);
    std::string_view line;
    std::optional<Table> table;
    while (lines.next(line)) {
      const size_t ln = lines.number();
      const std::string_view t = trim_view(line);
      if (t.empty()) {
        table.reset();
        continue;
      }
      if (starts_with(t, "SKIPPED:") && skipped.empty()) skipped = std::string(t);
      split_cells(line, ',', cells);
      if (!table) {
        if ((table = recognise(cells))) any_table = true;
        continue;
      }
      if (!parse_number(cells.front(), true)) {  // the tool's next message, or another table's header
        table = recognise(cells);
        continue;
      }
      if (lines.unterminated()) {
        out.warnings.add(in.name, ln,
                         "last line has no newline (file cut while being written?); row ignored");
        break;
      }
      if (cells.size() != table->ncols)
        fail(in, ln,
             "row has " + std::to_string(cells.size()) + " cells, the header has " +
                 std::to_string(table->ncols));
      auto number = [&](size_t col, const char* what) {
        auto v = parse_number(cells[col], true);
        if (!v || !(*v >= 0))
          fail(in, ln, std::string(what) + " is not a non-negative number: " + preview(cells[col]));
        return *v;
      };
      const std::string name(trim_view(cells[table->name]));
      if (name.empty()) fail(in, ln, "empty kernel or operation name");
      Sum& s = sums[name];
      s.time_ns += number(table->time, "Total Time (ns)");
      s.count += number(table->count, "the count");
    }
  }
  if (!any_table) {
    if (!skipped.empty()) {
      out.warnings.add(inputs.front().name, 0, "no GPU summary: nsys says " + preview(skipped, 120));
      return;
    }
    fail(inputs.front(), 0,
         "no kernel or memory-time summary of `nsys stats --format csv` (a header with 'Total Time (ns)', "
         "'Instances' or 'Count', and 'Name' or 'Operation')");
  }
  // One series per name, each its own metric: sorted names keep the output deterministic.
  for (const auto& [name, s] : sums) {
    out.metrics.push_back(Metric{"nsys_time:" + name, std::nullopt, s.time_ns * 1e-9, "s"});
    out.metrics.push_back(Metric{"nsys_instances:" + name, std::nullopt, s.count, ""});
    if (s.count > 0)
      out.metrics.push_back(Metric{"nsys_avg:" + name, std::nullopt, s.time_ns * 1e-9 / s.count, "s"});
  }
}

}  // namespace campaign::collect
