// The common strict reader: what collector files rely on beyond campaign files.
#include "spec/yaml_reader.hpp"

#include <catch2/catch.hpp>

using namespace campaign;
using namespace campaign::spec;

TEST_CASE("yaml_reader: a missing key can say what it is for", "[yaml_reader]") {
  YAML::Node n = YAML::Load("a: 1\n");
  MapReader m("f.yaml", n, "src");
  try {
    m.require("metrics", "the columns to collect");
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(e.key() == "src.metrics");
    CHECK(e.message() == "required key is missing (the columns to collect)");
  }
  CHECK_THROWS_WITH(m.require("b"), Catch::Matchers::EndsWith("src.b: required key is missing"));
}

TEST_CASE("yaml_reader: allowed keys given after a value was read", "[yaml_reader]") {
  YAML::Node n = YAML::Load("engine: csv\nstep: epoch\nfile: x\n");
  MapReader m("f.yaml", n, "");
  CHECK(as_string("f.yaml", m.require("engine"), "engine") == "csv");
  CHECK_NOTHROW(m.allow({"step", "file"}));
  CHECK(m.path().empty());
  MapReader bad("f.yaml", n, "s");
  CHECK_THROWS_WITH(bad.allow({"engine", "file", "steps"}), Catch::Matchers::Contains("s.step: unknown key"));
}

TEST_CASE("yaml_reader: booleans in YAML 1.1 spellings", "[yaml_reader]") {
  for (const char* t : {"true", "True", "yes", "on"}) CHECK(as_bool("f", YAML::Node(t), "k"));
  for (const char* f : {"false", "False", "no", "off"}) CHECK_FALSE(as_bool("f", YAML::Node(f), "k"));
  CHECK_THROWS_WITH(as_bool("f", YAML::Node("maybe"), "k"),
                    Catch::Matchers::Contains("expected true or false, got 'maybe'"));
}
