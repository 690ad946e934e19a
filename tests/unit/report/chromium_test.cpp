// report.html in a real browser: headless Chromium takes a screenshot, which
// must be a 1200x1600 PNG with far more in it than a blank page, and - decoded
// - must show the plot series colours that only the inline SVG plots use.
// Tagged [.chromium]: run by ctest as unit_report_chromium, skipped there when
// Chromium or gnuplot is missing.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <unordered_set>

#include "fixtures.hpp"
#include "report/process.hpp"
#include "report/report.hpp"

using namespace campaign::report;
using fixtures::TempDir;
namespace fs = std::filesystem;

namespace {

// Width and height from the IHDR chunk, which a PNG must start with.
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  REQUIRE(png.size() > 24);
  REQUIRE(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  REQUIRE(png.compare(12, 4, "IHDR") == 0);
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
           uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
  };
  return {be32(16), be32(20)};
}

// The pixels of an 8-bit, non-interlaced RGB(A) PNG as RGB triplets (zlib,
// which every Debian system has, is borrowed at run time to inflate IDAT).
std::vector<uint8_t> png_rgb(const std::string& png) {
  using Uncompress = int (*)(unsigned char*, unsigned long*, const unsigned char*, unsigned long);
  void* zlib = ::dlopen("libz.so.1", RTLD_NOW);
  if (!zlib) FAIL("libz.so.1 cannot be loaded: " << ::dlerror());
  auto uncompress = reinterpret_cast<Uncompress>(::dlsym(zlib, "uncompress"));
  REQUIRE(uncompress);
  auto [width, height] = png_size(png);
  const uint8_t depth = uint8_t(png[24]), colour = uint8_t(png[25]), interlace = uint8_t(png[28]);
  REQUIRE(depth == 8);
  REQUIRE((colour == 2 || colour == 6));
  REQUIRE(interlace == 0);
  const size_t bpp = colour == 6 ? 4 : 3, stride = width * bpp;

  std::string idat;
  for (size_t at = 8; at + 12 <= png.size();) {
    uint32_t len = uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
                   uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
    if (png.compare(at + 4, 4, "IDAT") == 0) idat.append(png, at + 8, len);
    at += 12 + len;
  }
  std::vector<uint8_t> raw(height * (stride + 1));
  unsigned long raw_len = raw.size();
  REQUIRE(uncompress(raw.data(), &raw_len, reinterpret_cast<const unsigned char*>(idat.data()),
                     idat.size()) == 0);
  REQUIRE(raw_len == raw.size());
  ::dlclose(zlib);

  std::vector<uint8_t> pix(height * stride), rgb;
  for (size_t y = 0; y < height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* cur = &pix[y * stride];
    const uint8_t* prev = y ? &pix[(y - 1) * stride] : nullptr;
    if (filter > 4) FAIL("bad PNG filter " << int(filter) << " in row " << y);
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= bpp ? cur[x - bpp] : 0, b = prev ? prev[x] : 0, c = prev && x >= bpp ? prev[x - bpp] : 0;
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      int pred[] = {0, a, b, (a + b) / 2, paeth};
      cur[x] = uint8_t(in[x] + pred[filter]);
    }
  }
  rgb.reserve(width * height * 3);
  for (size_t i = 0; i < pix.size(); i += bpp) rgb.insert(rgb.end(), {pix[i], pix[i + 1], pix[i + 2]});
  return rgb;
}

// Pixels within a small distance of the colour 0xRRGGBB.
size_t pixels_like(const std::vector<uint8_t>& rgb, uint32_t colour) {
  size_t n = 0;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3) {
    int d = std::abs(rgb[i] - int(colour >> 16)) + std::abs(rgb[i + 1] - int(colour >> 8 & 255)) +
            std::abs(rgb[i + 2] - int(colour & 255));
    n += d <= 24;
  }
  return n;
}

// Headless Chromium saving a screenshot of `page` as `png`, started at once on a thread of its own:
// a browser mostly waits (start-up, its processes talking), so several at once take about as
// long as one.
std::future<ProcessResult> start_screenshot(const fs::path& browser, const fs::path& page,
                                            const fs::path& png) {
  return std::async(std::launch::async, [=] {
    return run_process({browser.string(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + png.string() + ".profile",
                        "--screenshot=" + png.string(), "--window-size=1200,1600", "file://" + page.string()},
                       page.parent_path(), std::chrono::seconds(180));
  });
}

// The PNG's bytes, once the browser `run` took it.
std::string screenshot(std::future<ProcessResult>& run, const fs::path& png) {
  ProcessResult r = run.get();
  INFO(r.output);
  REQUIRE_FALSE(r.timed_out);
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::exists(png));
  return fixtures::slurp(png);
}

}  // namespace

TEST_CASE("report.html renders in headless Chromium with its plots", "[report][.chromium]") {
  auto browser = find_executable("chromium", environment_path());
  if (!browser) FAIL("chromium is not installed (tools/setup.sh installs it)");
  if (!find_executable("gnuplot", environment_path()))
    FAIL("gnuplot is not installed (tools/setup.sh installs it): report.html would have no plots");
  TempDir dir;
  ReportResult with = write_report(fixtures::sample_input(), {Format::html}, dir.path / "plots");
  REQUIRE(with.plotted);
  ReportOptions no_gnuplot;
  no_gnuplot.search_path = "";
  write_report(fixtures::sample_input(), {Format::html}, dir.path / "tables", no_gnuplot);
  fs::create_directories(dir.path / "blank");
  { std::ofstream(dir.path / "blank" / "report.html") << "<!DOCTYPE html><html><body></body></html>\n"; }

  std::vector<std::future<ProcessResult>> runs;
  for (const char* name : {"plots", "tables", "blank"})
    runs.push_back(
        start_screenshot(*browser, dir.path / name / "report.html", dir.path / (name + std::string(".png"))));
  std::string plots = screenshot(runs[0], dir.path / "plots.png");
  std::string tables = screenshot(runs[1], dir.path / "tables.png");
  std::string blank = screenshot(runs[2], dir.path / "blank.png");

  CHECK(png_size(plots) == std::make_pair(1200u, 1600u));
  CHECK(png_size(blank) == std::make_pair(1200u, 1600u));
  // A white page compresses to almost nothing; text and plots do not.
  INFO("PNG bytes: blank " << blank.size() << ", tables only " << tables.size() << ", with plots "
                           << plots.size());
  CHECK(tables.size() > 5 * blank.size());
  CHECK(plots.size() > 5 * blank.size());

  std::vector<uint8_t> with_plots = png_rgb(plots), tables_only = png_rgb(tables);
  std::unordered_set<uint32_t> colours;
  for (size_t i = 0; i + 2 < with_plots.size(); i += 3)
    colours.insert(uint32_t(with_plots[i]) << 16 | uint32_t(with_plots[i + 1]) << 8 | with_plots[i + 2]);
  size_t blue = pixels_like(with_plots, 0x1f77b4), red = pixels_like(with_plots, 0xd62728);
  INFO("distinct colours " << colours.size() << ", series pixels: blue " << blue << ", red " << red);
  CHECK(colours.size() > 100);
  // The real (blue) and dummy (red) lines and points of the scaling plot.
  CHECK(blue > 500);
  CHECK(red > 500);
  CHECK(pixels_like(tables_only, 0x1f77b4) + pixels_like(tables_only, 0xd62728) < 50);
}
