// Walltime parsing and formatting for every scheduler's notation.
// Accepted input: Slurm's forms exactly as `sbatch --time` reads them (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds: "30", "5:00" is
// five minutes, "01:30:00", "2-12", "1-00:30"), and units: "90m", "2h", "1h30m", "45s", "2d".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace campaign {

// The accepted forms, for messages.
inline constexpr const char* kWalltimeForms =
    "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS as Slurm's --time; or 90m, 2h, 1h30m, 45s";

// Seconds, or nullopt when `text` is not a walltime.
std::optional<long> parse_walltime(std::string_view text);

std::string format_hms(long seconds);   // "01:30:00", "1-02:00:00" past a day (Slurm)
std::string format_hhmm(long seconds);  // "01:30" (LSF -W), rounded up to the minute
long walltime_minutes(long seconds);    // rounded up

}  // namespace campaign
