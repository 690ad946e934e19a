// Aligned plain-text columns, as `status`, `plan`, `results`, `list` and `report --terminal` print
// them: two spaces between columns, no trailing blanks.
#pragma once

#include <string>
#include <vector>

namespace campaign {

// One line per row; a column whose `right` flag is set is right-aligned (numbers, so digits line up),
// the others left-aligned. Rows may be shorter than the widest one.
std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right = {});

}  // namespace campaign
