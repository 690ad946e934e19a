#include "util/columns.hpp"

#include <algorithm>

namespace campaign {

std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right) {
  std::vector<size_t> width;
  for (auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size());
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      line += (i ? "  " : "") + (i < right.size() && right[i] ? pad + r[i] : r[i] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace campaign
