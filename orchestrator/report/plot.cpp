// Implements report/plot.hpp: gnuplot scripts that name their columns (set
// datafile columnheaders), so a user can read and restyle them.
#include "report/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/stalls.hpp"
#include "report/process.hpp"
#include "util/strings.hpp"

namespace campaign::report {

using analysis::Cell;
using analysis::Scaling;
using analysis::Table;

namespace {

bool has_values(const Table& t, const std::string& column) {
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.number(r, column)) return true;
  }
  return false;
}

std::string column_ref(const std::string& name) { return gnuplot_string(name); }

std::string unit_suffix(const Table& t, const std::string& column) {
  auto it = t.units.find(column);
  return it == t.units.end() || it->second.empty() ? "" : " [" + it->second + "]";
}

// Axis limits for people editing the script: 4 significant digits are plenty.
std::string short_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string series_title(const analysis::Series& s, const std::string& fallback) {
  return s.label.empty() ? fallback : s.label;
}

void preamble(std::ostringstream& gp, const Table& t, int width, int height) {
  gp << plot_preamble(t.stem(), t.analysis + (t.group.empty() ? "" : " - " + t.group_label()), t.x, width,
                      height);
}

std::string scaling_script(const Table& t) {
  std::vector<double> xs;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (auto x = t.number(r, t.x)) xs.push_back(*x);
  }
  if (xs.empty()) return "";
  double lo = *std::min_element(xs.begin(), xs.end()), hi = *std::max_element(xs.begin(), xs.end());
  const bool thr = t.has("throughputs");
  double eff_max = 1;
  for (const auto& s : t.series) {
    for (size_t r = 0; r < t.rows.size(); ++r)
      eff_max = std::max(eff_max, t.number(r, "eff" + s.suffix).value_or(0));
  }

  std::ostringstream gp;
  preamble(gp, t, 900, 820);
  const std::string title = t.analysis + " (" + std::string(to_string(t.scaling)) + " scaling" +
                            (t.group.empty() ? "" : ", " + t.group_label()) + ")";
  gp << "set logscale x 2\n"
     << "set xrange [" << short_num(lo / 1.25) << ":" << short_num(hi * 1.25) << "]\n";
  if (xs.size() <= 16) {
    gp << "set xtics (";
    for (size_t i = 0; i < xs.size(); ++i) gp << (i ? ", " : "") << analysis::format_exact(xs[i]);
    gp << ")\n";
  }
  gp << "set lmargin 13\nset rmargin 4\n"
     << "set multiplot title " << gnuplot_string(title) << " font \",14\"\n"
     << "\n# Top panel: " << (thr ? "throughput" : "speedup")
     << ", dashed lines are ideal scaling from the smallest " << t.x << ".\n"
     << "set origin 0, 0.37\nset size 1, 0.58\nset bmargin 1\n"
     << "set logscale y 10\n"
     << "set format x \"\"\nunset xlabel\n";
  if (thr)
    gp << "set ylabel " << gnuplot_string("throughput" + unit_suffix(t, "throughputs") + ", log scale")
       << "\n";
  else
    gp << "set ylabel \"speedup, log scale\"\n";
  gp << "set key top left Left reverse box opaque samplen 3\n";

  std::vector<std::string> top, bottom;
  int lt = 0;
  for (const auto& s : t.series) {
    ++lt;
    const std::string& sfx = s.suffix;
    std::string name = series_title(s, thr ? "throughput" : "speedup");
    std::string main = thr ? "throughputs" + sfx : "speedup" + sfx;
    if (!has_values(t, main)) continue;
    std::string lts = " lt " + std::to_string(lt);
    if (thr && has_values(t, "throughputs_std" + sfx))
      top.push_back("data using " + column_ref(t.x) + ":" + column_ref(main) + ":" +
                    column_ref("throughputs_std" + sfx) + " with yerrorlines" + lts + " title " +
                    gnuplot_string(name));
    else
      top.push_back("data using " + column_ref(t.x) + ":" + column_ref(main) + " with linespoints" + lts +
                    " title " + gnuplot_string(name));
    std::string ideal_title = s.label.empty() ? "ideal" : "ideal (" + s.label + ")";
    if (thr && has_values(t, "ideal" + sfx)) {
      top.push_back("data using " + column_ref(t.x) + ":" + column_ref("ideal" + sfx) + " with lines" + lts +
                    " dt 2 lw 1.5 title " + gnuplot_string(ideal_title));
    } else if (!thr) {
      double x0 = hi;  // this series' r0
      for (size_t r = 0; r < t.rows.size(); ++r) {
        if (t.number(r, main)) x0 = std::min(x0, t.number(r, t.x).value_or(hi));
      }
      top.push_back("data using " + column_ref(t.x) + ":(column(" + column_ref(t.x) + ") / " +
                    analysis::format_exact(x0) + ") with lines" + lts + " dt 2 lw 1.5 title " +
                    gnuplot_string(ideal_title));
    }
    if (has_values(t, "eff" + sfx))
      bottom.push_back("data using " + column_ref(t.x) + ":" + column_ref("eff" + sfx) + " with linespoints" +
                       lts + " title " + gnuplot_string(series_title(s, "efficiency")));
  }
  if (top.empty()) return "";
  // A tight log range: gnuplot's default would round out to whole decades.
  double ylo = 0, yhi = 0;
  for (const auto& s : t.series) {
    for (const std::string& c : {thr ? "throughputs" + s.suffix : "speedup" + s.suffix, "ideal" + s.suffix}) {
      for (size_t r = 0; r < t.rows.size(); ++r) {
        double v = t.number(r, c).value_or(0);
        if (v <= 0) continue;
        ylo = ylo == 0 ? v : std::min(ylo, v);
        yhi = std::max(yhi, v);
      }
    }
  }
  if (!thr) yhi = std::max(yhi, hi / lo);  // room for the ideal speedup line
  if (ylo > 0) gp << "set yrange [" << short_num(ylo / 1.6) << ":" << short_num(yhi * 1.6) << "]\n";
  gp << "plot " << join(top, ", \\\n     ") << "\n";

  gp << "\n# Bottom panel: parallel efficiency; 1 is ideal.\n"
     << "set origin 0, 0\nset size 1, 0.37\nset tmargin 0.5\nset bmargin 4\n"
     << "unset logscale y\n"
     << "set format x \"%g\"\n"
     << "set xlabel " << gnuplot_string(t.x + ", log2 scale") << "\n"
     << "set ylabel \"efficiency\"\n"
     << "set yrange [0:" << analysis::format_exact(std::ceil(eff_max * 10.5) / 10) << "]\n"
     << "set ytics 0.2\n"
     << "set key bottom left Left reverse box opaque samplen 3\n";
  bottom.push_back("1 with lines lc rgb \"#444444\" dt 2 lw 1.5 title \"ideal\"");
  gp << "plot " << join(bottom, ", \\\n     ") << "\n"
     << "unset multiplot\n";
  return gp.str();
}

bool any_std(const Table& t, const std::string& v) {
  for (const auto& s : t.series)
    if (t.has(v + "_std" + s.suffix)) return true;
  return false;
}

// The style of clustered bars from 0 up, with error bars or without.
void histogram_style(std::ostringstream& gp, bool errorbars) {
  gp << "set style data histograms\n"
     << (errorbars ? "set style histogram errorbars gap 1.5 lw 1.5\n"
                   : "set style histogram clustered gap 1.5\n")
     << "set style fill solid 0.85 border -1\n"
     << "set boxwidth 0.9\n"
     << "set yrange [0:*]\n"
     << "set grid noxtics\n"
     << "# An empty std (one repetition, one iteration) is drawn as no error bar.\n"
     << "nz(c) = (column(c) == column(c)) ? column(c) : 0\n";
}

// Clustered bars: a cluster per row (labelled by the first column), in it a bar of `v` per series
// (`v` + its suffix), with `v`_std error bars where any series has them. Writes the style; returns
// the plot clauses.
std::vector<std::string> bar_clauses(std::ostringstream& gp, const Table& t, const std::string& v,
                                     const std::string& untitled) {
  const bool errorbars = any_std(t, v);
  histogram_style(gp, errorbars);
  std::vector<std::string> plots;
  int lt = 0;
  for (const auto& s : t.series) {
    ++lt;
    std::string using_ = "data using " + column_ref(v + s.suffix);
    if (errorbars)
      using_ += t.has(v + "_std" + s.suffix) ? ":(nz(" + column_ref(v + "_std" + s.suffix) + "))" : ":(0)";
    if (plots.empty()) using_ += ":xtic(1)";
    plots.push_back(using_ + " lt " + std::to_string(lt) + " title " +
                    gnuplot_string(series_title(s, untitled)));
  }
  return plots;
}

std::string bar_script(const analysis::AnalysisResult& a, const Table& t) {
  if (t.rows.empty()) return "";
  std::ostringstream gp;
  preamble(gp, t, 900, 520);
  std::string title = t.analysis + (t.group.empty() ? "" : " (" + t.group_label() + ")");
  for (const auto& n : t.notes) title += "\n" + n;       // e.g. the ratio, the headline of such a study
  const std::string v = analysis::value_column(a.spec);  // "times", or a window analysis' value
  // A ratio between two compared series (original / ring_buffer per io_limit): its value above
  // each cluster, the headline of such a study.
  const auto& ratio = a.spec.ratio;
  bool ratio_labels = ratio && a.spec.compare && ratio->axis == a.spec.compare->axis && t.has("ratio");
  if (ratio_labels)
    title += "\nlabels: " + ratio->numerator + " / " + ratio->denominator +
             (t.has("ratio_std") ? " time, mean ± std of repetitions" : " time");
  gp << "set title " << gnuplot_string(title) << " font \",13\"\n"
     << "set xlabel " << gnuplot_string(t.x) << "\n"
     << "set ylabel "
     << gnuplot_string((a.spec.window ? v : a.spec.time.metric) + unit_suffix(t, v) +
                       (a.spec.window ? " (epochs >= " : " (steps >= ") +
                       analysis::format_cell(Cell(a.spec.time.warmup)) + ")" +
                       (any_std(t, v) ? ", mean ± std of repetitions" : ""))
     << "\n"
     << (t.series.size() > 1 ? "set key top right box opaque width 2\n" : "unset key\n");
  std::vector<std::string> plots = bar_clauses(gp, t, v, v == "times" ? "time" : v);
  if (ratio_labels) {
    // Clustered histograms put cluster i at x = i; the label sits above the cluster's highest bar.
    std::string top;
    for (const auto& s : t.series) {
      std::string bar =
          "column(" + column_ref(v + s.suffix) + ")" +
          (t.has(v + "_std" + s.suffix) ? " + nz(" + column_ref(v + "_std" + s.suffix) + ")" : "");
      top = top.empty() ? bar : "mx(" + top + ", " + bar + ")";
    }
    std::string text = t.has("ratio_std") ? "sprintf(\"%.2f ± %.2f\", column(\"ratio\"), nz(\"ratio_std\"))"
                                          : "sprintf(\"%.2f\", column(\"ratio\"))";
    gp << "mx(a, b) = (b > a || a != a) ? b : a\n"
       << "set offsets 0, 0, graph 0.15, 0\n";
    plots.push_back("data using ($0):(" + top + "):(column(\"ratio\") == column(\"ratio\") ? " + text +
                    " : \"\") with labels offset 0,1 notitle");
  }
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

// The report's usage table: each case's energies (J) side by side, one bar per figure it has.
std::string energy_script(const Table& t) {
  static const char* const kEnergies[] = {"gpu_energy_j", "gpu_energy_to_train_j", "sacct_energy_j",
                                          "cpu_package_energy_share_j"};
  std::vector<std::string> columns;
  for (const char* c : kEnergies)
    if (t.has(c)) columns.push_back(c);
  if (t.rows.empty() || columns.empty()) return "";
  std::ostringstream gp;
  gp << plot_preamble(t.stem(), "energy per case", t.x, 900, 520);
  gp << "set title \"energy per case (J; each figure's source in the usage table's notes)\" font \",13\"\n"
     << "set xlabel \"case\"\nset ylabel \"energy [J]\"\nset xtics rotate by -30\n"
     << "set key top right box opaque width 2\n";
  histogram_style(gp, false);
  std::vector<std::string> plots;
  int lt = 0;
  for (const auto& c : columns)
    plots.push_back("data using " + column_ref(c) + (plots.empty() ? ":xtic(1)" : "") + " lt " +
                    std::to_string(++lt) + " title " + gnuplot_string(c));
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

// Window analyses: the value vs epoch progress, one line per series with its ±std band, each at
// its own progress column (progress<suffix>) when it has one.
std::string band_script(const Table& t) {
  if (t.rows.empty() || t.columns.size() < 3 || t.series.empty()) return "";
  std::ostringstream gp;
  preamble(gp, t, 900, 520);
  const std::string& sfx0 = t.series.front().suffix;
  const size_t at = t.has("progress" + sfx0) ? 2 : 1;  // the first series' mean column
  const std::string v = t.columns[at].substr(0, t.columns[at].size() - sfx0.size());
  gp << "set title " << gnuplot_string(t.analysis + (t.group.empty() ? "" : " (" + t.group_label() + ")"))
     << " font \",13\"\n"
     << "set xlabel \"epoch progress [%]\"\nset xrange [0:100]\n"
     << "set ylabel " << gnuplot_string(v + unit_suffix(t, t.columns[1]) + ", mean ± std of repetitions")
     << "\n"
     << "set yrange [0:*]\n"
     << "set key outside right top box opaque\n"
     << "set style fill transparent solid 0.2 noborder\n"
     << "# An empty std (a single repetition) is drawn as no band.\n"
     << "nz(c) = (column(c) == column(c)) ? column(c) : 0\n";
  std::vector<std::string> plots;
  int lt = 0;
  for (const auto& s : t.series) {
    ++lt;
    std::string mean = column_ref(v + s.suffix), sd = column_ref(v + "_std" + s.suffix);
    std::string x = column_ref(t.has("progress" + s.suffix) ? "progress" + s.suffix : "progress");
    std::string lts = " lt " + std::to_string(lt);
    plots.push_back("data using " + x + ":(column(" + mean + ") - nz(" + sd + ")):(column(" + mean +
                    ") + nz(" + sd + ")) with filledcurves" + lts + " notitle");
    plots.push_back("data using " + x + ":" + mean + " with lines" + lts + " title " +
                    gnuplot_string(s.label));
  }
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

// Stall analyses: each rank's Training Stall time per iteration.
std::string stall_script(const Table& t) {
  if (t.rows.empty()) return "";
  std::ostringstream gp;
  preamble(gp, t, 900, 520);
  gp << "set title " << gnuplot_string(t.analysis + " - " + t.group_label()) << " font \",13\"\n"
     << "set xlabel \"iteration\"\n"
     << "set ylabel \"Training Stall time [s]\"\n"
     << "set yrange [0:*]\n"
     << "set key outside right top box opaque\n";
  std::vector<std::string> plots;
  int lt = 0;
  for (const auto& s : t.series) {
    ++lt;
    plots.push_back("data using \"Iteration\":" + column_ref("Training Stall time (sec)" + s.suffix) +
                    " with lines lt " + std::to_string(lt) + " title " + gnuplot_string(s.label));
  }
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

// The stalls' what-if: per case (a cluster) the predicted iteration time of each combination (a bar)
// with its std over the iterations.
std::string whatif_script(const Table& t) {
  if (t.rows.empty() || t.series.empty()) return "";
  std::ostringstream gp;
  const int width =
      static_cast<int>(std::clamp<size_t>(160 + t.rows.size() * (t.series.size() * 14 + 30), 900, 4000));
  preamble(gp, t, width, 560);
  const std::string v = analysis::kPredicted;
  gp << "set title " << gnuplot_string(t.analysis + ": predicted iteration time per fetch / start alignment")
     << " font \",13\"\n"
     << "set xtics rotate by -20\n"
     << "set xlabel \"case\"\n"
     << "set ylabel \"iteration time [s], mean ± std over the iterations\"\n"
     << "set key outside right top box opaque\n"
     << "set linetype 7 lc rgb \"#e377c2\" lw 2\nset linetype 8 lc rgb \"#7f7f7f\" lw 2\n"
     << "set linetype 9 lc rgb \"#bcbd22\" lw 2\nset linetype cycle 9\n";
  std::vector<std::string> plots = bar_clauses(gp, t, v, v);
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

}  // namespace

std::string gnuplot_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string plot_preamble(const std::string& stem, const std::string& title, const std::string& x, int width,
                          int height) {
  std::ostringstream gp;
  gp << "# " << title << "\n"
     << "# Data: " << stem << ".dat (one row per " << x << ", columns named in its first line).\n"
     << "# Re-render after editing:  gnuplot -e \"fmt='svg'\" " << stem << ".gp   (or fmt='png')\n"
     << "if (!exists(\"fmt\")) fmt = \"png\"\n"
     << "if (fmt eq \"svg\") {\n"
     << "  set terminal svg size " << width << "," << height
     << " dynamic noenhanced font \"sans,13\" background rgb \"white\"\n"
     << "  set output \"" << stem << ".svg\"\n"
     << "} else {\n"
     << "  if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
     << "    set terminal pngcairo size " << width << "," << height
     << " noenhanced font \"sans,12\" background rgb \"white\"\n"
     << "  } else {\n"
     << "    set terminal png size " << width << "," << height << " noenhanced background rgb \"white\"\n"
     << "  }\n"
     << "  set output \"" << stem << ".png\"\n"
     << "}\n"
     << "set encoding utf8\n"
     << "set datafile columnheaders\n"
     << "set datafile missing \"NaN\"\n"
     << "data = \"" << stem << ".dat\"\n"
     << "set linetype 1 lc rgb \"#1f77b4\" lw 2 pt 7 ps 1.2\n"
     << "set linetype 2 lc rgb \"#d62728\" lw 2 pt 5 ps 1.2\n"
     << "set linetype 3 lc rgb \"#2ca02c\" lw 2 pt 9 ps 1.3\n"
     << "set linetype 4 lc rgb \"#9467bd\" lw 2 pt 11 ps 1.3\n"
     << "set linetype 5 lc rgb \"#ff7f0e\" lw 2 pt 13 ps 1.3\n"
     << "set linetype 6 lc rgb \"#8c564b\" lw 2 pt 15 ps 1.3\n"
     << "set linetype cycle 6\n"
     << "set grid xtics ytics lc rgb \"#dddddd\" lw 1 dt 1\n"
     << "set border lw 1.2\n";
  return gp.str();
}

std::string plot_data(const Table& t) {
  std::ostringstream out;
  for (size_t i = 0; i < t.columns.size(); ++i) {  // a name with spaces quoted: gnuplot reads it as one
    const std::string& c = t.columns[i];
    out << (i ? " " : "") << (c.find_first_of(" \t") == std::string::npos ? c : "\"" + c + "\"");
  }
  out << "\n";
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out << ' ';
      if (const auto* s = std::get_if<std::string>(&row[i])) {
        std::string clean = *s;
        std::replace(clean.begin(), clean.end(), '"', '\'');  // gnuplot data strings cannot escape quotes
        out << '"' << clean << '"';
      } else if (const auto* d = std::get_if<double>(&row[i])) {
        out << analysis::format_exact(*d);
      } else {
        out << "NaN";
      }
    }
    out << "\n";
  }
  return out.str();
}

std::string plot_script(const analysis::AnalysisResult& a, const Table& t) {
  // The report's own tables: the usage table's energies; no other.
  if (!a.spec.description.empty()) return a.spec.name == "usage" ? energy_script(t) : "";
  switch (t.scaling) {
    case Scaling::mlperf_weak:
      return "";  // a table of instances; nothing scales
    case Scaling::stalls:
      if (t.x == "Iteration") return stall_script(t);
      return t.detail && t.x == "case" ? whatif_script(t)
                                       : "";  // the tables of cases and of combinations: none
    case Scaling::window:
      return t.x == "progress" ? band_script(t) : bar_script(a, t);
    case Scaling::none:
      return bar_script(a, t);
    default:
      return scaling_script(t);
  }
}

std::string render_plot(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                        const std::string& stem, std::chrono::milliseconds timeout) {
  for (const char* fmt : {"svg", "png"}) {
    std::filesystem::path out = dir / (stem + "." + fmt);
    std::error_code ec;
    std::filesystem::remove(out, ec);  // a stale plot must not pass for a new one
    ProcessResult r =
        run_process({gnuplot.string(), "-e", std::string("fmt='") + fmt + "'", stem + ".gp"}, dir, timeout);
    std::string output = trim(r.output);
    if (r.timed_out) return stem + ".gp: gnuplot did not finish in time";
    if (r.exit_code != 0)
      return stem + ".gp: gnuplot failed (exit " + std::to_string(r.exit_code) + ")" +
             (output.empty() ? "" : ": " + output);
    if (!std::filesystem::exists(out, ec) || std::filesystem::file_size(out, ec) == 0)
      return stem + ".gp: gnuplot wrote no " + fmt + (output.empty() ? "" : ": " + output);
  }
  return "";
}

}  // namespace campaign::report
