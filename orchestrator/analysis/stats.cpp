// Implements analysis/stats.hpp.
#include "analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace campaign::analysis {

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("summarize: no values");
  Summary s;
  s.count = values.size();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  if (s.count > 1) {
    double ss = 0;  // two-pass: no cancellation for values far from 0
    for (double v : values) ss += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(ss / static_cast<double>(s.count - 1));
  }
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  size_t mid = s.count / 2;
  s.median = s.count % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  return s;
}

namespace {

// The continued fraction of the regularized incomplete beta function
// (modified Lentz), as in Numerical Recipes' betacf: converges for
// x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int half = 0; half < 2; ++half) {
      d = 1 + aa * d;
      if (std::fabs(d) < tiny) d = tiny;
      c = 1 + aa / c;
      if (std::fabs(c) < tiny) c = tiny;
      d = 1 / d;
      h *= d * c;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
    if (std::fabs(d * c - 1) < eps) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double student_t_two_sided(double t, double df) {
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) throw std::invalid_argument("student_t_quantile: p or df out of range");
  if (p == 0.5) return 0;
  const double tail = p < 0.5 ? p : 1 - p;  // one-sided, of the upper quantile
  double lo = 0, hi = 1;
  while (student_t_two_sided(hi, df) / 2 > tail) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = (lo + hi) / 2;
    (student_t_two_sided(mid, df) / 2 > tail ? lo : hi) = mid;
  }
  const double q = (lo + hi) / 2;
  return p < 0.5 ? -q : q;
}

std::optional<double> mean_interval(const Summary& s, double confidence) {
  if (!s.std || s.count < 2) return std::nullopt;
  const double n = static_cast<double>(s.count);
  return student_t_quantile(0.5 + confidence / 2, n - 1) * *s.std / std::sqrt(n);
}

}  // namespace campaign::analysis
