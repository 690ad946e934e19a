// Environment-variable expansion in user values: `${VAR}` and `${VAR:-default}`.
// Used for paths and accounts in system profiles (e.g. `workdir: ${SCRATCH}/campaigns`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace campaign {

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment.
std::optional<std::string> getenv_lookup(const std::string& name);

// Expands ${VAR} and ${VAR:-default}; `$$` gives a literal `$`. Unset variables
// without a default are collected in `missing` (and expand to "").
std::string expand_env(std::string_view text, const EnvLookup& lookup = getenv_lookup,
                       std::string* missing = nullptr);

}  // namespace campaign
