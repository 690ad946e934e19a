// Walltime parsing and formatting for every scheduler's notation.
// Accepted input: Slurm's forms exactly as `sbatch --time` reads them (minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds: "30", "5:00" is
// five minutes, "01:30:00", "2-12", "1-00:30"), and units: "90m", "2h", "1h30m", "45s", "2d"; under
// WalltimeGrammar::lsf, "5:00" is LSF's hours:minutes instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace campaign {

// The accepted forms, for messages.
inline constexpr const char* kWalltimeForms =
    "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS as Slurm's --time; or 90m, 2h, 1h30m, 45s";
inline constexpr const char* kLsfWalltimeForms =
    "minutes or HH:MM as LSF's -W [hour:]minute; HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; or 90m, 2h, "
    "1h30m, 45s";

// How a walltime of two numbers reads, the one form the schedulers' grammars give different meanings:
// Slurm's `--time=5:00` is five minutes (MM:SS), LSF's `-W 5:00` five hours (HH:MM). A system profile's
// `walltime_format: lsf` reads the walltimes of campaigns run on it (and its own limits) as LSF does;
// every other form means the same under both.
enum class WalltimeGrammar { slurm, lsf };
const char* walltime_forms(WalltimeGrammar g);

// Seconds, or nullopt when `text` is not a walltime.
std::optional<long> parse_walltime(std::string_view text, WalltimeGrammar g = WalltimeGrammar::slurm);

std::string format_hms(long seconds);  // "01:30:00", "1-02:00:00" past a day (Slurm)
// LSF's `bsub -W [hour:]minute`: "01:30", "36:00" past a day (LSF has no day field), rounded up to the
// minute; parse_walltime(format_hhmm(s), WalltimeGrammar::lsf) is s rounded up to the minute.
std::string format_hhmm(long seconds);
long walltime_minutes(long seconds);  // rounded up

}  // namespace campaign
