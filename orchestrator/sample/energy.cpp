#include "sample/energy.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;

namespace campaign::sample {

namespace {

std::optional<std::string> energy_file_text(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return s.str();
}

std::optional<unsigned long long> energy_file_number(const fs::path& p) {
  auto text = energy_file_text(p);
  if (!text) return std::nullopt;
  unsigned long long v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end == text->data()) return std::nullopt;
  return v;
}

}  // namespace

void PowerIntegral::add(double time, double watts) {
  if (last_ && time <= *last_) return;
  if (last_) joules_ += (time - *last_) * (watts + last_watts_) / 2;
  if (!first_) first_ = time;
  last_ = time;
  last_watts_ = watts;
  ++readings_;
}

std::optional<double> PowerIntegral::mean_watts() const {
  if (readings_ < 2 || seconds() <= 0) return std::nullopt;
  return joules_ / seconds();
}

std::optional<double> energy_within(const std::vector<double>& times, const std::vector<double>& watts,
                                    double start, double stop) {
  PowerIntegral in;
  for (std::size_t i = 0; i < times.size() && i < watts.size(); ++i)
    if (times[i] >= start && times[i] <= stop) in.add(times[i], watts[i]);
  if (in.readings() < 2) return std::nullopt;
  return in.joules();
}

std::optional<unsigned long long> counter_delta(unsigned long long before, unsigned long long after,
                                                unsigned long long max_range) {
  if (after >= before) return after - before;
  if (max_range == 0 || before > max_range) return std::nullopt;
  return max_range - before + after;
}

Powercap find_packages(const fs::path& root) {
  Powercap p;
  std::error_code ec;
  std::vector<fs::path> zones;
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string n = it->path().filename().string();
    // intel-rapl:N, one colon (intel-rapl:N:M are subzones; intel-rapl-mmio repeats the package)
    if (n.rfind("intel-rapl:", 0) == 0 && std::count(n.begin(), n.end(), ':') == 1)
      zones.push_back(it->path());
  }
  std::sort(zones.begin(), zones.end());
  bool all_read = true;
  for (auto& z : zones) {
    auto name = energy_file_text(z / "name");
    if (!name) continue;
    std::string nm = name->substr(0, name->find('\n'));
    if (nm.rfind("package", 0) != 0) continue;
    PackageZone pz{nm, z / "energy_uj", energy_file_number(z / "max_energy_range_uj").value_or(0)};
    if (!read_energy_uj(pz)) all_read = false;
    p.packages.push_back(pz);
  }
  if (!p.packages.empty()) p.state = all_read ? Powercap::readable : Powercap::unreadable;
  return p;
}

const char* to_string(Powercap::State s) {
  return s == Powercap::readable ? "readable" : s == Powercap::unreadable ? "unreadable" : "absent";
}

std::optional<unsigned long long> read_energy_uj(const PackageZone& zone) {
  return energy_file_number(zone.energy);
}

std::vector<double> split_by_held(double total, const std::vector<double>& held) {
  double sum = 0;
  for (double h : held) sum += std::max(0.0, h);
  std::vector<double> out(held.size(), 0.0);
  if (sum <= 0) return out;
  for (size_t i = 0; i < held.size(); ++i) out[i] = total * std::max(0.0, held[i]) / sum;
  return out;
}

}  // namespace campaign::sample
