#include "sched/nodelist.hpp"

#include "util/strings.hpp"

namespace campaign::sched {

namespace {

// One item of a host list: prefix[ranges]rest, where rest may hold more brackets.
void expand_item(const std::string& item, std::vector<std::string>& out) {
  auto open = item.find('['), close = item.find(']', open);
  if (open == std::string::npos || close == std::string::npos) {
    if (!item.empty()) out.push_back(item);
    return;
  }
  struct Range {
    long lo, hi;
    size_t width;  // zero-padded to the width of the low end, as Slurm writes them
  };
  std::vector<Range> ranges;
  for (auto& r : split(item.substr(open + 1, close - open - 1), ',')) {
    auto dash = r.find('-');
    std::string lo = r.substr(0, dash), hi = dash == std::string::npos ? lo : r.substr(dash + 1);
    bool digits = !lo.empty() && !hi.empty() && lo.size() <= 9 && hi.size() <= 9 &&
                  (lo + hi).find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stol(hi) < std::stol(lo) || std::stol(hi) - std::stol(lo) > 100000) {
      out.push_back(item);  // not a host list this reads: the name as written
      return;
    }
    ranges.push_back({std::stol(lo), std::stol(hi), lo.size()});
  }
  std::string prefix = item.substr(0, open), rest = item.substr(close + 1);
  for (auto& r : ranges)
    for (long n = r.lo; n <= r.hi; ++n) {
      std::string num = std::to_string(n);
      if (num.size() < r.width) num.insert(0, r.width - num.size(), '0');
      expand_item(prefix + num + rest, out);
    }
}

}  // namespace

std::vector<std::string> node_names(std::string_view list) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char ch : std::string(list) + ",") {
    if (ch == ',' && depth == 0) {
      expand_item(trim(item), out);
      item.clear();
      continue;
    }
    depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
    item += ch;
  }
  return out;
}

}  // namespace campaign::sched
