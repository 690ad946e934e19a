// Internal to matrix/: the order of a campaign's steps and the links between
// the cases of a step and those of the steps it waits for.
#pragma once

#include <vector>

#include "matrix/plan.hpp"

namespace campaign::matrix {

// Enabled steps, each after the steps it waits for; InputError on an unknown
// step, a step waiting for itself, or a cycle.
std::vector<size_t> order_steps(const spec::Campaign& c);

// Links each case to the cases of the steps it waits for that agree on every
// matrix axis the two steps share.
void link_dependencies(Plan& plan);

}  // namespace campaign::matrix
