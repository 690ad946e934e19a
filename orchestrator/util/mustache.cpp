#include "util/mustache.hpp"

#include <mutex>
#include <set>
#include <unordered_map>

#include "util/strings.hpp"

namespace campaign {

namespace {
// Records every lookup that finds nothing; kainjow would render it as "".
class StrictContext : public kainjow::mustache::context<std::string> {
 public:
  explicit StrictContext(const MustacheData* data) : context(data) {}
  const MustacheData* get(const std::string& name) const override {
    const MustacheData* d = context::get(name);
    if (!d) missing.insert(name);
    return d;
  }
  mutable std::set<std::string> missing;
};
}  // namespace

MustacheData scalar_data(const std::string& text) {
  if (text.empty() || text == "false") return MustacheData(MustacheData::type::bool_false);
  return MustacheData(text);
}

std::string shell_escape_value(const std::string& value) {
  return value.empty() ? value : shell_quote(value);
}

// The Mustache spec's "standalone tag" rule: a line holding nothing but a
// section, inverted-section, closing or comment tag disappears entirely.
// kainjow applies it only to sections that render, so such lines are marked
// with a sentinel here and removed from the output by drop_marked_lines().
namespace {
constexpr char kSentinel = '\x01';
}

std::string strip_standalone_lines(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == std::string::npos ? text.size() : eol + 1;
    std::string_view line(text.data() + pos, end - pos);
    std::string t = trim(line);
    bool standalone = t.size() >= 5 && t.compare(0, 2, "{{") == 0 &&
                      std::string("#^/!").find(t[2]) != std::string::npos && t.find("}}") == t.size() - 2 &&
                      eol != std::string::npos;
    if (standalone)
      out += t + kSentinel + '\n';
    else
      out += line;
    pos = end;
  }
  return out;
}

namespace {
std::string drop_marked_lines(const std::string& text) {
  if (text.find(kSentinel) == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == std::string::npos ? text.size() : eol + 1;
    std::string_view line(text.data() + pos, end - pos);
    if (line != std::string_view("\x01\n") && line != std::string_view("\x01"))
      for (char c : line)
        if (c != kSentinel) out += c;
    pos = end;
  }
  return out;
}
}  // namespace

namespace {
// Where `name` first appears as a tag in a template file, so an undefined name
// is reported at file:line:col like every other input error.
Location tag_location(const std::string& text, const std::string& name, Location where) {
  if (where.line > 0) return where;  // a one-line template inside a YAML file
  size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string::npos) {
    size_t close = text.find("}}", pos);
    if (close == std::string::npos) break;
    std::string tag = trim(std::string_view(text).substr(pos + 2, close - pos - 2));
    while (!tag.empty() && std::string("{#^/&>").find(tag[0]) != std::string::npos) tag = trim(tag.substr(1));
    if (tag == name) {
      int line = 1, col = 1;
      for (size_t i = 0; i < pos; ++i) {
        if (text[i] == '\n')
          ++line, col = 1;
        else
          ++col;
      }
      return Location{where.file, line, col};
    }
    pos = close + 2;
  }
  return where;
}
}  // namespace

namespace {
// A template's parse, by its text: a run renders the same few templates over and over (each engine,
// each `status --refresh`, each schedule of the simulator builds a Renderer), and copying a parse costs
// a fraction of parsing it. Bounded, in case a process makes templates of ever new texts.
std::unique_ptr<kainjow::mustache::mustache> parse(const std::string& text) {
  static std::mutex mutex;
  static std::unordered_map<std::string, kainjow::mustache::mustache> parsed;
  constexpr size_t kMaxParsed = 256;
  std::lock_guard lock(mutex);
  if (auto it = parsed.find(text); it != parsed.end())
    return std::make_unique<kainjow::mustache::mustache>(it->second);
  auto tmpl = std::make_unique<kainjow::mustache::mustache>(strip_standalone_lines(text));
  if (tmpl->is_valid() && parsed.size() < kMaxParsed) parsed.emplace(text, *tmpl);
  return tmpl;
}
}  // namespace

Mustache::Mustache(const std::string& text, Location where, std::string key)
    : text_(text), tmpl_(parse(text)), where_(std::move(where)), key_(std::move(key)) {
  if (!tmpl_->is_valid()) throw InputError(where_, key_, "bad template: " + tmpl_->error_message());
}

Mustache::~Mustache() = default;

std::string Mustache::render(const MustacheData& data, bool shell_escape) const {
  if (shell_escape)
    tmpl_->set_custom_escape(shell_escape_value);
  else
    tmpl_->set_custom_escape([](const std::string& s) { return s; });
  StrictContext ctx(&data);
  std::string out = drop_marked_lines(tmpl_->render(ctx));
  if (!ctx.missing.empty()) {
    std::vector<std::string> names(ctx.missing.begin(), ctx.missing.end());
    throw InputError(tag_location(text_, names.front(), where_), key_,
                     "template uses '" + join(names, "', '") + "' but nothing defines it");
  }
  if (!tmpl_->is_valid()) throw InputError(where_, key_, "cannot render template: " + tmpl_->error_message());
  return out;
}

}  // namespace campaign
