// The mllog engine: MLPerf logging lines `:::MLLOG {json}`, anywhere in a line
// (so `srun -l`'s "0: " prefix or a logger's prefix do not matter); all other
// lines are ignored, which lets it read a job's whole output.
//
//   intervals - KEY_start / KEY_stop pairs matched by (instance, step), where
//               the step is metadata.epoch_num (or another metadata key):
//               epoch -> epoch_time per epoch, run -> run_time, staging ->
//               staging_time, all in seconds from time_ms;
//   values    - POINT_IN_TIME events whose value is a number (booleans as
//               0/1), the step again from metadata.epoch_num if present.
//
// Weak scaling: records carrying metadata.instance_id (configurable) belong
// to that instance. By default the values of all instances for one step are
// averaged (`instances: mean`, or min/max); `instances: separate` keeps one
// metric per instance, named NAME[ID].
//
// Damage is a warning, never a crash: a record cut mid-line (a log copied
// while being written), malformed JSON, a stop without a start, a start never
// stopped, a negative duration, the same epoch measured twice (the later one
// wins). The only error is a file without any :::MLLOG record.
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "collect/engines.hpp"

namespace campaign::collect {

namespace {

using nlohmann::json;

constexpr std::string_view kTag = ":::MLLOG";
constexpr size_t kMaxRecord = size_t{1} << 20;

using Step = std::optional<double>;
using Results = std::map<std::pair<Step, std::string>, double>;  // (step, instance) -> value

std::optional<double> step_of(const json* meta, const std::string& key) {
  if (!meta || key.empty()) return std::nullopt;
  auto it = meta->find(key);
  if (it == meta->end() || !it->is_number()) return std::nullopt;
  double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string instance_of(const json* meta, const std::string& key) {
  if (!meta) return {};
  auto it = meta->find(key);
  if (it == meta->end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return format_number(it->get<double>());
  return {};
}

// "epoch 3", "run", "epoch 3 of instance 2"
std::string describe(const std::string& key, const Step& step, const std::string& instance) {
  std::string s = key;
  if (step) s += ' ' + format_number(*step);
  if (!instance.empty()) s += " of instance " + instance;
  return s;
}

std::string json_reason(const std::exception& e) {
  std::string_view w = e.what();
  if (auto p = w.find("] "); w.substr(0, 1) == "[" && p != std::string_view::npos) w.remove_prefix(p + 2);
  if (w.rfind("parse error", 0) ==
      0)  // "parse error at line 1, column 45: ..." - within the record, not the file
    if (auto p = w.find(": "); p != std::string_view::npos) w.remove_prefix(p + 2);
  return std::string(w.substr(0, 160));
}

void emit(Output& out, const std::string& name, const std::string& unit, const Results& results,
          Instances mode) {
  if (mode == Instances::separate) {
    for (const auto& [key, v] : results)
      out.metrics.push_back(
          Metric{key.second.empty() ? name : name + '[' + key.second + ']', key.first, v, unit});
    return;
  }
  // Entries are sorted by step, so the instances of one step are adjacent.
  for (auto it = results.begin(); it != results.end();) {
    const Step step = it->first.first;
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    size_t n = 0;
    for (; it != results.end() && it->first.first == step; ++it, ++n) {
      sum += it->second;
      lo = std::min(lo, it->second);
      hi = std::max(hi, it->second);
    }
    double v = mode == Instances::min ? lo : mode == Instances::max ? hi : sum / static_cast<double>(n);
    out.metrics.push_back(Metric{name, step, v, unit});
  }
}

}  // namespace

void run_mllog(const MllogSpec& spec, const Input& in, Output& out) {
  enum class Kind { start, stop, value };
  struct Want {
    std::string key;
    Kind kind;
    size_t index;
  };
  std::vector<Want> wants;
  for (size_t i = 0; i < spec.intervals.size(); ++i) {
    wants.push_back({spec.intervals[i].key + "_start", Kind::start, i});
    wants.push_back({spec.intervals[i].key + "_stop", Kind::stop, i});
  }
  for (size_t i = 0; i < spec.values.size(); ++i) wants.push_back({spec.values[i].key, Kind::value, i});

  struct Open {
    double t_ms;
    size_t line;
  };
  std::vector<std::map<std::pair<std::string, Step>, Open>> open(spec.intervals.size());
  std::vector<Results> durations(spec.intervals.size()), points(spec.values.size());
  std::vector<char> interval_seen(spec.intervals.size()), value_seen(spec.values.size());
  size_t records = 0;

  LineReader lines(in.text);
  std::string_view line;
  while (lines.next(line)) {
    const size_t at = line.find(kTag);
    if (at == std::string_view::npos) continue;
    const size_t ln = lines.number();
    ++records;
    if (line.size() > kMaxRecord) {
      out.warnings.add(in.name, ln, "record is " + std::to_string(line.size()) + " bytes long; ignored");
      continue;
    }
    const std::string_view body = line.substr(at + kTag.size());
    json j;
    try {
      j = json::parse(body.begin(), body.end());
    } catch (const json::exception& e) {
      if (lines.unterminated())
        out.warnings.add(in.name, ln, "truncated: the last record is cut mid-line; ignored");
      else
        out.warnings.add(in.name, ln, "malformed :::MLLOG record (" + json_reason(e) + "); ignored");
      continue;
    }
    if (!j.is_object()) {
      out.warnings.add(in.name, ln, ":::MLLOG record is not a JSON object; ignored");
      continue;
    }
    auto kit = j.find("key");
    if (kit == j.end() || !kit->is_string()) {
      out.warnings.add(in.name, ln, ":::MLLOG record has no \"key\"; ignored");
      continue;
    }
    const auto& key = kit->get_ref<const std::string&>();
    const Want* want = nullptr;
    for (const auto& w : wants)
      if (w.key == key) want = &w;
    if (!want) continue;

    auto mit = j.find("metadata");
    const json* meta = mit != j.end() && mit->is_object() ? &*mit : nullptr;
    const std::string instance = instance_of(meta, spec.instance_key);

    if (want->kind == Kind::value) {
      const MllogValue& v = spec.values[want->index];
      value_seen[want->index] = 1;
      const Step step = step_of(meta, v.step_key);
      auto vit = j.find("value");
      double x = 0;
      if (vit != j.end() && vit->is_number()) {
        x = vit->get<double>();
      } else if (vit != j.end() && vit->is_boolean()) {
        x = vit->get<bool>() ? 1 : 0;
      } else {
        std::string shown = vit == j.end() ? "missing" : preview(vit->dump(), 30);
        out.warnings.add(in.name, ln, "value of '" + key + "' is not a number (" + shown + "); ignored");
        continue;
      }
      x *= v.scale;
      if (!std::isfinite(x)) {
        out.warnings.add(in.name, ln, "value of '" + key + "' is not finite; ignored");
        continue;
      }
      auto [it, inserted] = points[want->index].insert_or_assign({step, instance}, x);
      if (!inserted)
        out.warnings.add(in.name, ln,
                         describe(key, step, instance) + " logged again; the later value is kept");
      continue;
    }

    const MllogInterval& iv = spec.intervals[want->index];
    interval_seen[want->index] = 1;
    auto tit = j.find("time_ms");
    if (tit == j.end() || !tit->is_number()) {
      out.warnings.add(in.name, ln, "'" + key + "' has no numeric time_ms; ignored");
      continue;
    }
    const double t = tit->get<double>();
    const Step step = step_of(meta, iv.step_key);
    auto& pending = open[want->index];
    const std::string what = describe(iv.key, step, instance);
    if (want->kind == Kind::start) {
      auto [it, inserted] = pending.try_emplace({instance, step}, Open{t, ln});
      if (!inserted) {
        out.warnings.add(in.name, ln,
                         what + " started again (earlier start on line " + std::to_string(it->second.line) +
                             " never stopped); the later start is used");
        it->second = Open{t, ln};
      }
      continue;
    }
    auto it = pending.find({instance, step});
    if (it == pending.end()) {
      out.warnings.add(in.name, ln, key + " for " + what + " without " + iv.key + "_start; ignored");
      continue;
    }
    const double seconds = (t - it->second.t_ms) / 1000.0;
    const size_t start_line = it->second.line;
    pending.erase(it);
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
      out.warnings.add(in.name, ln,
                       what + " stops before it starts (line " + std::to_string(start_line) + "); ignored");
      continue;
    }
    auto [rit, inserted] = durations[want->index].insert_or_assign({step, instance}, seconds);
    if (!inserted) out.warnings.add(in.name, ln, what + " measured twice; the later one is kept");
  }

  if (records == 0) throw CollectError(Location{in.name, 0, 0}, "no :::MLLOG records");

  for (size_t i = 0; i < spec.intervals.size(); ++i) {
    for (const auto& [key, o] : open[i])
      out.warnings.add(in.name, o.line,
                       describe(spec.intervals[i].key, key.second, key.first) +
                           " was never stopped (job killed or log cut?)");
    if (!interval_seen[i] && out.required)
      out.warnings.add(in.name, 0,
                       "no " + spec.intervals[i].key + "_start/" + spec.intervals[i].key + "_stop records");
    emit(out, spec.intervals[i].name, "s", durations[i], spec.instances);
  }
  for (size_t i = 0; i < spec.values.size(); ++i) {
    if (!value_seen[i] && out.required)
      out.warnings.add(in.name, 0, "no '" + spec.values[i].key + "' records");
    emit(out, spec.values[i].name, spec.values[i].unit, points[i], spec.instances);
  }
}

}  // namespace campaign::collect
