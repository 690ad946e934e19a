// The regex engine: patterns applied to each line of a file or of the job's
// output (`Mean epoch time: 28.4`, TAU pprof rows, nvidia-smi CSV samples).
//
// Every match feeds the pattern's metrics; a metric's name may be built from
// captures (one metric per TAU routine), its step may come from a capture,
// and `reduce` says what many matches become: the last/first value, their
// mean/sum/min/max, their count, or steps 0..n-1 in match order.
//
// Safety and speed, since lines are the job's and patterns the user's:
//   - libstdc++'s default depth-first executor recurses once per character
//     and overflows the stack on lines of ~100 KB; its polynomial
//     (breadth-first) mode recurses only as deep as the pattern;
//   - regex_search retries from every start position, so `(.*)X` on a line
//     that contains no match is quadratic (12 s for 16 KB). The pattern is
//     therefore compiled as "[\s\S]*?(PATTERN)" and matched in one pass from
//     the line's start (match_continuous): linear in the line, leftmost match,
//     whole match in group 1, the user's group k in group k+1;
//   - breadth-first matching prefers the longer of two alternatives (a|ab
//     takes "ab") and does not promise the shortest lazy match: anchor
//     patterns and capture exact tokens (numbers), which it matches alike;
//   - lines longer than 64 KiB are skipped with a warning; a pattern's
//     required literal (derived, or `contains:`) is looked for with find()
//     first, so most lines never reach the regex at all.
#include <cmath>
#include <map>

#include "collect/engines.hpp"

namespace campaign::collect {

namespace {

constexpr size_t kMaxLine = size_t{64} << 10;

using Step = std::optional<double>;

struct Slot {
  const RegexMetric* metric = nullptr;
  std::string name;
  Step step;
  size_t count = 0;
  double first = 0, last = 0, sum = 0, lo = INFINITY, hi = -INFINITY;
  std::vector<double> all;  // reduce: steps only

  void add(double v) {
    if (count++ == 0) first = v;
    last = v;
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (metric->reduce == Reduce::steps) all.push_back(v);
  }
};

// The user's group `group` (0: the whole match); see the wrapping above.
std::string_view capture(const std::cmatch& m, int group) {
  const auto& g = m[static_cast<size_t>(group) + 1];
  return g.matched ? std::string_view(g.first, static_cast<size_t>(g.length())) : std::string_view();
}

}  // namespace

void run_regex(const RegexSpec& spec, const std::vector<Input>& inputs, Output& out) {
  std::vector<Slot> slots;
  std::map<std::tuple<const RegexMetric*, std::string, Step>, size_t> index;
  std::vector<size_t> matches(spec.patterns.size());
  size_t long_lines = 0, first_long = 0;
  std::string long_file;

  std::cmatch m;
  for (const Input& in : inputs) {
    LineReader lines(in.text);
    std::string_view line;
    while (lines.next(line)) {
      if (line.size() > kMaxLine) {
        if (long_lines++ == 0) first_long = lines.number(), long_file = in.name;
        continue;
      }
      for (size_t pi = 0; pi < spec.patterns.size(); ++pi) {
        const RegexPattern& p = spec.patterns[pi];
        if (!p.literal.empty() && line.find(p.literal) == std::string_view::npos) continue;
        bool found = false;
        try {
          found = std::regex_search(line.data(), line.data() + line.size(), m, p.re,
                                    std::regex_constants::match_continuous);
        } catch (const std::regex_error& e) {
          out.warnings.add(in.name, lines.number(),
                           "pattern " + preview(p.text, 60) + " failed on this line (" + e.what() + ")");
        }
        if (!found) continue;
        ++matches[pi];
        for (const RegexMetric& rm : p.metrics) {
          double value = 1;
          if (rm.value >= 0) {
            std::string_view text = capture(m, rm.value);
            if (text.empty()) continue;  // an optional group that did not take part
            auto v = rm.format == NumberFormat::tau_msec ? parse_tau_msec(text) : parse_number(text, true);
            if (!v || !std::isfinite(*v)) {
              out.warnings.add(in.name, lines.number(),
                               "capture '" + p.groups[static_cast<size_t>(rm.value)] + "' " + preview(text) +
                                   " is not a number; match ignored");
              continue;
            }
            value = *v;
          }
          Step step;
          if (rm.step >= 0) {
            std::string_view text = capture(m, rm.step);
            auto v = parse_number(text, true);
            if (!v || !std::isfinite(*v)) {
              out.warnings.add(in.name, lines.number(),
                               "step capture " + preview(text) + " is not a number; match ignored");
              continue;
            }
            step = *v;
          }
          std::string name;
          for (const auto& part : rm.parts)
            name += part.group < 0 ? std::string_view(part.literal) : trim_view(capture(m, part.group));
          if (name.empty()) {
            out.warnings.add(in.name, lines.number(),
                             "metric name '" + rm.name + "' is empty here; match ignored");
            continue;
          }
          auto [it, inserted] = index.try_emplace({&rm, name, step}, slots.size());
          if (inserted) {
            slots.emplace_back();
            slots.back().metric = &rm;
            slots.back().name = std::move(name);
            slots.back().step = step;
          }
          slots[it->second].add(value);
        }
      }
    }
  }

  if (long_lines)
    out.warnings.add(long_file, first_long,
                     std::to_string(long_lines) + " line(s) longer than 64 KiB skipped (first here)");
  if (out.required && !inputs.empty())
    for (size_t pi = 0; pi < spec.patterns.size(); ++pi)
      if (matches[pi] == 0)
        out.warnings.add(inputs.front().name, 0,
                         "pattern " + preview(spec.patterns[pi].text, 60) + " matched no line");

  for (const Slot& s : slots) {
    const RegexMetric& rm = *s.metric;
    double v = 0;
    switch (rm.reduce) {
      case Reduce::steps:
        for (size_t i = 0; i < s.all.size(); ++i)
          out.metrics.push_back(Metric{s.name, static_cast<double>(i), s.all[i] * rm.scale, rm.unit});
        continue;
      case Reduce::count:
        out.metrics.push_back(Metric{s.name, s.step, static_cast<double>(s.count), rm.unit});
        continue;
      case Reduce::last:
        v = s.last;
        break;
      case Reduce::first:
        v = s.first;
        break;
      case Reduce::mean:
        v = s.sum / static_cast<double>(s.count);
        break;
      case Reduce::sum:
        v = s.sum;
        break;
      case Reduce::min:
        v = s.lo;
        break;
      case Reduce::max:
        v = s.hi;
        break;
    }
    v *= rm.scale;
    if (!std::isfinite(v)) {
      out.warnings.add(inputs.front().name, 0, "metric '" + s.name + "' overflows; dropped");
      continue;
    }
    out.metrics.push_back(Metric{s.name, s.step, v, rm.unit});
  }
}

}  // namespace campaign::collect
