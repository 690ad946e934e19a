// The csv engine: a header line, then one row per step (Keras history.csv,
// a benchmark's own per-iteration table, ...). Each mapped column becomes a
// metric; one column may be the step.
//
// Policy (what is an error, what a warning):
//   errors   - empty file, no header, NUL bytes (binary data), a line over
//              1 MiB, a mapped column missing from the header (unless
//              `optional`), a row with the wrong number of cells, a cell that
//              is not a number (row and column named), a step that is not a
//              number;
//   warnings - the last line has no newline (a file cut while being written:
//              the row is dropped, the rows before are good), a NaN/inf cell
//              (dropped: a diverged loss is a fact, but not a value to store),
//              a step that appears twice (the later row wins, as after a
//              restart appending to the same file), no data rows at all.
//   silent   - blank lines and empty cells (a value not measured that epoch).
// A metric name with {COLUMN} makes one series per distinct cell of COLUMN
// (utilisation samples of several devices in one file); duplicate steps are
// then looked for within each series.
//
// Fast path: the file is read in one go by the caller; lines and cells are
// found with memchr and numbers read by read_plain_decimal (else from_chars),
// no allocation per cell.
// Quoted cells are supported ("a,b"); a doubled quote inside stays doubled.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "collect/engines.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace {

constexpr size_t kMaxLine = size_t{1} << 20;

[[noreturn]] void fail(const Input& in, size_t line, std::string reason) {
  throw CollectError(Location{in.name, static_cast<int>(line), 0}, std::move(reason));
}

std::string describe_header(const std::vector<std::string_view>& header) {
  std::string s;
  for (size_t i = 0; i < header.size() && i < 12; ++i) s += (i ? ", " : "") + preview(header[i], 24);
  if (header.size() > 12) s += ", ... (" + std::to_string(header.size()) + " columns)";
  return s;
}

size_t line_of_offset(std::string_view text, size_t offset) {
  return 1 +
         static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(offset), '\n'));
}

}  // namespace

void run_csv(const CsvSpec& spec, const Input& in, Output& out) {
  std::string_view text = in.text;
  if (text.empty()) fail(in, 0, "empty file");
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    auto off = static_cast<size_t>(static_cast<const char*>(nul) - text.data());
    fail(in, line_of_offset(text, off),
         "binary data (NUL byte at offset " + std::to_string(off) + "), not a CSV file");
  }
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark

  LineReader lines(text);
  std::string_view line;
  bool have_header = false;
  while (lines.next(line)) {
    if (line.size() > kMaxLine)
      fail(in, lines.number(), "line is " + std::to_string(line.size()) + " bytes long (limit 1 MiB)");
    if (!trim_view(line).empty()) {
      have_header = true;
      break;
    }
  }
  if (!have_header) fail(in, 0, "no header line (file is blank)");
  const size_t header_line = lines.number();

  std::vector<std::string_view> cells;
  cells.reserve(32);
  split_cells(line, spec.delimiter, cells);
  std::vector<std::string_view> header;
  header.reserve(cells.size());
  for (auto c : cells) header.push_back(trim_view(c));

  auto find_column = [&](const std::string& name, bool optional) -> int {
    int found = -1;
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] != name) continue;
      if (found >= 0) fail(in, header_line, "column '" + name + "' appears twice in the header");
      found = static_cast<int>(i);
    }
    if (found < 0 && !optional) {
      std::vector<std::string> names(header.begin(), header.end());
      fail(in, header_line,
           "no column '" + name + "' in the header (" + describe_header(header) + ")" +
               did_you_mean(name, names));
    }
    return found;
  };

  const int step_col = spec.step.empty() ? -1 : find_column(spec.step, false);
  struct Used {
    const CsvColumn* column;
    size_t index;
  };
  std::vector<Used> used;
  for (const auto& c : spec.columns) {
    int index = find_column(c.column, c.optional);
    if (index >= 0) used.push_back({&c, static_cast<size_t>(index)});
  }

  // Columns a metric name takes cells from ({device}): one series per distinct combination.
  std::vector<size_t> key_cols;
  for (const auto& c : spec.columns)
    for (const auto& part : c.parts)
      if (part.kind == CsvNamePart::column) {
        auto k = static_cast<size_t>(find_column(part.text, false));
        if (std::find(key_cols.begin(), key_cols.end(), k) == key_cols.end()) key_cols.push_back(k);
      }

  const size_t ncols = header.size();
  const size_t nused = used.size();
  const double missing = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> steps;
  std::vector<size_t> row_lines, row_keys;
  std::vector<double> values;                  // row-major, nused per row; NaN = no value
  std::vector<std::vector<std::string>> keys;  // the key cells of each distinct key
  std::unordered_map<std::string, size_t> key_ids;
  std::string key;
  steps.reserve(128);
  row_lines.reserve(128);
  values.reserve(128 * nused);

  while (lines.next(line)) {
    const size_t ln = lines.number();
    if (line.size() > kMaxLine)
      fail(in, ln, "line is " + std::to_string(line.size()) + " bytes long (limit 1 MiB)");
    if (trim_view(line).empty()) continue;
    split_cells(line, spec.delimiter, cells);
    if (lines.unterminated()) {
      // Cut while being written: even a full row may end in a cut number.
      out.warnings.add(in.name, ln,
                       "last line has no newline (" + std::to_string(cells.size()) + " of " +
                           std::to_string(ncols) + " cells; file cut while being written?); row ignored");
      break;
    }
    if (cells.size() != ncols)
      fail(in, ln,
           "row has " + std::to_string(cells.size()) + " cells, the header has " + std::to_string(ncols));

    size_t key_id = 0;
    if (!key_cols.empty()) {
      key.clear();
      bool empty = false;
      for (size_t k : key_cols) {
        auto cell = trim_view(cells[k]);
        empty |= cell.empty();
        key.append(cell).push_back('\x1f');
      }
      if (empty) {
        out.warnings.add(in.name, ln, "a column the metric names use is empty; row ignored");
        continue;
      }
      auto [it, fresh] = key_ids.try_emplace(key, keys.size());
      if (fresh) {
        keys.emplace_back();
        for (size_t k : key_cols) keys.back().emplace_back(trim_view(cells[k]));
      }
      key_id = it->second;
    }
    double step = static_cast<double>(steps.size());
    if (step_col >= 0) {
      auto cell = trim_view(cells[static_cast<size_t>(step_col)]);
      auto v = parse_number(cell);
      if (!v || !std::isfinite(*v))
        fail(in, ln, "step column '" + spec.step + "': " + preview(cell) + " is not a number");
      step = spec.step_scale > 0 ? std::round(*v * spec.step_scale) : *v;
    }
    for (const auto& u : used) {
      auto cell = trim_view(cells[u.index]);
      if (cell.empty()) {
        values.push_back(missing);
        continue;
      }
      // The common case inline: a plain decimal, unscaled (parse_scaled reads it the same way).
      if (double d = 0; u.column->scale == 1 && read_plain_decimal(cell, d)) {
        values.push_back(d);
        continue;
      }
      auto v = parse_scaled(cell, u.column->scale);
      if (!v)
        fail(in, ln,
             "column '" + u.column->column + "' (" + std::to_string(u.index + 1) + "): " + preview(cell) +
                 " is not a number");
      if (!std::isfinite(*v)) {
        out.warnings.add(in.name, ln, "column '" + u.column->column + "': " + preview(cell) + " skipped");
        values.push_back(missing);
        continue;
      }
      values.push_back(*v);
    }
    steps.push_back(step);
    row_lines.push_back(ln);
    row_keys.push_back(key_id);
  }

  const size_t nrows = steps.size();
  if (nrows == 0) {
    out.warnings.add(in.name, 0, "no data rows after the header");
    return;
  }
  if (keys.empty()) keys.emplace_back();

  // A step seen twice in one series: the later row wins (a restarted job appending to the file).
  std::vector<char> keep(nrows, 1);
  bool increasing = keys.size() == 1;
  for (size_t r = 1; r < nrows && increasing; ++r) increasing = steps[r] > steps[r - 1];
  if (!increasing) {
    std::vector<size_t> order(nrows);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::tie(row_keys[a], steps[a]) < std::tie(row_keys[b], steps[b]);
    });
    for (size_t i = 0; i + 1 < nrows; ++i) {
      size_t a = order[i], b = order[i + 1];
      if (row_keys[a] != row_keys[b] || steps[a] != steps[b]) continue;
      keep[a] = 0;
      out.warnings.add(in.name, row_lines[b],
                       "step " + format_number(steps[b]) + " also on line " + std::to_string(row_lines[a]) +
                           "; this later row is kept");
    }
  }

  // Series by series (column, then key in order of appearance), each in file order.
  std::vector<std::vector<size_t>> rows_of(keys.size());
  for (size_t r = 0; r < nrows; ++r) rows_of[row_keys[r]].push_back(r);
  out.metrics.reserve(out.metrics.size() + nrows * nused);
  for (size_t k = 0; k < nused; ++k) {
    const CsvColumn& c = *used[k].column;
    for (size_t id = 0; id < keys.size(); ++id) {
      std::string name;
      for (const auto& part : c.parts) {
        if (part.kind == CsvNamePart::literal) name += part.text;
        if (part.kind == CsvNamePart::wildcard) name += in.wildcard;
        if (part.kind == CsvNamePart::column) {
          size_t col = static_cast<size_t>(find_column(part.text, false));
          name +=
              keys[id]
                  [static_cast<size_t>(std::find(key_cols.begin(), key_cols.end(), col) - key_cols.begin())];
        }
      }
      for (size_t r : rows_of[id]) {
        double v = values[r * nused + k];
        if (!keep[r] || std::isnan(v)) continue;
        out.metrics.push_back(Metric{name, steps[r], v, c.unit});
      }
    }
  }
}

}  // namespace campaign::collect
