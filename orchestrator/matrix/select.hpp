// Choosing cases on the command line: `--case GLOB` and `--only KEY=VALUE` on run, resume, status,
// report and show. Pure.
//
// A case is chosen when its name matches one of the globs (fnmatch: * ? [...]; none given: any) and,
// for each KEY given, its parameter KEY has one of the values given for it (`--only ranks=4,8` or
// `--only ranks=4 --only ranks=8`; different keys must all hold). Values compare as the case's
// parameters are written in its catalog record (the text of the matrix value).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace campaign::matrix {

struct Plan;
struct Case;

// A case's parameters as its catalog record holds them: {name: the text of its value}.
nlohmann::json case_params(const Plan& plan, const Case& c);

struct Selection {
  std::vector<std::string> globs;                     // --case
  std::map<std::string, std::set<std::string>> only;  // --only KEY=VALUE[,VALUE...]
  bool empty() const { return globs.empty() && only.empty(); }
  // `params`: the case's parameters, a JSON object of strings (catalog::CaseRow::params).
  bool matches(const std::string& name, const nlohmann::json& params) const;
  // "--case 'n4*' --only ranks=4": what the user asked, for messages.
  std::string describe() const;
};

// Throws std::invalid_argument for an --only without KEY=VALUE.
Selection parse_selection(const std::vector<std::string>& case_globs, const std::vector<std::string>& only);

// Checks a selection against the cases it chooses from (name and parameters of each): an --only key
// that no case has (with the nearest key), or a selection that chooses nothing, throws
// std::invalid_argument saying so.
void check_selection(const Selection& s, const std::vector<std::pair<std::string, nlohmann::json>>& cases);
void check_selection(const Selection& s, const Plan& plan);

// The keys (Case::key) of the plan's cases a selection chooses, and with them every case they depend
// on (`after`, transitively): a chosen case can only run after them.
struct Chosen {
  std::set<std::string> chosen;  // what the selection matched
  std::set<std::string> needed;  // chosen, and what they run after
};
Chosen select_cases(const Plan& plan, const Selection& s);

}  // namespace campaign::matrix
