// Small text helpers for reading scheduler output; internal to sched/.
// Invariant: all of them are pure and never throw on odd input (they return empty/nullopt instead),
// so parsers decide what is an error.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace campaign::sched::text {

// Lines without their terminators ("\n" or "\r\n"); a final empty line is not returned.
std::vector<std::string> lines(std::string_view s);
std::string lower(std::string_view s);
std::string upper(std::string_view s);
bool contains_ci(std::string_view haystack, std::string_view needle);
// A whole decimal integer (optional sign, surrounding blanks allowed), else nullopt.
std::optional<long> to_long(std::string_view s);
// Splits on whitespace runs.
std::vector<std::string> words(std::string_view s);
// A wall-clock time without zone, as schedulers print them, read as local time here (month 1-12);
// nullopt for a date that does not exist ("Feb 30").
std::optional<std::chrono::sys_seconds> local_time(int year, int month, int day, int hour, int minute,
                                                   int second);

}  // namespace campaign::sched::text
