// Implements site/svg.hpp.
#include "site/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "site/html.hpp"

namespace campaign::site {

namespace {

// Series colours: the first two are report.html's (#1f77b4, #d62728 is kept for regressions).
const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                         "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string short_number(double v) {
  if (!std::isfinite(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string day(Time t) {
  std::time_t tt = static_cast<std::time_t>(t.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::vector<double> nice_ticks(double lo, double hi, int n) {
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / std::max(n, 1);
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * mag >= raw) {
      step = f * mag;
      break;
    }
  std::vector<double> out;
  for (double k = std::ceil(lo / step); k * step <= hi + step * 1e-9; ++k)
    out.push_back(k * step);  // no drift
  return out;
}

std::string svg(const Plot& p) {
  const double left = 52, right = 12, top = p.heading.empty() ? 8 : 24,
               legend_h = p.legend ? 16.0 * p.series.size() : 0;
  const double bottom = 34 + legend_h;
  const double w = p.width - left - right, h = p.height - top - bottom;

  // Ranges: every value and guide; dates padded by a day when all are on one.
  double ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : p.series)
    for (const auto& y : s.y)
      if (y && std::isfinite(*y)) ylo = std::min(ylo, *y), yhi = std::max(yhi, *y);
  for (double g : p.guides) ylo = std::min(ylo, g), yhi = std::max(yhi, g);
  if (!std::isfinite(ylo)) ylo = 0, yhi = 1;
  if (yhi - ylo < 1e-12 * std::max(1.0, std::abs(yhi))) ylo -= 0.5, yhi += 0.5;
  const double pad = (yhi - ylo) * 0.08;
  ylo -= pad, yhi += pad;
  double xlo = 0, xhi = 1;
  if (!p.x.empty()) {
    xlo = static_cast<double>(p.x.front().time_since_epoch().count());
    xhi = static_cast<double>(p.x.back().time_since_epoch().count());
  }
  if (xhi - xlo < 1) xlo -= 86400, xhi += 86400;
  auto X = [&](double t) { return left + (t - xlo) / (xhi - xlo) * w; };
  auto Y = [&](double v) { return top + (yhi - v) / (yhi - ylo) * h; };
  auto xt = [&](size_t i) { return X(static_cast<double>(p.x[i].time_since_epoch().count())); };

  std::ostringstream o;
  o << "<svg width=\"" << p.width << "\" height=\"" << p.height << "\" viewBox=\"0 0 " << p.width << ' '
    << p.height << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\" role=\"img\">\n<title>"
    << esc(p.title) << "</title>\n";
  if (!p.heading.empty())
    o << "<text x=\"" << left << "\" y=\"14\" font-size=\"12\" font-weight=\"bold\">" << esc(p.heading)
      << "</text>\n";
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << fixed(w) << "\" height=\"" << fixed(h)
    << "\" fill=\"none\" stroke=\"#bbb\"/>\n";
  for (double v : nice_ticks(ylo, yhi, 4)) {
    o << "<line x1=\"" << left << "\" x2=\"" << fixed(left + w) << "\" y1=\"" << fixed(Y(v)) << "\" y2=\""
      << fixed(Y(v)) << "\" stroke=\"#eee\"/><text x=\"" << left - 4 << "\" y=\"" << fixed(Y(v) + 3)
      << "\" text-anchor=\"end\">" << short_number(v) << "</text>\n";
  }
  if (!p.y_label.empty())
    o << "<text transform=\"translate(11," << fixed(top + h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << esc(p.y_label) << "</text>\n";
  // Dates: up to 4 ticks, evenly spaced, written as days.
  const int nx = std::min<int>(4, std::max<int>(1, static_cast<int>(w / 110)));
  for (int i = 0; i <= nx; ++i) {
    double t = xlo + (xhi - xlo) * i / nx;
    o << "<text x=\"" << fixed(X(t)) << "\" y=\"" << fixed(top + h + 13) << "\" text-anchor=\""
      << (i == 0    ? "start"
          : i == nx ? "end"
                    : "middle")
      << "\">" << day(Time(std::chrono::seconds(static_cast<long long>(t)))) << "</text>\n";
  }
  for (double g : p.guides)
    o << "<line x1=\"" << left << "\" x2=\"" << fixed(left + w) << "\" y1=\"" << fixed(Y(g)) << "\" y2=\""
      << fixed(Y(g)) << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n";
  for (size_t s = 0; s < p.series.size(); ++s) {
    const PlotSeries& ps = p.series[s];
    const char* color = kColors[s % std::size(kColors)];
    std::string d;
    bool pen = false;
    size_t points = 0;
    for (size_t i = 0; i < ps.y.size() && i < p.x.size(); ++i) {
      if (!ps.y[i] || !std::isfinite(*ps.y[i])) {
        pen = false;
        continue;
      }
      d += (pen ? " L" : " M") + fixed(xt(i)) + ' ' + fixed(Y(*ps.y[i]));
      pen = true;
      ++points;
    }
    if (points)
      o << "<path class=\"series\" d=\"" << d.substr(1) << "\" fill=\"none\" stroke=\"" << color
        << "\" stroke-width=\"1.5\"/>\n";
    for (size_t i = 0; i < ps.y.size() && i < p.x.size(); ++i) {
      if (!ps.y[i] || !std::isfinite(*ps.y[i])) continue;
      const bool marked = i < ps.marked.size() && ps.marked[i];
      if (!marked && !p.point_titles && points > 1) continue;
      o << "<circle cx=\"" << fixed(xt(i)) << "\" cy=\"" << fixed(Y(*ps.y[i])) << "\" r=\""
        << (marked ? "4.5\" class=\"regression\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\""
                   : "2.5\" fill=\"" + std::string(color) + "\"")
        << ">";
      if (p.point_titles || marked)
        o << "<title>" << esc(ps.name) << ' ' << day(p.x[i]) << ": " << short_number(*ps.y[i])
          << (marked ? " (regression)" : "") << "</title>";
      o << "</circle>\n";
    }
    if (p.legend) {
      double ly = top + h + 28 + 16.0 * s;
      o << "<line x1=\"" << left << "\" x2=\"" << left + 18 << "\" y1=\"" << fixed(ly - 3) << "\" y2=\""
        << fixed(ly - 3) << "\" stroke=\"" << color << "\" stroke-width=\"2\"/><text x=\"" << left + 24
        << "\" y=\"" << fixed(ly) << "\">" << esc(ps.name.empty() ? "value" : ps.name) << "</text>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace campaign::site
