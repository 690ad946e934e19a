#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include "util/env.hpp"
#include "util/mustache.hpp"
#include "util/walltime.hpp"

using namespace campaign;

TEST_CASE("shell_quote keeps safe words and quotes the rest literally") {
  CHECK(shell_quote("configs/cosmo.yaml") == "configs/cosmo.yaml");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$(rm -rf /)") == "'$(rm -rf /)'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_escape_value("") == "");
}

TEST_CASE("did_you_mean suggests close names only") {
  std::vector<std::string> keys = {"matrix", "job", "steps", "derived"};
  CHECK(did_you_mean("matrx", keys) == ", did you mean 'matrix'?");
  CHECK(did_you_mean("jb", keys) == ", did you mean 'job'?");
  CHECK(did_you_mean("completely_else", keys).empty());
  CHECK(edit_distance("daitn", "daint") == 1);  // a transposition is one edit
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("matches_template: braced parts match any non-empty text") {
  CHECK(matches_template("epoch_time", "epoch_time"));
  CHECK_FALSE(matches_template("epoch_time", "epoch_times"));
  CHECK(matches_template("tau_calls:{routine}", "tau_calls:main"));
  CHECK_FALSE(matches_template("tau_calls:{routine}", "tau_calls:"));
  CHECK_FALSE(matches_template("tau_calls:{routine}", "tau_call:main"));
  CHECK(matches_template("epoch_time[{instance}]", "epoch_time[3]"));
  CHECK_FALSE(matches_template("epoch_time[{instance}]", "epoch_time[3"));
  CHECK(matches_template("{a}_{b}", "x_y_z"));
  CHECK_FALSE(matches_template("{a}_{b}", "xy"));
}

TEST_CASE("walltimes in every notation") {
  CHECK(parse_walltime("01:30:00") == 5400);
  CHECK(parse_walltime("1-00:00:00") == 86400);
  // Slurm's forms (sbatch --time), checked against Slurm itself in tests/integration/slurm_backend_test.cpp.
  CHECK(parse_walltime("02:00") == 120);  // minutes:seconds, not hours:minutes
  CHECK(parse_walltime("1:00") == 60);
  CHECK(parse_walltime("10:30") == 630);
  CHECK(parse_walltime("2-12") == 216000);   // days-hours
  CHECK(parse_walltime("1-2:30") == 95400);  // days-hours:minutes
  CHECK(parse_walltime("0-0:0:45") == 45);   // days-hours:minutes:seconds
  CHECK_FALSE(parse_walltime("1-"));
  CHECK_FALSE(parse_walltime("-1"));
  CHECK_FALSE(parse_walltime("1-2-3"));
  CHECK(parse_walltime("90") == 5400);  // minutes, as Slurm reads a bare number
  CHECK(parse_walltime("1h30m") == 5400);
  CHECK(parse_walltime("45s") == 45);
  CHECK_FALSE(parse_walltime("1 hour"));
  CHECK_FALSE(parse_walltime("1:2:3:4"));
  CHECK_FALSE(parse_walltime("h"));
  CHECK(format_hms(5400) == "01:30:00");
  CHECK(format_hms(90000) == "1-01:00:00");
  CHECK(format_hhmm(5401) == "01:31");  // LSF minutes round up
}

TEST_CASE("walltimes in LSF's grammar (a profile's walltime_format: lsf) and LSF's -W form") {
  const auto lsf = WalltimeGrammar::lsf;
  // The one form the grammars read differently: two numbers.
  CHECK(parse_walltime("5:00") == 300);         // Slurm: minutes:seconds
  CHECK(parse_walltime("5:00", lsf) == 18000);  // LSF: hours:minutes (bsub -W 5:00)
  CHECK(parse_walltime("0:30", lsf) == 1800);
  CHECK(parse_walltime("90:00", lsf) == 90 * 3600);  // LSF's hours have no upper bound
  CHECK(parse_walltime("0:90", lsf) == 5400);        // nor its minutes ("can be greater than 59")
  // Every other form means the same.
  for (const char* same : {"30", "01:30:00", "2-12", "1-06:30", "1-00:00:45", "90m", "1h30m", "45s"})
    CHECK(parse_walltime(same, lsf) == parse_walltime(same));
  CHECK_FALSE(parse_walltime("1:2:3:4", lsf));
  CHECK_FALSE(parse_walltime(":30", lsf));
  // bsub -W [hour:]minute: whole minutes, rounded up, hours past a day (LSF has no day field).
  CHECK(format_hhmm(1) == "00:01");
  CHECK(format_hhmm(60) == "00:01");
  CHECK(format_hhmm(61) == "00:02");
  CHECK(format_hhmm(3600) == "01:00");
  CHECK(format_hhmm(86400) == "24:00");
  CHECK(format_hhmm(*parse_walltime("1-12:00:00")) == "36:00");
  CHECK(format_hhmm(100 * 3600 + 59 * 60) == "100:59");
  // The form read back in LSF's grammar is the walltime asked for, to the minute.
  for (long s : {60L, 1800L, 5400L, 86400L, 200000L})
    CHECK(parse_walltime(format_hhmm(s), lsf) == walltime_minutes(s) * 60);
  CHECK(walltime_forms(lsf) == std::string(kLsfWalltimeForms));
}

TEST_CASE("environment expansion with defaults") {
  EnvLookup env = [](const std::string& n) -> std::optional<std::string> {
    if (n == "SCRATCH") return std::string("/scratch/u");
    if (n == "EMPTY") return std::string("");
    return std::nullopt;
  };
  std::string missing;
  CHECK(expand_env("${SCRATCH}/runs", env) == "/scratch/u/runs");
  CHECK(expand_env("${NOPE:-.}/c", env) == "./c");
  CHECK(expand_env("${EMPTY:-x}", env) == "x");
  CHECK(expand_env("$$HOME and $HOME", env) == "$HOME and $HOME");
  CHECK(expand_env("${NOPE}", env, &missing).empty());
  CHECK(missing == "NOPE");
}

TEST_CASE("Mustache: strict names, shell escaping, standalone lines") {
  MustacheData d;
  d.set("x", "a b");
  d.set("list", MustacheData(MustacheData::type::list));
  d.set("off", scalar_data("false"));
  Mustache m("A\n{{#list}}\n- {{.}}\n{{/list}}\n{{#off}}\nhidden\n{{/off}}\nv={{x}} raw={{{x}}}\n",
             Location{"t"}, "");
  CHECK(m.render(d, true) == "A\nv='a b' raw=a b\n");
  CHECK(m.render(d, false) == "A\nv=a b raw=a b\n");
  Mustache undefined("x={{y}}\n", Location{"tmpl.sh"}, "");
  try {
    undefined.render(d, true);
    FAIL("an undefined name must be an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "tmpl.sh:1:3: template uses 'y' but nothing defines it");
  }
  CHECK_THROWS_AS(Mustache("{{#open}}", Location{"t"}, ""), InputError);
}

TEST_CASE("html_prose escapes and turns code spans into <code>", "[util]") {
  CHECK(campaign::html_prose("give `better:` in `track:`") ==
        "give <code>better:</code> in <code>track:</code>");
  CHECK(campaign::html_prose("a < b & `x<y`") == "a &lt; b &amp; <code>x&lt;y</code>");
  CHECK(campaign::html_prose("unbalanced `open") == "unbalanced <code>open</code>");
  CHECK(campaign::html_prose("none") == "none");
}

TEST_CASE("Mustache partials: written in where included, their errors at their own file:line:col") {
  MustacheData d;
  d.set("x", "1");
  d.set("on", scalar_data("true"));
  const std::vector<MustachePartial> partials{
      {"body", "{{! a comment }}\n{{#on}}\nx={{x}}\n{{/on}}\ny={{y}}\n", Location{"partials/body.sh"}},
      {"word", "w{{x}}", Location{"partials/word.sh"}}};
  CHECK(partial_names("a\n{{> body}}\n{{>word}} {{> body}}\n") == std::vector<std::string>{"body", "word"});
  d.set("y", "2");
  // A tag alone on its line stands for the line, sections and comments inside as if written there.
  CHECK(Mustache("a\n  {{> body}}\nb {{>word}}!\n", Location{"t"}, "", partials).render(d, false) ==
        "a\nx=1\ny=2\nb w1!\n");
  MustacheData no_y;
  no_y.set("x", "1");
  no_y.set("on", scalar_data("true"));
  try {
    Mustache("a\n{{> body}}\n", Location{"tmpl.sh"}, "", partials).render(no_y, false);
    FAIL("an undefined name in a partial must be an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "partials/body.sh:5:3: template uses 'y' but nothing defines it");
  }
  try {
    Mustache("a\n{{> nothing}}\n", Location{"tmpl.sh"}, "", partials);
    FAIL("a partial nobody gave must be an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "tmpl.sh:2:1: no partial 'nothing'");
  }
  CHECK_THROWS_AS(Mustache("{{> loop}}", Location{"t"}, "", {{"loop", "{{> loop}}", Location{"l"}}}),
                  InputError);
}
