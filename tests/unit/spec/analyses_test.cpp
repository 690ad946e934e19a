// Parsing of the `analyses:` list: the documented example, and errors that
// point at file:line:col with the dotted key.
#include "spec/analyses.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "spec/campaign.hpp"

using namespace campaign;
using namespace campaign::analysis;

namespace {

std::vector<AnalysisSpec> parse(const std::string& text) {
  return parse_analyses(YAML::Load(text)["analyses"], "c.yaml");
}

// The InputError thrown for `text`, so tests can look at its parts.
InputError error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for:\n" << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the documented example parses into both analyses", "[analysis][spec]") {
  YAML::Node doc = YAML::LoadFile(TEST_DATA_DIR "/analysis/analyses.yaml");
  auto specs = parse_analyses(doc["analyses"], "analyses.yaml");
  REQUIRE(specs.size() == 2);

  const AnalysisSpec& w = specs[0];
  CHECK(w.name == "weak_scaling");
  CHECK(w.scaling == Scaling::weak);
  CHECK(w.step == "train");
  CHECK(w.x == "ranks");
  CHECK(w.time.metric == "epoch_time");
  CHECK(w.time.warmup == 1);
  CHECK(w.samples == "(n_train + n_valid)");
  CHECK(w.group_by == std::vector<std::string>{"partition"});
  REQUIRE(w.compare);
  CHECK(w.compare->axis == "data");
  CHECK(w.compare->baseline == "real");
  CHECK(w.aggregate == std::vector<Aggregate>{Aggregate::mean, Aggregate::std, Aggregate::min,
                                              Aggregate::median, Aggregate::count});
  CHECK_FALSE(w.ratio);
  CHECK(w.where.line == 2);
  CHECK(w.where.column == 5);

  const AnalysisSpec& r = specs[1];
  CHECK(r.scaling == Scaling::none);
  CHECK(r.samples.empty());
  REQUIRE(r.ratio);
  CHECK(r.ratio->axis == "loader");
  CHECK(r.ratio->numerator == "original");
  CHECK(r.ratio->denominator == "ring_buffer");
  REQUIRE(r.stall);
  CHECK(r.stall->data == "data_time");
  CHECK(r.stall->compute == "compute_time");
  CHECK(r.aggregate.empty());
}

TEST_CASE("defaults: scaling none, warm-up 1, repeat parameter, time as a bare metric", "[analysis][spec]") {
  auto s = parse("analyses:\n  - {name: a, x: ranks, time: step_time}\n");
  REQUIRE(s.size() == 1);
  CHECK(s[0].scaling == Scaling::none);
  CHECK(s[0].time.metric == "step_time");
  CHECK(s[0].time.warmup == 1);
  CHECK(s[0].repeat == "repeat");
  CHECK(s[0].step.empty());
  CHECK(parse("analyses: []\n").empty());
  CHECK(parse_analyses(YAML::Node(), "c.yaml").empty());
}

TEST_CASE("unknown keys are errors with a suggestion and a position", "[analysis][spec]") {
  auto e = error_of(
      "analyses:\n"
      "  - name: w\n"
      "    x: ranks\n"
      "    time: epoch_time\n"
      "    grup_by: [partition]\n");
  CHECK(e.where().file == "c.yaml");
  CHECK(e.where().line == 5);
  CHECK(e.where().column == 5);
  CHECK(e.key() == "analyses[0].grup_by");
  CHECK_THAT(e.message(), Catch::Contains("unknown key") && Catch::Contains("did you mean 'group_by'?"));
  CHECK_THAT(std::string(e.what()), Catch::StartsWith("c.yaml:5:5: analyses[0].grup_by: unknown key"));

  auto nested = error_of("analyses:\n  - {name: w, x: r, time: {metric: t, warmpu: 2}}\n");
  CHECK(nested.key() == "analyses[0].time.warmpu");
  CHECK_THAT(nested.message(), Catch::Contains("did you mean 'warmup'?"));
  CHECK(nested.where().line == 2);
}

TEST_CASE("analyses and the rest of the campaign report mistakes alike", "[analysis][spec]") {
  // One reader for the whole file: the same text for an unknown key anywhere.
  std::string campaign_error;
  try {
    spec::parse_campaign("name: t\njob: {comand: x}\n", "c.yaml");
  } catch (const InputError& e) {
    campaign_error = e.message();
  }
  CHECK(campaign_error == "unknown key, did you mean 'command'?");
  CHECK(error_of("analyses:\n  - {name: w, x: r, time: {metric: t, warmpu: 1}}\n").message() ==
        "unknown key, did you mean 'warmup'?");
  // A misspelt required key is unknown, not missing.
  CHECK(error_of("analyses:\n  - {nmae: w, x: r, time: t}\n").message() ==
        "unknown key, did you mean 'name'?");
  CHECK(error_of("analyses:\n  - {name: w, x: [r], time: t}\n").message() == "expected a string, got a list");
  CHECK(error_of("analyses:\n  - {name: w, x: r, time: {metric: t, warmup: nan}}\n").message() ==
        "expected a number, got 'nan'");
}

TEST_CASE("bad values name their key", "[analysis][spec]") {
  auto scaling = error_of("analyses:\n  - {name: w, x: r, time: t, scaling: weakk, samples: '1'}\n");
  CHECK(scaling.key() == "analyses[0].scaling");
  CHECK_THAT(scaling.message(), Catch::Contains("did you mean 'weak'?"));

  auto agg = error_of("analyses:\n  - name: w\n    x: r\n    time: t\n    aggregate: [mean, meadian]\n");
  CHECK(agg.key() == "analyses[0].aggregate");
  CHECK(agg.where().line == 5);
  CHECK(agg.where().column == 23);  // at `stdev`, not at the list
  CHECK_THAT(agg.message(), Catch::Contains("did you mean 'median'?"));

  auto warm = error_of("analyses:\n  - {name: w, x: r, time: {metric: t, warmup: -1}}\n");
  CHECK(warm.key() == "analyses[0].time.warmup");
  auto warm2 = error_of("analyses:\n  - {name: w, x: r, time: {metric: t, warmup: one}}\n");
  CHECK_THAT(warm2.message(), Catch::Contains("expected a number"));

  auto name = error_of("analyses:\n  - {name: 'a b/c', x: r, time: t}\n");
  CHECK(name.key() == "analyses[0].name");

  auto list = error_of("analyses: {name: w}\n");
  CHECK(list.key() == "analyses");
  CHECK_THAT(list.message(), Catch::Contains("expected a list"));
}

TEST_CASE("required keys and consistency checks", "[analysis][spec]") {
  CHECK(error_of("analyses:\n  - {name: w, time: t}\n").key() == "analyses[0].x");
  CHECK(error_of("analyses:\n  - {x: r, time: t}\n").key() == "analyses[0].name");
  CHECK(error_of("analyses:\n  - {name: w, x: r}\n").key() == "analyses[0].time");
  CHECK(error_of("analyses:\n  - {name: w, x: r, time: {warmup: 1}}\n").key() == "analyses[0].time.metric");

  auto weak = error_of("analyses:\n  - {name: w, x: r, time: t, scaling: weak}\n");
  CHECK(weak.key() == "analyses[0].samples");
  CHECK_THAT(weak.message(), Catch::Contains("weak scaling needs a samples expression"));

  auto expr = error_of("analyses:\n  - {name: w, x: r, time: t, samples: '(n_train + '}\n");
  CHECK(expr.key() == "analyses[0].samples");
  CHECK(expr.where().line == 2);
  CHECK_THAT(expr.message(), Catch::Contains("cannot parse expression"));

  auto cmp = error_of("analyses:\n  - {name: w, x: r, time: t, compare: {axis: r, baseline: a}}\n");
  CHECK(cmp.key() == "analyses[0].compare.axis");
  auto cmp2 = error_of("analyses:\n  - {name: w, x: r, time: t, compare: {axis: data}}\n");
  CHECK(cmp2.key() == "analyses[0].compare.baseline");

  auto ratio = error_of(
      "analyses:\n  - {name: w, x: r, time: t, ratio: {axis: loader, numerator: a, denominator: b}}\n");
  CHECK(ratio.key() == "analyses[0].ratio.axis");
  CHECK_THAT(ratio.message(), Catch::Contains("must be the x axis ('r')"));
  // The compare axis is a valid ratio axis.
  auto ok = parse(
      "analyses:\n  - {name: w, x: r, time: t, compare: {axis: data, baseline: real},\n"
      "     ratio: {axis: data, numerator: real, denominator: dummy}}\n");
  CHECK(ok[0].ratio->axis == "data");

  auto same =
      error_of("analyses:\n  - {name: w, x: r, time: t, ratio: {axis: r, numerator: a, denominator: a}}\n");
  CHECK(same.key() == "analyses[0].ratio.denominator");

  auto grouped = error_of("analyses:\n  - {name: w, x: r, time: t, group_by: [p, r]}\n");
  CHECK(grouped.key() == "analyses[0].group_by");

  auto dup = error_of("analyses:\n  - {name: w, x: r, time: t}\n  - {name: w, x: r, time: t}\n");
  CHECK(dup.key() == "analyses[1].name");
  CHECK(dup.where().line == 3);
  CHECK_THAT(dup.message(), Catch::Contains("c.yaml:2:5"));
}

namespace {

// Two steps: `stage` without collectors, `train` with a matrix and cosmoflow-like metrics.
CampaignNames campaign_names() {
  CampaignNames c;
  c.steps.push_back({"stage", {"campaign", "step"}, {}, {}, true});
  c.steps.push_back({"train",
                     {"campaign", "step", "ranks", "precision", "n_train", "repeat"},
                     {"ranks", "precision", "repeat"},
                     {"epoch_time", "loss", "tau_calls:{routine}"},
                     true});
  c.steps.push_back({"later", {}, {}, {}, false});
  c.values = [](const std::string& step, const std::string& param) {
    if (step == "stage") return std::vector<std::string>{};
    if (param == "ranks") return std::vector<std::string>{"1", "2", "4"};
    if (param == "precision") return std::vector<std::string>{"fp32", "bf16"};
    return std::vector<std::string>{};
  };
  return c;
}

InputError checked_error_of(const std::string& entry) {
  try {
    check_names(parse_analyses(YAML::Load("analyses:\n  - " + entry + "\n")["analyses"], "c.yaml"),
                campaign_names());
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for: " << entry);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("samples know the functions of the matrix's expressions", "[analysis][spec]") {
  auto specs = parse_analyses(
      YAML::Load("analyses:\n  - {name: a, scaling: weak, x: ranks, time: epoch_time,"
                 " samples: 'pow(2, log2(ranks)) * mod(n_train, 7) + round(n_train / 3) + trunc(ranks)'}\n")
          ["analyses"],
      "c.yaml");
  REQUIRE(specs.size() == 1);
  CHECK_NOTHROW(check_names(specs, campaign_names()));
}

TEST_CASE("checked against the campaign, every name an analysis uses exists", "[analysis][spec]") {
  auto names = campaign_names();
  auto ok =
      parse_analyses(YAML::Load("analyses:\n"
                                "  - {name: a, step: train, x: ranks, time: epoch_time, group_by: precision,"
                                " samples: n_train * ranks, repeat: repeat}\n"
                                "  - {name: b, x: precision, time: 'tau_calls:main',"
                                " compare: {axis: ranks, baseline: 1.0},"
                                " ratio: {axis: precision, numerator: fp32, denominator: bf16},"
                                " stall: {data: loss, compute: epoch_time}}\n"
                                "  - {name: c, step: later, x: anything, time: whatever}\n")["analyses"],
                     "c.yaml");
  CHECK(ok.size() == 3);
  CHECK_NOTHROW(check_names(ok, names));
  // Parsed alone (as a campaign is read, and a stored one re-read for history) nothing is looked up.
  CHECK(parse_analyses(YAML::Load("analyses:\n  - {name: a, x: nope, time: nothing}\n")["analyses"], "c.yaml")
            .size() == 1);

  struct Bad {
    const char* entry;
    const char* key;
    const char* message;
  };
  const Bad bad[] = {
      {"{name: a, x: rank, time: epoch_time}", "analyses[0].x",
       "unknown parameter 'rank', did you mean 'ranks'? (axes: ranks, precision, repeat)"},
      {"{name: a, step: stage, x: ranks, time: epoch_time}", "analyses[0].x", "unknown parameter 'ranks'"},
      {"{name: a, step: trian, x: ranks, time: epoch_time}", "analyses[0].step",
       "unknown step 'trian', did you mean 'train'? (steps: stage, train, later)"},
      {"{name: a, x: ranks, time: epoch_tme}", "analyses[0].time",
       "unknown metric 'epoch_tme', did you mean 'epoch_time'? (the collectors declare: epoch_time, loss, "
       "tau_calls:{routine})"},
      {"{name: a, x: ranks, time: {metric: 'tau_calls:'}}", "analyses[0].time.metric",
       "unknown metric 'tau_calls:'"},
      {"{name: a, step: stage, x: step, time: epoch_time}", "analyses[0].time",
       "unknown metric 'epoch_time': no collector declares it (step stage has no collectors)"},
      {"{name: a, x: ranks, time: epoch_time, stall: {data: data_time, compute: loss}}",
       "analyses[0].stall.data", "unknown metric 'data_time'"},
      {"{name: a, x: ranks, time: epoch_time, stall: {data: loss, compute: cmp}}",
       "analyses[0].stall.compute", "unknown metric 'cmp'"},
      {"{name: a, x: ranks, time: epoch_time, group_by: [precision, nodes]}", "analyses[0].group_by[1]",
       "unknown parameter 'nodes'"},
      {"{name: a, x: ranks, time: epoch_time, compare: {axis: precison, baseline: fp32}}",
       "analyses[0].compare.axis", "unknown parameter 'precison', did you mean 'precision'?"},
      {"{name: a, x: ranks, time: epoch_time, compare: {axis: precision, baseline: fp23}}",
       "analyses[0].compare.baseline",
       "precision is never 'fp23', did you mean 'fp32'? (its values: fp32, bf16)"},
      {"{name: a, x: ranks, time: epoch_time, ratio: {axis: ranks, numerator: 4, denominator: 8}}",
       "analyses[0].ratio.denominator", "ranks is never '8' (its values: 1, 2, 4)"},
      {"{name: a, x: ranks, time: epoch_time, samples: n_trian * ranks}", "analyses[0].samples",
       "unknown parameter 'n_trian' in expression 'n_trian * ranks', did you mean 'n_train'?"},
      {"{name: a, x: ranks, time: epoch_time, samples: flor(n_train)}", "analyses[0].samples",
       "unknown function 'flor' in expression 'flor(n_train)', did you mean 'floor'?"},
      {"{name: a, x: ranks, time: epoch_time, repeat: rep}", "analyses[0].repeat", "unknown parameter 'rep'"},
  };
  for (const Bad& b : bad) {
    INFO(b.entry);
    InputError e = checked_error_of(b.entry);
    CHECK(e.key() == b.key);
    CHECK_THAT(e.message(), Catch::StartsWith(b.message));
    CHECK(e.where().line == 2);
  }
}

TEST_CASE("scaling: window reads its series and windows; stalls takes no layout", "[analysis][spec]") {
  auto w = parse(
      "analyses:\n  - {name: u, scaling: window, x: io_limit, warmup: 2, group_by: loader,\n"
      "     window: {series: 'utilization:{node}:gpu{i}', smooth: 5, progress: time, points: 21}}\n")[0];
  REQUIRE(w.window);
  CHECK(w.window->series == "utilization:{node}:gpu{i}");
  CHECK(w.window->start == "epoch_start");
  CHECK(w.window->end == "epoch_end");
  CHECK(w.window->smooth == 5);
  CHECK(w.window->points == 21);
  CHECK(w.window->progress == WindowSpec::Progress::time);
  CHECK(parse("analyses:\n  - {name: u, scaling: window, x: r, window: {series: s}}\n")[0].window->progress ==
        WindowSpec::Progress::samples);
  CHECK(w.time.warmup == 2);
  CHECK(w.time.metric == w.window->series);
  CHECK(value_column(w) == "utilization");
  auto s = parse("analyses:\n  - {name: s, scaling: stalls, warmup: 0}\n")[0];
  CHECK(s.scaling == Scaling::stalls);
  CHECK(s.time.warmup == 0);
  CHECK(value_column(s) == "times");

  struct Bad {
    const char* entry;
    const char* key;
    const char* message;
  };
  const Bad bad[] = {
      {"{name: u, scaling: window, x: r}", "analyses[0].window", "required key is missing"},
      {"{name: u, scaling: window, x: r, window: {smooth: 2}}", "analyses[0].window.series",
       "required key is missing"},
      {"{name: u, scaling: window, x: r, window: {series: s, smooth: 0}}", "analyses[0].window.smooth",
       "must be a whole number from 1"},
      {"{name: u, scaling: window, x: r, window: {series: s, progress: time, points: 1.5}}",
       "analyses[0].window.points", "must be a whole number from 2"},
      {"{name: u, scaling: window, x: r, window: {series: s, points: 101}}", "analyses[0].window.points",
       "only with progress: time"},
      {"{name: u, scaling: window, x: r, window: {series: s, progress: index}}",
       "analyses[0].window.progress", "'index' is not one of samples, time"},
      {"{name: u, scaling: window, x: r, window: {series: s, smoth: 2}}", "analyses[0].window.smoth",
       "unknown key"},
      {"{name: u, scaling: window, x: r, time: t, window: {series: s}}", "analyses[0].time",
       "not used by scaling: window"},
      {"{name: u, x: r, time: t, window: {series: s}}", "analyses[0].window", "only for scaling: window"},
      {"{name: u, x: r, time: t, warmup: 1}", "analyses[0].warmup", "only for scaling: window and stalls"},
      {"{name: u, scaling: window, x: r, warmup: -1, window: {series: s}}", "analyses[0].warmup",
       "must not be negative"},
      {"{name: s, scaling: stalls, x: r}", "analyses[0].x", "not used by scaling: stalls"},
  };
  for (const Bad& b : bad) {
    INFO(b.entry);
    InputError e = error_of(std::string("analyses:\n  - ") + b.entry + "\n");
    CHECK(e.key() == b.key);
    CHECK_THAT(e.message(), Catch::Contains(b.message));
    CHECK(e.where().line == 2);
  }
  // Against the campaign: the series, the windows and the stall metrics must be collected.
  InputError series =
      checked_error_of("{name: u, scaling: window, x: ranks, window: {series: 'utilization:{n}:{d}'}}");
  CHECK(series.key() == "analyses[0].window.series");
  CHECK_THAT(series.message(), Catch::StartsWith("unknown metric 'utilization:{n}:{d}'"));
  InputError stalls = checked_error_of("{name: s, scaling: stalls}");
  CHECK(stalls.key() == "analyses[0].scaling");
  CHECK_THAT(stalls.message(), Catch::StartsWith("unknown metric 'iteration_epoch:rank{rank}'"));
}

TEST_CASE("a campaign's analyses are parsed as it is read, an override's too", "[analysis][spec]") {
  auto c = spec::parse_campaign(
      "name: t\n"
      "analyses:\n"
      "  - {name: s, scaling: strong, x: ranks, time: epoch_time}\n"
      "systems:\n"
      "  local:\n"
      "    analyses:\n"
      "      - {name: n, x: ranks, time: loss, group_by: precision}\n",
      "c.yaml");
  REQUIRE(c.analyses.size() == 1);
  CHECK(c.analyses[0].scaling == Scaling::strong);
  CHECK(c.analyses[0].where.str() == "c.yaml:3:5");
  // The names it uses wait, with their places, for the plan and the collectors (check_names).
  REQUIRE(c.analyses[0].uses.size() == 2);
  CHECK(c.analyses[0].uses[0].kind == NameUse::Kind::param);
  CHECK(c.analyses[0].uses[1].name == "epoch_time");
  CHECK(c.analyses[0].uses[1].where.str() == "c.yaml:3:48");
  auto local = spec::for_system(c, "local");
  REQUIRE(local.analyses.size() == 1);
  CHECK(local.analyses[0].group_by == std::vector<std::string>{"precision"});

  // A mistake stops the campaign's reading at its place, in an override too.
  auto error = [](const std::string& yaml) -> std::string {
    try {
      spec::parse_campaign(yaml, "c.yaml");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error("name: t\nanalyses:\n  - {name: s, x: ranks}\n") ==
        "c.yaml:3:5: analyses[0].time: required key is missing");
  CHECK(error("name: t\nsystems:\n  local:\n    analyses: [{name: s, x: r, time: t, smooth: 2}]\n") ==
        "c.yaml:4:41: analyses[0].smooth: unknown key");
}
