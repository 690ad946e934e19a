// The tau engine: TAU's `pprof` text (plain `pprof`: one listing per node, context and thread, then
// FUNCTION SUMMARY (total) and (mean); `pprof -s`: the two summaries only). Each listing is
//   %Time  Exclusive msec  Inclusive total msec  #Call  #Subrs  Inclusive usec/call  Name
// with times in msec, "m:ss.mmm" or "h:mm:ss.mmm". What it records (times in s):
//   the mean listing (else node 0's, else a listing with no header):
//     tau_exclusive:R, tau_inclusive:R, tau_calls:R   per routine R
//     tau_exclusive_comm:R [ <comm> = ... ], tau_calls_comm:...   TAU's per-communicator lines, the
//         breakdown of R's own line: kept apart so that nothing sums them with R
//     tau_application_time   `.TAU application`'s inclusive time (else the largest inclusive time of
//         the listing: the top-level routine), what pprof's %Time divides by
//   the total listing: tau_exclusive_total:R, tau_inclusive_total:R, tau_calls_total:R
//   the node listings (a node's contexts and threads summed; absent = 0, as pprof's mean counts it):
//     tau_exclusive_rank:R   step = the node (MPI rank)
//     tau_application_time_rank   step = the node: its runtime, `.TAU application`'s inclusive time
//         (else its largest inclusive time; the longest of its contexts and threads), from which the
//         components derive POP's efficiencies (collect/components.hpp)
// Tagged lines are never summed into routines, components or totals. User-event tables (USER EVENTS)
// are skipped. A row that does not read is a warning; a file with no listing at all is an error.
#include <map>
#include <optional>

#include "collect/engines.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace {

constexpr std::string_view kCommTag = " [ <comm> = ";

struct Row {
  std::string name;
  double exclusive_ms = 0, inclusive_ms = 0, calls = 0;
};

enum class Kind { unnamed, node, total, mean, other };

struct Listing {
  Kind kind = Kind::unnamed;
  long rank = 0;  // of a node listing
  std::vector<Row> rows;
};

// "NODE 3;CONTEXT 0;THREAD 1:" -> 3.
std::optional<long> node_of(std::string_view t) {
  if (!starts_with(t, "NODE ")) return std::nullopt;
  const size_t semi = t.find(';');
  if (semi == std::string_view::npos || t.find("CONTEXT") == std::string_view::npos) return std::nullopt;
  auto n = parse_number(t.substr(5, semi - 5));
  if (!n || *n < 0 || *n != static_cast<double>(static_cast<long>(*n))) return std::nullopt;
  return static_cast<long>(*n);
}

// The six numeric fields and the name; nullopt when the line is not a row.
std::optional<Row> parse_row(std::string_view line) {
  std::string_view rest = trim_view(line);
  std::string_view f[6];
  for (auto& field : f) {
    const size_t end = rest.find_first_of(" \t");
    if (end == std::string_view::npos) return std::nullopt;
    field = rest.substr(0, end);
    rest = trim_view(rest.substr(end));
  }
  Row r;
  r.name = std::string(rest);
  auto excl = parse_tau_msec(f[1]), incl = parse_tau_msec(f[2]);
  auto calls = parse_number(f[3], true);
  if (r.name.empty() || !parse_number(f[0]) || !excl || !incl || !calls || !parse_number(f[4], true) ||
      !parse_number(f[5], true) || !(*excl >= 0) || !(*incl >= 0) || !(*calls >= 0))
    return std::nullopt;
  r.exclusive_ms = *excl, r.inclusive_ms = *incl, r.calls = *calls;
  return r;
}

bool tagged(const std::string& name) { return name.find(kCommTag) != std::string::npos; }

void add(Output& out, const std::string& name, double value, const char* unit,
         std::optional<double> step = std::nullopt) {
  out.metrics.push_back(Metric{name, step, value, unit});
}

void record_main(const Listing& l, Output& out) {
  std::optional<double> application, top;
  for (const Row& r : l.rows) {
    top = std::max(top.value_or(r.inclusive_ms), r.inclusive_ms);
    if (r.name == ".TAU application") application = r.inclusive_ms;
    const std::string sfx = tagged(r.name) ? "_comm:" : ":";
    add(out, "tau_exclusive" + sfx + r.name, r.exclusive_ms / 1000, "s");
    if (!tagged(r.name)) add(out, "tau_inclusive:" + r.name, r.inclusive_ms / 1000, "s");
    add(out, "tau_calls" + sfx + r.name, r.calls, "");
  }
  if (application || top) add(out, "tau_application_time", application.value_or(*top) / 1000, "s");
}

void record_total(const Listing& l, Output& out) {
  for (const Row& r : l.rows) {
    if (tagged(r.name)) continue;
    add(out, "tau_exclusive_total:" + r.name, r.exclusive_ms / 1000, "s");
    add(out, "tau_inclusive_total:" + r.name, r.inclusive_ms / 1000, "s");
    add(out, "tau_calls_total:" + r.name, r.calls, "");
  }
}

void record_nodes(const std::vector<Listing>& listings, Output& out) {
  std::map<std::string, std::map<long, double>> excl;  // routine -> node -> exclusive ms
  std::map<long, double> runtime;                      // node -> ms
  for (const Listing& l : listings) {
    if (l.kind != Kind::node || l.rows.empty()) continue;
    std::optional<double> application, top;
    for (const Row& r : l.rows) {
      top = std::max(top.value_or(r.inclusive_ms), r.inclusive_ms);
      if (r.name == ".TAU application") application = r.inclusive_ms;
      if (!tagged(r.name)) excl[r.name][l.rank] += r.exclusive_ms;
    }
    runtime[l.rank] = std::max(runtime[l.rank], application.value_or(*top));
  }
  for (const auto& [routine, by_node] : excl)
    for (const auto& [node, ms] : by_node)
      add(out, "tau_exclusive_rank:" + routine, ms / 1000, "s", static_cast<double>(node));
  for (const auto& [node, ms] : runtime)
    add(out, "tau_application_time_rank", ms / 1000, "s", static_cast<double>(node));
}

}  // namespace

void run_tau(const Input& in, Output& out) {
  std::vector<Listing> listings;
  bool skipping = false;  // inside a table that is not a function listing (user events)
  LineReader lines(in.text);
  std::string_view line;
  while (lines.next(line)) {
    const std::string_view t = trim_view(line);
    if (auto n = node_of(t)) {
      listings.push_back(Listing{Kind::node, *n, {}});
      skipping = false;
    } else if (starts_with(t, "FUNCTION SUMMARY")) {
      const auto kind = t.find("(total)") != std::string_view::npos  ? Kind::total
                        : t.find("(mean)") != std::string_view::npos ? Kind::mean
                                                                     : Kind::other;
      listings.push_back(Listing{kind, 0, {}});
      skipping = false;
    } else if (starts_with(t, "USER EVENTS")) {
      skipping = true;
    } else if (!t.empty() && ((t.front() >= '0' && t.front() <= '9') || t.front() == '.')) {
      if (skipping) continue;
      if (lines.unterminated()) {
        out.warnings.add(in.name, lines.number(), "last line has no newline (file cut?); row ignored");
        break;
      }
      auto row = parse_row(t);
      if (!row) {
        out.warnings.add(in.name, lines.number(), "not a pprof row, ignored: " + preview(t, 60));
        continue;
      }
      if (listings.empty()) listings.push_back(Listing{});
      listings.back().rows.push_back(std::move(*row));
    }
  }
  const Listing *main = nullptr, *total = nullptr, *node = nullptr, *unnamed = nullptr;
  for (const Listing& l : listings) {
    if (l.rows.empty()) continue;
    if (l.kind == Kind::mean && !main) main = &l;
    if (l.kind == Kind::total && !total) total = &l;
    if (l.kind == Kind::node && (!node || l.rank < node->rank)) node = &l;
    if (l.kind == Kind::unnamed && !unnamed) unnamed = &l;
  }
  if (!main) main = node ? node : unnamed;
  if (!main && !total)
    throw CollectError(Location{in.name, 0, 0},
                       "no pprof listing (rows of %Time, Exclusive, Inclusive, #Call, #Subrs, "
                       "Inclusive usec/call, Name)");
  if (main)
    record_main(*main, out);
  else
    out.warnings.add(in.name, 0,
                     "only FUNCTION SUMMARY (total): recorded as tau_*_total; the per-rank mean, % of time "
                     "and components need the mean listing or a node's");
  if (total) record_total(*total, out);
  record_nodes(listings, out);
}

}  // namespace campaign::collect
