// The plans the matrix tests expand: a campaign's YAML on one of the repository's system profiles.
#pragma once

#include <string>

#include "matrix/plan.hpp"
#include "spec/library.hpp"

namespace campaign::matrix::testing {

inline spec::System system_named(const std::string& name) {
  return spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", name, ".yaml"));
}

inline Plan plan_of(const std::string& yaml, const std::string& sys = "daint") {
  auto c = spec::parse_campaign(yaml, "c.yaml");
  return expand(spec::for_system(c, sys), system_named(sys), "/w");
}

}  // namespace campaign::matrix::testing
