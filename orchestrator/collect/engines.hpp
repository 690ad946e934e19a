// The collector engines: each reads texts already loaded from a run directory
// and appends metrics and warnings. None touches the disk, so tests feed them
// strings (and cut them at every byte).
//
// Invariant: an engine either appends metrics with unique (name, step) and
// finite values, or throws CollectError naming the input and line; it never
// lets another exception type escape for bad data.
#pragma once

#include <vector>

#include "collect/input.hpp"
#include "collect/source.hpp"

namespace campaign::collect {

void run_csv(const CsvSpec& spec, const Input& in, Output& out);
void run_mllog(const MllogSpec& spec, const Input& in, Output& out);
// Several inputs when the source says `multiple: all`; matches are reduced across all of them.
void run_regex(const RegexSpec& spec, const std::vector<Input>& inputs, Output& out);
void run_json(const DocSpec& spec, const Input& in, Output& out);
void run_yaml(const DocSpec& spec, const Input& in, Output& out);
// The kernel and memory-time tables of `nsys stats --format csv` in any of the inputs.
void run_nsys(const std::vector<Input>& inputs, Output& out);
// TAU's pprof listings (tau_engine.cpp says which it records and how).
void run_tau(const Input& in, Output& out);

}  // namespace campaign::collect
