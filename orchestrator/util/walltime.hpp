// Walltime parsing and formatting for every scheduler's notation.
// Accepted input: "[D-]HH:MM:SS", "HH:MM", "90m", "2h", "1h30m", "45s", or a
// bare number of minutes (Slurm's convention for a plain number).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace campaign {

// Seconds, or nullopt when `text` is not a walltime.
std::optional<long> parse_walltime(std::string_view text);

std::string format_hms(long seconds);   // "01:30:00", "1-02:00:00" past a day (Slurm)
std::string format_hhmm(long seconds);  // "01:30" (LSF -W), rounded up to the minute
long walltime_minutes(long seconds);    // rounded up

}  // namespace campaign
