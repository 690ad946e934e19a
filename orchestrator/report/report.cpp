// Implements report/report.hpp: writes the per-table files, renders the plots,
// then the documents that link or embed them.
#include "report/report.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/stalls.hpp"
#include "analysis/whatif.hpp"
#include "report/plot.hpp"
#include "report/process.hpp"
#include "report/writers.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace campaign::report {

namespace fs = std::filesystem;
using analysis::AnalysisSpec;
using analysis::Scaling;

std::string_view to_string(Format f) {
  switch (f) {
    case Format::md:
      return "md";
    case Format::csv:
      return "csv";
    case Format::json:
      return "json";
    case Format::html:
      return "html";
  }
  return "?";
}

std::vector<Format> parse_formats(const std::string& list) {
  const std::vector<Format> all = {Format::md, Format::csv, Format::json, Format::html};
  std::vector<std::string> names;
  for (Format f : all) names.emplace_back(to_string(f));
  std::vector<Format> out;
  for (const std::string& raw : split(list, ',')) {
    std::string name = trim(raw);
    if (name.empty()) continue;
    if (name == "all") return all;
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw Error("unknown report format '" + name + "' (known: " + join(names, ", ") + ", all)" +
                  did_you_mean(name, names));
    Format f = all[static_cast<size_t>(it - names.begin())];
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  if (out.empty()) throw Error("no report format given (known: " + join(names, ", ") + ", all)");
  return out;
}

void add_runs(Provenance& p, const std::vector<analysis::CaseResult>& cases) {
  std::set<std::string> jobs(p.job_ids.begin(), p.job_ids.end()), nodes(p.nodes.begin(), p.nodes.end());
  for (const auto& c : cases) {
    if (!c.job_id.empty() && jobs.insert(c.job_id).second) p.job_ids.push_back(c.job_id);
    if (!c.nodelist.empty() && nodes.insert(c.nodelist).second) p.nodes.push_back(c.nodelist);
    if (!c.start.empty() && (p.first_start.empty() || c.start < p.first_start)) p.first_start = c.start;
    if (!c.end.empty() && (p.last_end.empty() || c.end > p.last_end)) p.last_end = c.end;
  }
}

namespace detail {

std::string describe(const AnalysisSpec& s) {
  if (!s.description.empty()) return s.description;
  std::ostringstream d;
  // The warm-up is said in every report (issue 33: the default dropped the first epoch unseen).
  const std::string w = analysis::format_cell(s.time.warmup);
  std::string time =
      "mean `" + s.time.metric + "` over steps >= " + w +
      (s.time.warmup > 0
           ? " (warm-up: steps below " + w + " dropped, `time: {warmup: " + w + "}`" +
                 (s.time.warmup == 1 ? ", the default: the first epoch, step 0, is left out" : "") +
                 "; `warmup: 0` keeps every step; a value collected without steps counts whole)"
           : " (every step: `warmup: 0`)");
  // analysis/scaling.cpp rate_of: every rate over repetitions.
  const char* rate =
      " Over repetitions: time = their mean; throughput = samples / mean time, its std = samples * "
      "std(time) / mean(time)^2.";
  switch (s.scaling) {
    case Scaling::weak:
      d << "Weak scaling over `" << s.x << "`: time = " << time << "; samples = `" << s.samples
        << "`; throughput = samples / time; ideal = throughput(r0) * r / r0 with r0 the smallest `" << s.x
        << "`; eff = throughput / ideal." << rate;
      break;
    case Scaling::strong:
      d << "Strong scaling over `" << s.x << "`: time = " << time << ";";
      if (!s.samples.empty())
        d << " samples = `" << s.samples
          << "`; throughput = samples / time; ideal = throughput(r0) * r / r0;";
      d << " speedup = time(r0) / time(r) with r0 the smallest `" << s.x << "`; eff = speedup * r0 / r.";
      if (!s.samples.empty()) d << rate;
      break;
    case Scaling::mlperf_weak:
      d << "MLPerf HPC weak scaling over the instances of each case: time to train = run_stop - run_start "
           "of an instance; reached = its run_stop status is success; time to train all = the last run_stop "
           "minus the first run_start of the instances that reached the target; models per minute = "
           "reached / time to train all in minutes.";
      break;
    case Scaling::mlperf_strong:
      d << "MLPerf HPC strong scaling over `" << s.x
        << "`: time to train = run_stop - run_start of the case's MLLOG (run_time), counted only when "
           "run_stop "
           "says the target was reached (run_success); speedup = time to train(r0) / time to train(r) with "
           "r0 "
           "the smallest `"
        << s.x
        << "`; eff = speedup * r0 / r (both of the plain mean over the runs). time_to_train_score = MLPerf "
           "HPC's score: the mean of the runs after discarding the fastest and the slowest (3 runs or "
           "more).";
      if (!s.samples.empty()) d << " throughput = `" << s.samples << "` / time to train." << rate;
      break;
    case Scaling::none:
      d << "Per `" << s.x << "`: time = " << time << ".";
      if (!s.samples.empty()) d << " Throughput = `" << s.samples << "` / time." << rate;
      break;
    case Scaling::window:
      d << "Per `" << s.x << "`: " << analysis::value_column(s) << " = the mean of the samples of `"
        << s.window->series << "` within each epoch's window [`" << s.window->start << "`, `" << s.window->end
        << "`] (every matching series alike), averaged over epochs >= "
        << analysis::format_cell(s.time.warmup)
        << "; an epoch with no sample after its end is skipped, one with none before its start leaves the "
           "case "
           "out. The progress curves: the samples of each window, moving average of "
        << s.window->smooth
        << (s.window->progress == analysis::WindowSpec::Progress::time
                ? " (partial windows at the start), at " + std::to_string(s.window->points) +
                      " points of epoch progress 0-100 % by time, averaged over the epochs"
                : " (full windows only, as np.convolve mode \"valid\"), progress by sample index, each "
                  "epoch's "
                  "curve stretched to the longest by linear interpolation before averaging")
        << ", then mean ± population std over repetitions.";
      break;
    case Scaling::stalls: {
      const analysis::StallTableSpec& o = s.stalls;
      std::vector<std::string> fetch, start;
      for (auto a : o.fetch) fetch.emplace_back(to_string(a));
      for (auto a : o.start) start.emplace_back(to_string(a));
      d << "DS-Analyzer's tables of each case (its notebook's definitions and names), over the iterations of "
        << analysis::kept_epochs(s) << " past the first " << o.skip_iterations
        << " of each epoch (`skip_iterations`). Per iteration over the ranks (GPUs): iteration time and "
           "training stall = their max; delay = max - min of the stalls; preprocessing (fetch) diff and "
           "start "
           "diff = max - min of the fetch times and of the fetch starts (fetch done - fetch time). `Avg` = "
           "the mean over the iterations, `_std` its sample standard deviation; Effective Delay time (%) = "
           "the share of iterations whose delay exceeds "
        << analysis::format_exact(o.delay_threshold)
        << " s. `-whatif` tables: the same after aligning every rank's fetch time (rank: its own, avg: the "
           "ranks' mean, min: their minimum) and fetch start (rank, avg: the midrange, min: the earliest), "
           "for fetch in "
        << join(fetch, ", ") << " and start in " << join(start, ", ")
        << ": a rank whose fetch would end earlier stalls that much less (at least 2e-6 s), one whose fetch "
           "would end later and stalled over 0.01 s that much more; Saving = Avg iteration time of rank/rank "
           "minus this one's. Per-iteration tables: every iteration, warm-up included.";
      break;
    }
  }
  if (!s.step.empty()) d << " Cases of step `" << s.step << "`.";
  if (s.compare)
    d << " Columns suffixed `_<value>` are for other values of `" << s.compare->axis << "` than `"
      << s.compare->baseline << "`.";
  if (s.ratio)
    d << " ratio = " << (s.window ? analysis::value_column(s) : "time") << "(" << s.ratio->axis << "="
      << s.ratio->numerator << ") / " << (s.window ? analysis::value_column(s) : "time") << "("
      << s.ratio->axis << "=" << s.ratio->denominator << ").";
  if (s.stall)
    d << " stall = `" << s.stall->data << "` / (`" << s.stall->data << "` + `" << s.stall->compute
      << "`), the fraction of time waiting for data.";
  if (s.scaling != Scaling::mlperf_weak && s.scaling != Scaling::stalls)
    d << " Repetitions (cases differing only in `" << s.repeat
      << "`) are averaged; _std columns are sample standard deviations.";
  return d.str();
}

std::string heading(const analysis::AnalysisResult& a, const analysis::Table& t) {
  if (t.analysis == a.spec.name) return t.group_label();
  return t.group.empty() ? t.analysis : t.analysis + ": " + t.group_label();
}

std::vector<LeftOut> left_out(const ReportInput& in) {
  std::vector<LeftOut> out;
  for (const auto& a : in.analyses) {
    for (const auto& e : a.excluded) out.push_back({a.spec.name, e});
  }
  for (const auto& e : in.failed) out.push_back({"", e});
  return out;
}

std::vector<std::pair<std::string, std::string>> data_links(const TableFiles& files,
                                                            const std::string& stem) {
  std::vector<std::pair<std::string, std::string>> links;
  if (files.svg) links.emplace_back("SVG", stem + ".svg");
  if (files.script) {
    links.emplace_back("gnuplot script", stem + ".gp");
    links.emplace_back("plot data", stem + ".dat");
  }
  if (files.csv) links.emplace_back("CSV", stem + ".csv");
  if (files.json) links.emplace_back("JSON", stem + ".json");
  return links;
}

std::string abbreviate(const std::vector<std::string>& items, size_t keep) {
  if (items.size() <= keep) return join(items, ", ");
  std::vector<std::string> head(items.begin(), items.begin() + static_cast<long>(keep));
  return join(head, ", ") + ", ... (" + std::to_string(items.size()) + " in all)";
}

std::string base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v =
        (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 | (unsigned char)bytes[i + 2];
    out += abc[v >> 18], out += abc[(v >> 12) & 63], out += abc[(v >> 6) & 63], out += abc[v & 63];
  }
  if (i + 1 == bytes.size()) {
    unsigned v = (unsigned char)bytes[i] << 16;
    out += abc[v >> 18], out += abc[(v >> 12) & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8;
    out += abc[v >> 18], out += abc[(v >> 12) & 63], out += abc[(v >> 6) & 63], out += '=';
  }
  return out;
}

void write_file(const fs::path& path, const std::string& text, std::vector<fs::path>& written) {
  write_file_atomic(path, text);
  written.push_back(path);
}

}  // namespace detail

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool has(const std::vector<Format>& formats, Format f) {
  return std::find(formats.begin(), formats.end(), f) != formats.end();
}

}  // namespace

ReportResult write_report(const ReportInput& input, const std::vector<Format>& formats,
                          const fs::path& out_dir, const ReportOptions& options) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error("cannot create " + out_dir.string() + ": " + ec.message());

  ReportResult result;
  detail::Context ctx{
      input, {}, "", {}, input.provenance.generated.empty() ? now_utc() : input.provenance.generated};
  const bool plots = has(formats, Format::md) || has(formats, Format::html);

  std::vector<std::string> scripts;  // stems with a .gp to render
  for (const auto& a : input.analyses) {
    for (const auto& t : a.tables) {
      const std::string stem = t.stem();
      if (ctx.files.count(stem)) throw Error("two tables would both be written as " + stem + ".*");
      detail::TableFiles& files = ctx.files[stem];
      if (has(formats, Format::csv)) {
        detail::write_file(out_dir / (stem + ".csv"), detail::table_csv(t), result.files);
        files.csv = true;
      }
      if (has(formats, Format::json)) {
        detail::write_file(out_dir / (stem + ".json"), detail::table_json(a, t), result.files);
        files.json = true;
      }
      if (!plots) continue;
      std::string gp = plot_script(a, t);
      if (gp.empty()) continue;
      detail::write_file(out_dir / (stem + ".dat"), plot_data(t), result.files);
      detail::write_file(out_dir / (stem + ".gp"), gp, result.files);
      files.script = true;
      scripts.push_back(stem);
    }
  }

  if (!scripts.empty()) {
    std::optional<fs::path> gnuplot =
        find_executable(options.gnuplot, options.search_path.value_or(environment_path()));
    if (!gnuplot) {
      ctx.plot_status = "gnuplot was not found ('" + options.gnuplot +
                        "' on the search path), so there are no plots. Install gnuplot (Debian: gnuplot-nox) "
                        "and run the report again, or run the .gp scripts beside this report.";
      result.warnings.push_back("gnuplot not found: report has tables only");
      for (const auto& stem : scripts) {  // never show plots of an earlier report as this one's
        fs::remove(out_dir / (stem + ".svg"), ec);
        fs::remove(out_dir / (stem + ".png"), ec);
      }
    } else {
      for (const auto& stem : scripts) {
        std::string err = render_plot(*gnuplot, out_dir, stem, options.plot_timeout);
        if (!err.empty()) {
          result.warnings.push_back(err);
          continue;
        }
        detail::TableFiles& files = ctx.files[stem];
        files.svg = files.png = true;
        files.svg_text = read_file(out_dir / (stem + ".svg"));
        result.files.push_back(out_dir / (stem + ".svg"));
        result.files.push_back(out_dir / (stem + ".png"));
        result.plotted = true;
      }
    }
  }
  ctx.warnings = result.warnings;
  if (!ctx.plot_status.empty()) ctx.warnings.clear();  // the notice already says it

  if (has(formats, Format::md))
    detail::write_file(out_dir / "report.md", detail::markdown(ctx), result.files);
  if (has(formats, Format::html))
    detail::write_file(out_dir / "report.html", detail::html(ctx), result.files);
  return result;
}

}  // namespace campaign::report
