// What every page of the site shares: escaping and the page frame.
//
// Invariant: text from runs, campaigns and metrics reaches a page only
// through esc(); links are relative (`root` climbs to the site's top), so the
// site opens from a file system or any plain web server.
#pragma once

#include <string>
#include <string_view>

#include "util/strings.hpp"

namespace campaign::site {

// Text and attribute values: & < > " ' escaped.
inline std::string esc(std::string_view s) { return html_escape(s); }

// A whole page: doctype, charset, inline style, `title` as <title> and <h1>,
// and below the index (`root` not empty: "../../" two levels down) a link back to it.
std::string page(const std::string& title, const std::string& root, const std::string& body);

}  // namespace campaign::site
