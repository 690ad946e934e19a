// Implements site/html.hpp.
#include "site/html.hpp"

namespace campaign::site {

namespace {

const char* kStyle = R"(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1b1f23;
       max-width: 1200px; margin: 1.5em auto; padding: 0 1em; line-height: 1.4; }
h1 { border-bottom: 2px solid #34495e; padding-bottom: .3em; }
h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; }
th { background: #f0f4f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f0f2f4; padding: 0 4px; border-radius: 3px; }
.grid { display: flex; flex-wrap: wrap; gap: 12px; }
.cell { border: 1px solid #e1e4e8; padding: 6px; }
.cell h3 { font-size: 14px; margin: 0 0 4px 0; }
.REGRESSION { color: #fff; background: #c0392b; padding: 0 4px; border-radius: 3px; }
.improved { color: #fff; background: #27ae60; padding: 0 4px; border-radius: 3px; }
.ok, .baseline { color: #555; }
.default { color: #555; border: 1px solid #999; padding: 0 4px; border-radius: 3px; font-weight: normal; }
.notice { border-left: 4px solid #e0a800; background: #fffbea; padding: .5em 1em; margin: 1em 0; }
.scroll { overflow-x: auto; }
nav { font-size: 14px; }
)";

}  // namespace

std::string page(const std::string& title, const std::string& root, const std::string& body) {
  std::string nav =
      root.empty() ? "" : "<nav><a href=\"" + esc(root) + "index.html\">All campaigns</a></nav>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         esc(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n" + nav + "<h1>" +
         esc(title) + "</h1>\n" + body + "</body>\n</html>\n";
}

}  // namespace campaign::site
