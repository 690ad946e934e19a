// The end of every benchmark's output: one line per target its header states,
//   TARGET <what>: <figure> <unit> (target <op> <limit> <unit>) PASS|FAIL
// or, when the figure could not be measured, "not measured (<why>)" and FAIL. bench/lib.sh writes
// the same lines for the shell benchmarks. A missed target is a FAIL line; the exit status says
// whether the run that was measured (and its reference) worked.
#pragma once

#include <cstdio>
#include <string>

namespace bench {

enum class Op { at_most, below, at_least };

// Prints the target's line; true when it passes.
inline bool target(const std::string& what, double figure, Op op, double limit, const std::string& unit) {
  bool pass = op == Op::at_most ? figure <= limit : op == Op::below ? figure < limit : figure >= limit;
  const char* sym = op == Op::at_most ? "<=" : op == Op::below ? "<" : ">=";
  std::printf("TARGET %s: %.4g %s (target %s %g %s) %s\n", what.c_str(), figure, unit.c_str(), sym, limit,
              unit.c_str(), pass ? "PASS" : "FAIL");
  return pass;
}

// A target whose figure is missing: its line says why, and it fails.
inline void not_measured(const std::string& what, Op op, double limit, const std::string& unit,
                         const std::string& why) {
  const char* sym = op == Op::at_most ? "<=" : op == Op::below ? "<" : ">=";
  std::printf("TARGET %s: not measured (%s) (target %s %g %s) FAIL\n", what.c_str(), why.c_str(), sym, limit,
              unit.c_str());
}

}  // namespace bench
