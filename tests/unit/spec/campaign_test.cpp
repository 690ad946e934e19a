#include "spec/campaign.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "../temp_dir.hpp"
#include "spec/library.hpp"
#include "spec/system.hpp"

using namespace campaign;
using namespace campaign::spec;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    parse_campaign(yaml, "c.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a campaign's axes, attributes, steps and overrides") {
  auto c = parse_campaign(R"(name: t
params: {ranks_per_node: 1}
matrix:
  data:
    - {name: real, config: a.yaml}
    - {name: dummy, config: b.yaml}
  ranks: [1, 2, 4]
  repeat: 2
job:
  command: echo {{ranks}}
  env: {A: "1"}
steps:
  prepare: {matrix: {}, job: {ranks: 1}}
  train: {after: [prepare]}
systems:
  local:
    matrix: {ranks: [1]}
    job: {env: {B: "2"}}
    steps: {prepare: {enabled: false}}
)",
                          "c.yaml");
  REQUIRE(c.matrix.axes.size() == 2);
  CHECK(c.matrix.axes[0].values[1].attributes[0].second.text == "b.yaml");
  CHECK(c.matrix.repeat == 2);
  CHECK(c.steps.size() == 2);
  auto local = for_system(c, "local");
  CHECK(local.matrix.axes[1].values.size() == 1);  // the override replaced the axis...
  CHECK(local.matrix.axes[0].values.size() == 2);  // ...and kept the others
  CHECK(local.job.env.size() == 2);                // env merges by name
  CHECK_FALSE(find_step(local, "prepare")->enabled);
  CHECK(find_step(c, "prepare")->enabled);  // the base is untouched
  CHECK(for_system(c, "daint").matrix.axes[1].values.size() == 3);
}

TEST_CASE("errors name file, line, column and key") {
  CHECK(error_of("name: t\njob: {command: x, comand: y}\n") ==
        "c.yaml:2:19: job.comand: unknown key, did you mean 'command'?");
  CHECK(error_of("name: t\nmatrix:\n  ranks: []\n") ==
        "c.yaml:3:10: matrix.ranks: axis has no values (an empty axis would make an empty matrix)");
  CHECK(error_of("name: t\nbudget: lots\n") == "c.yaml:2:9: budget: expected a number, got 'lots'");
  // Numbers are read as expressions and analyses read them: finite, '+' allowed.
  CHECK(error_of("name: t\nbudget: nan\n") == "c.yaml:2:9: budget: expected a number, got 'nan'");
  CHECK(error_of("name: t\nbudget: +2.5\n").empty());
  CHECK(error_of("name: t\nsystems: {local: {nme: x}}\n") == "c.yaml:2:19: systems.local.nme: unknown key");
}

TEST_CASE("values keep their text and know when they are numbers") {
  CHECK(Value::from_text("64").number == 64.0);
  CHECK(Value::from_text("1e3").number == 1000.0);
  CHECK_FALSE(Value::from_text("gpu").number);
  CHECK_FALSE(Value::from_text("").number);
  CHECK(Value::from_text("007").text == "007");
}

TEST_CASE("system profiles: partitions, aliases, host detection") {
  auto path = find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "daint", ".yaml");
  REQUIRE(path);
  auto s = load_system_file(*path);
  CHECK(s.scheduler == "slurm");
  REQUIRE(find_partition(s, "cpu"));
  CHECK(find_partition(s, "cpu")->name == "mc");
  CHECK(find_partition(s, "cpu")->cores_per_node == 36);
  CHECK(find_partition(s, "gpu")->gpus_per_node == 1);
  CHECK(matches_host(s, "daint104", "daint104"));
  CHECK_FALSE(matches_host(s, "daint-ln001", "daint-ln001"));
  auto summit = load_system_file(*find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "summit", ".yaml"));
  CHECK(summit.scheduler == "lsf");
  CHECK(summit.launcher.kind == "jsrun");
  CHECK(find_partition(summit, "gpu")->gpus_per_node == 6);
  CHECK(find_partition(summit, "gpu")->cores_per_node == 42);
  for (auto& name : available(CAMPAIGN_SOURCE_DIR, "systems", ".yaml"))
    CHECK_NOTHROW(load_system_file(*find_data_file(CAMPAIGN_SOURCE_DIR, "systems", name, ".yaml")));
}

TEST_CASE("inputs and fetch: what goes to the work directory and what comes back") {
  auto c = parse_campaign(R"(name: t
job: {command: "true"}
inputs:
  - configs
  - {from: ../workloads/minicosmo/, to: code/minicosmo, exclude: ["__pycache__", "*.pyc"]}
  - data/it's a file.txt
fetch: {include: ["*.json"], exclude: [checkpoints]}
systems:
  local: {inputs: []}
)",
                          "c.yaml");
  REQUIRE(c.inputs.size() == 3);
  CHECK(c.inputs[0].from == "configs");
  CHECK(c.inputs[0].to == "configs");
  CHECK(c.inputs[1].to == "code/minicosmo");
  CHECK(c.inputs[1].exclude == std::vector<std::string>{"__pycache__", "*.pyc"});
  CHECK(c.inputs[1].where.line == 5);
  CHECK(c.inputs[2].to == "it's a file.txt");
  CHECK(c.fetch.include == std::vector<std::string>{"*.json"});
  CHECK(c.fetch.exclude == std::vector<std::string>{"checkpoints"});
  CHECK(for_system(c, "local").inputs.empty());

  CHECK_THAT(error_of("name: t\ninputs: [{from: a, to: ../up}]\n"),
             Catch::Contains("c.yaml:2:") && Catch::Contains("inside the work directory"));
  CHECK_THAT(error_of("name: t\ninputs: [{from: a, to: /abs}]\n"),
             Catch::Contains("inside the work directory"));
  CHECK_THAT(error_of("name: t\ninputs: [..]\n"), Catch::Contains("give `to:`"));
  CHECK_THAT(error_of("name: t\ninputs: [{from: a, too: b}]\n"), Catch::Contains("too"));
  CHECK_THAT(error_of("name: t\ninputs: a\n"), Catch::Contains("expected a list"));
  CHECK_THAT(error_of("name: t\nfetch: {includes: [x]}\n"), Catch::Contains("fetch.includes"));
}

namespace {

// A system profile: `text` written as DIR/s.yaml, whose path is returned.
std::filesystem::path write_profile(const std::filesystem::path& dir, const std::string& text) {
  std::ofstream(dir / "s.yaml") << text;
  return dir / "s.yaml";
}

}  // namespace

TEST_CASE("ssh access in a system profile") {
  campaign_test::TempDir dir("spec-ssh");
  auto write = [&](const std::string& text) { return write_profile(dir.path, text); };
  const std::string head =
      "name: s\nscheduler: local\nlauncher: local\npartitions: {p: {cores_per_node: 1}}\n";
  auto s = load_system_file(write(head + "access: {ssh: {host: login.example.org, user: me, port: 2222, "
                                         "jump: gw.example.org, campaign: /opt/campaign/bin/campaign}}\n"));
  REQUIRE(s.ssh);
  CHECK(s.ssh->host == "login.example.org");
  CHECK(s.ssh->port == 2222);
  CHECK(s.ssh->jump == "gw.example.org");
  CHECK(s.ssh->campaign == "/opt/campaign/bin/campaign");
  CHECK(load_system_file(write(head + "access: {ssh: {host: h}}\n")).ssh->campaign == "campaign");
  CHECK_FALSE(load_system_file(write(head + "access: local\n")).ssh);
  CHECK_THROWS_WITH(load_system_file(write(head + "access: {ssh: {host: h, port: 0}}\n")),
                    Catch::Contains("access.ssh.port"));
  CHECK_THROWS_WITH(load_system_file(write(head + "access: {ssh: {host: h, identty: k}}\n")),
                    Catch::Contains("identty"));
}

TEST_CASE("limits: the rules of time a profile sets") {
  campaign_test::TempDir dir("spec-limits");
  auto write = [&](const std::string& text) { return write_profile(dir.path, text); };
  const std::string head =
      "name: s\nscheduler: slurm\nlauncher: srun\npartitions: {p: {cores_per_node: 1}}\n";
  auto defaults = load_system_file(write(head));
  CHECK(defaults.limits.lost_after_s == 120);
  CHECK(defaults.limits.accounting_wait_s == 120);
  auto s = load_system_file(write(head + "limits: {lost_after: 600, accounting_wait: 7.5}\n"));
  CHECK(s.limits.lost_after_s == 600);
  CHECK(s.limits.accounting_wait_s == 7.5);
  CHECK_THROWS_WITH(load_system_file(write(head + "limits: {accounting_wait: 0}\n")),
                    Catch::Contains("s.yaml:5:") && Catch::Contains("limits.accounting_wait") &&
                        Catch::Contains("more than 0"));
  CHECK_THROWS_WITH(load_system_file(write(head + "limits: {lost_after: soon}\n")),
                    Catch::Contains("limits.lost_after"));
}

TEST_CASE("instances: an expression in a job, at the top level or in a step") {
  auto c = parse_campaign(
      "name: t\njob: {command: x, instances: 2 * k}\nsteps:\n  train:\n    job: {instances: 4}\n", "c.yaml");
  REQUIRE(c.job.instances);
  CHECK(*c.job.instances == "2 * k");
  CHECK(c.job.instances.where.line == 2);
  REQUIRE(c.steps.at(0).job.instances);
  CHECK(*c.steps.at(0).job.instances == "4");
  CHECK(error_of("name: t\njob: {command: x, instances: [1]}\n").rfind("c.yaml:2:", 0) == 0);
}

TEST_CASE("components: per-code regexes over a profiler's routines or kernels") {
  auto c = parse_campaign(R"(name: t
job: {command: "true"}
collectors: [tau, nsys]
components:
  io: {collector: tau, match: '^BP4Writer::'}
  memcpy_htod: {collector: nsys, match: '\[CUDA memcpy (HtoD|Host-to-Device)\]', percent_of: run_time}
systems:
  local: {components: {conv: {collector: nsys, match: conv}}}
)",
                          "c.yaml");
  REQUIRE(c.components.size() == 2);
  CHECK(c.components[0].name == "io");
  CHECK(c.components[0].collector == "tau");
  CHECK(c.components[0].match == "^BP4Writer::");
  CHECK(c.components[1].match == R"(\[CUDA memcpy (HtoD|Host-to-Device)\])");
  CHECK(c.components[1].where.line == 6);
  CHECK(c.components[1].collector_where.column == 28);
  CHECK(c.components[0].percent_of.empty());  // the collector's
  CHECK(c.components[1].percent_of == "run_time");
  auto local = for_system(c, "local");  // replaced as a whole, as inputs are
  REQUIRE(local.components.size() == 1);
  CHECK(local.components[0].name == "conv");

  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {collector: tau, match: '(MPI'}}\n"),
             Catch::Contains("c.yaml:2:") && Catch::Contains("components.mpi.match: bad regex"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {collector: tau}}\n"),
             Catch::Contains("components.mpi.match"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {match: x}}\n"),
             Catch::Contains("components.mpi.collector"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {collector: tau, match: ''}}\n"),
             Catch::Contains("empty regex"));
  CHECK_THAT(error_of("name: t\ncomponents: [mpi]\n"), Catch::Contains("components"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {collector: tau, match: x, percent_of: ''}}\n"),
             Catch::Contains("components.mpi.percent_of: empty metric name"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: {collector: tau, match: x, percentof: t}}\n"),
             Catch::Contains("did you mean 'percent_of'"));
  CHECK_THAT(error_of("name: t\ncomponents: {mpi: '^MPI_'}\n"),
             Catch::Contains("expected a map with 'collector' and 'match'"));
}

TEST_CASE("track: and commit_url: for campaign site") {
  auto c = parse_campaign(R"(name: t
matrix: {ranks: [1, 2]}
job: {command: x}
track:
  - throughputs@ranks=4
  - {metric: "max(lr)@ranks=1", better: lower, threshold: 5}
commit_url: https://github.com/org/repo/commit/{{commit}}
)",
                          "c.yaml");
  REQUIRE(c.track.size() == 2);
  CHECK(c.track[0].metric == "throughputs@ranks=4");
  CHECK(c.track[0].better.empty());
  CHECK(c.track[0].threshold == 10);
  CHECK(c.track[1].metric == "max(lr)@ranks=1");
  CHECK(c.track[1].better == "lower");
  CHECK(c.track[1].threshold == 5);
  REQUIRE(c.commit_url);
  CHECK(commit_url(*c.commit_url, "0123abcd") == "https://github.com/org/repo/commit/0123abcd");

  const std::string head = "name: t\nmatrix: {ranks: [1]}\njob: {command: x}\n";
  CHECK_THAT(error_of(head + "commit_url: github.com/org/repo/commit/{{commit}}\n"),
             Catch::Contains("c.yaml:4") && Catch::Contains("starts with https://"));
  CHECK_THAT(error_of(head + "commit_url: https://github.com/org/repo/commit/\n"),
             Catch::Contains("holds {{commit}}"));
  CHECK_THAT(error_of(head + "commit_url: https://h/{{commit}}/{{sha}}\n"),
             Catch::Contains("only placeholder"));
  CHECK_THAT(error_of(head + "commit_url: \"https://h/{{commit}}\\\" onclick=x\"\n"),
             Catch::Contains("no spaces, quotes"));
  CHECK_THAT(error_of(head + "track: throughputs\n"), Catch::Contains("expected a list of metrics"));
  CHECK_THAT(error_of(head + "track: [{metric: eff, better: up}]\n"), Catch::Contains("track[0].better"));
  CHECK_THAT(error_of(head + "track: [{metric: eff, threshold: 0}]\n"),
             Catch::Contains("positive percentage"));
  CHECK_THAT(error_of(head + "track: [{metrc: eff}]\n"), Catch::Contains("metrc"));
}

TEST_CASE("system: one, or a list of systems (issue 34)") {
  auto one = parse_campaign("name: t\nsystem: daint\n", "c.yaml");
  CHECK(*one.system == "daint");
  CHECK(one.systems.empty());
  auto listed = parse_campaign("name: t\nsystem: [local, daint]\n", "c.yaml");
  CHECK_FALSE(listed.system);
  REQUIRE(listed.systems.size() == 2);
  CHECK(*listed.systems[1] == "daint");
  CHECK(listed.systems[1].where.line == 2);
  auto alone = parse_campaign("name: t\nsystem: [local]\n", "c.yaml");  // a list of one is one system
  CHECK(*alone.system == "local");
  CHECK(alone.systems.empty());
  CHECK(error_of("name: t\nsystem: [local, local]\n") ==
        "c.yaml:2:17: system[1]: system 'local' is listed twice");
  CHECK(error_of("name: t\nsystem: [auto, local]\n") ==
        "c.yaml:2:10: system[0]: each system of a list is a profile's name or path (not auto)");
  auto p = parse_campaign("name: t\nsystem: [a, b]\n", "c.yaml");
  p.part = "b";
  CHECK(p.catalog_name() == "t@b");
}

TEST_CASE("reference: per system, a value and its bounds (issue 34)") {
  auto c = parse_campaign(R"(name: t
reference:
  daint:
    throughputs@ranks=4: {value: 320, lower: -5%, upper: 10%}
    eff@max: [0.9, -0.1]
  local:
    times@ranks=1: {value: 2, upper: +25%}
)",
                          "c.yaml");
  REQUIRE(c.references.size() == 3);
  CHECK(c.references[0].system == "daint");
  CHECK(c.references[0].metric == "throughputs@ranks=4");
  CHECK(c.references[0].value == 320);
  CHECK(*c.references[0].lower == Approx(-0.05));
  CHECK(*c.references[0].upper == Approx(0.10));
  CHECK(c.references[0].where.line == 4);
  CHECK(*c.references[1].lower == Approx(-0.1));
  CHECK_FALSE(c.references[1].upper);
  CHECK_FALSE(c.references[2].lower);
  CHECK(*c.references[2].upper == Approx(0.25));
  CHECK(error_of("name: t\nreference: {a: {m: {value: 1, lower: 5%}}}\n") ==
        "c.yaml:2:20: reference.a.m: the lower bound is at most 0 (a fraction below the value)");
  CHECK(error_of("name: t\nreference: {a: {m: {value: 1, uper: 5%}}}\n")
            .find("reference.a.m.uper: unknown key") != std::string::npos);
  CHECK(error_of("name: t\nreference: {a: {m: {value: 1, upper: lots%}}}\n") ==
        "c.yaml:2:38: reference.a.m.upper: a bound is a fraction (-0.05) or a percentage (-5%)");
  CHECK(error_of("name: t\nreference: ../refs.yaml\n") ==
        "c.yaml:2:12: reference: a reference file lies in the campaign's folder or below it");
}

TEST_CASE("a campaign's name holds no '@': NAME@SYSTEM is a part's in the catalog") {
  CHECK(error_of("name: a@b\n") ==
        "c.yaml:1:7: name: a campaign name is a non-empty word without '/', '@' or spaces");
}
