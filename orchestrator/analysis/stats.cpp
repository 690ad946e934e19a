// Implements analysis/stats.hpp.
#include "analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace campaign::analysis {

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("summarize: no values");
  Summary s;
  s.count = values.size();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  if (s.count > 1) {
    double ss = 0;  // two-pass: no cancellation for values far from 0
    for (double v : values) ss += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(ss / static_cast<double>(s.count - 1));
  }
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  size_t mid = s.count / 2;
  s.median = s.count % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  return s;
}

}  // namespace campaign::analysis
