// Mustache rendering (kainjow-mustache) that treats a name nothing defines as
// an error instead of an empty string, and escapes `{{x}}` for a POSIX shell
// (or not at all) instead of for HTML. `{{{x}}}` is always inserted raw.
#pragma once

#include <kainjow/mustache.hpp>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign {

using MustacheData = kainjow::mustache::data;

// Shell escaping for template values: empty stays empty (an absent optional
// flag), anything else becomes one literal word.
std::string shell_escape_value(const std::string& value);

// A parameter value for a template: empty and `false` are false in sections
// ({{#rank_gpu}}...{{/rank_gpu}}) and render as nothing; anything else is text.
MustacheData scalar_data(const std::string& text);

std::string strip_standalone_lines(const std::string& text);

// A partial: text that a template includes with `{{> name}}`, as if written there (a tag alone on
// its line stands for that line). Found by the caller (render/: templates/partials/NAME.sh.mustache).
struct MustachePartial {
  std::string name;
  std::string text;
  Location where;  // its file, for errors at file:line:col
};

// The partials `text` includes, in order of first use.
std::vector<std::string> partial_names(const std::string& text);

class Mustache {
 public:
  // Syntax errors are InputErrors at `where`/`key`. `partials` holds every partial the text (or a
  // partial) includes; one it lacks is an InputError at its tag.
  Mustache(const std::string& text, Location where, std::string key,
           std::vector<MustachePartial> partials = {});
  ~Mustache();
  // Renders; a name used but undefined in `data` is an InputError naming it.
  std::string render(const MustacheData& data, bool shell_escape) const;

 private:
  std::string text_;  // as written, partials not expanded: for the places of errors
  std::vector<MustachePartial> partials_;
  std::unique_ptr<kainjow::mustache::mustache> tmpl_;
  Location where_;
  std::string key_;
};

}  // namespace campaign
