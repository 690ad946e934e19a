// Shared by the report tests: a realistic ReportInput (the CosmoFlow weak
// scaling data plus a repeated loader study with a failed case) and
// throw-away directories.
#pragma once

#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "analysis/scaling.hpp"
#include "report/report.hpp"

namespace fixtures {

namespace fs = std::filesystem;
using namespace campaign::analysis;

// A fresh directory under the system temp dir, removed with the object.
struct TempDir : campaign_test::TempDir {
  TempDir() : campaign_test::TempDir("report") {}
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<CaseResult> cosmoflow_cases() {
  std::ifstream in(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  std::string line;
  std::getline(in, line);
  std::vector<CaseResult> cases;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string name, data, ranks, epoch, value;
    std::getline(ss, name, ',');
    std::getline(ss, data, ',');
    std::getline(ss, ranks, ',');
    std::getline(ss, epoch, ',');
    std::getline(ss, value, ',');
    if (cases.empty() || cases.back().name != name) {
      CaseResult c;
      c.name = name;
      c.step = "train";
      c.state = "collected";
      int r = std::stoi(ranks);
      c.params = {{"data", data},
                  {"ranks", ranks},
                  {"partition", "gpu"},
                  {"n_train", std::to_string(256 * r)},
                  {"n_valid", std::to_string(256 * r)}};
      c.job_id = std::to_string(4711000 + cases.size());
      c.nodelist = "nid0" + std::to_string(1000 + cases.size());
      c.start = "2024-03-0" + std::to_string(1 + cases.size() % 5) + "T10:00:00";
      c.end = "2024-03-0" + std::to_string(1 + cases.size() % 5) + "T11:00:00";
      cases.push_back(c);
    }
    cases.back().metrics.push_back({"epoch_time", std::stod(epoch), std::stod(value), "s"});
  }
  return cases;
}

inline std::vector<CaseResult> loader_cases() {
  std::vector<CaseResult> cases;
  const char* loaders[] = {"original", "ring_buffer"};
  const double base[] = {31, 20};
  for (int l = 0; l < 2; ++l) {
    for (int rep = 0; rep < 3; ++rep) {
      CaseResult c;
      c.name = std::string("loader_") + loaders[l] + "_" + std::to_string(rep);
      c.state = rep == 2 && l == 0 ? "node_fail" : "collected";
      c.params = {{"loader", loaders[l]}, {"repeat", std::to_string(rep)}};
      double t = base[l] + rep * 1.5;
      for (int e = 0; e < 3; ++e) {
        c.metrics.push_back({"epoch_time", double(e), e == 0 ? t + 9 : t, "s"});
        c.metrics.push_back({"data_time", double(e), t * (l == 0 ? 0.5 : 0.1), "s"});
        c.metrics.push_back({"compute_time", double(e), t * (l == 0 ? 0.5 : 0.9), "s"});
      }
      c.job_id = "5" + std::to_string(l * 3 + rep);
      cases.push_back(c);
    }
  }
  return cases;
}

inline campaign::report::ReportInput sample_input() {
  YAML::Node doc = YAML::LoadFile(TEST_DATA_DIR "/analysis/analyses.yaml");
  auto specs = parse_analyses(doc["analyses"], "analyses.yaml");
  std::vector<CaseResult> cases = cosmoflow_cases();
  std::vector<CaseResult> loader = loader_cases();
  cases.insert(cases.end(), loader.begin(), loader.end());

  campaign::report::ReportInput in;
  in.provenance.campaign = "cosmoflow-daint";
  in.provenance.campaign_hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  in.provenance.system = "daint";
  in.provenance.code_version = "1a2b3c4";
  in.provenance.generated = "2024-03-09T12:00:00Z";
  campaign::report::add_runs(in.provenance, cases);
  // weak_scaling reads step train only; the loader cases are of no step.
  in.analyses = analyze_all(specs, cases);
  in.failed.push_back({"prepare_data", "failed", "exit code 1"});
  return in;
}

}  // namespace fixtures
