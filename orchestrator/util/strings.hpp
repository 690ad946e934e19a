// Small string helpers used across modules: splitting, joining, shell quoting
// and the "did you mean" suggestion for misspelt keys and names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace campaign {

std::string trim(std::string_view s);
// `s` safe in HTML text and attribute values: & < > " ' as entities.
std::string html_escape(std::string_view s);
// Escaped as html_escape, with `code` spans (as messages and Markdown write them) made <code>: the
// reports' and the site's notes show no literal backticks.
std::string html_prose(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
bool starts_with(std::string_view s, std::string_view prefix);
// true/false in YAML 1.1's spellings (yes/no, on/off; True/False as collector files have used).
std::optional<bool> parse_bool(std::string_view s);
bool ends_with(std::string_view s, std::string_view suffix);

// Quote `s` for a POSIX shell so that it is passed literally as one word.
// Words made only of safe characters are returned unchanged.
std::string shell_quote(std::string_view s);

// Levenshtein distance (byte-wise).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a likely typo,
// else "". Used for `did you mean 'x'?` hints.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// ", did you mean 'x'?" or "" - ready to append to an error message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Whether `text` is one of the names `name_template` stands for: each `{...}`
// part matches any non-empty text ("tau_calls:{routine}" matches
// "tau_calls:main"), the rest matches itself.
bool matches_template(std::string_view name_template, std::string_view text);

}  // namespace campaign
