#include "util/mustache.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
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
// Where `name` first appears as a tag in `text`, as a line and column; nullopt when it does not.
std::optional<std::pair<int, int>> tag_position(const std::string& text, const std::string& name) {
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
      return std::pair{line, col};
    }
    pos = close + 2;
  }
  return std::nullopt;
}

// Where `name` first appears as a tag in a template file or one of its partials, so an undefined
// name is reported at file:line:col like every other input error.
Location tag_location(const std::string& text, const std::vector<MustachePartial>& partials,
                      const std::string& name, Location where) {
  if (where.line > 0) return where;  // a one-line template inside a YAML file
  if (auto at = tag_position(text, name)) return Location{where.file, at->first, at->second};
  for (const MustachePartial& p : partials)
    if (auto at = tag_position(p.text, name)) return Location{p.where.file, at->first, at->second};
  return where;
}

// The `{{> name}}` tags of `text`: each tag's start and end, and the name.
struct PartialTag {
  size_t begin = 0, end = 0;
  std::string name;
};
std::vector<PartialTag> partial_tags(const std::string& text) {
  std::vector<PartialTag> tags;
  size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string::npos) {
    size_t close = text.find("}}", pos);
    if (close == std::string::npos) break;
    std::string tag = trim(std::string_view(text).substr(pos + 2, close - pos - 2));
    if (!tag.empty() && tag[0] == '>') tags.push_back({pos, close + 2, trim(tag.substr(1))});
    pos = close + 2;
  }
  return tags;
}

// `text` with every partial written in: a tag alone on its line replaces the line, any other the
// tag. Partials may include partials, not themselves.
std::string expand_partials(const std::string& text, const Location& where, const std::string& key,
                            const std::vector<MustachePartial>& partials, int depth = 0) {
  std::vector<PartialTag> tags = partial_tags(text);
  if (tags.empty()) return text;
  std::string out;
  size_t done = 0;
  for (const PartialTag& t : tags) {
    auto p = std::find_if(partials.begin(), partials.end(), [&](auto& q) { return q.name == t.name; });
    if (p == partials.end() || depth > 8) {
      auto at = tag_position(text, t.name);
      throw InputError(
          at ? Location{where.file, at->first, at->second} : where, key,
          depth > 8 ? "partial '" + t.name + "' includes itself" : "no partial '" + t.name + "'");
    }
    std::string body = expand_partials(p->text, p->where, key, partials, depth + 1);
    size_t begin = t.begin, end = t.end;
    const size_t newline_before = begin == 0 ? std::string::npos : text.rfind('\n', begin - 1);
    const size_t line_start = newline_before == std::string::npos ? 0 : newline_before + 1;
    const size_t line_end = text.find('\n', end);
    const bool alone = line_end != std::string::npos &&
                       trim(std::string_view(text).substr(line_start, begin - line_start)).empty() &&
                       trim(std::string_view(text).substr(end, line_end - end)).empty();
    if (alone) {
      begin = line_start, end = line_end + 1;
      if (!body.empty() && body.back() != '\n') body += '\n';
    }
    out.append(text, done, begin - done);
    out += body;
    done = end;
  }
  out.append(text, done, std::string::npos);
  return out;
}
}  // namespace

std::vector<std::string> partial_names(const std::string& text) {
  std::vector<std::string> names;
  for (const auto& t : partial_tags(text))
    if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  return names;
}

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

Mustache::Mustache(const std::string& text, Location where, std::string key,
                   std::vector<MustachePartial> partials)
    : text_(text),
      partials_(std::move(partials)),
      tmpl_(parse(expand_partials(text, where, key, partials_))),
      where_(std::move(where)),
      key_(std::move(key)) {
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
    throw InputError(tag_location(text_, partials_, names.front(), where_), key_,
                     "template uses '" + join(names, "', '") + "' but nothing defines it");
  }
  if (!tmpl_->is_valid()) throw InputError(where_, key_, "cannot render template: " + tmpl_->error_message());
  return out;
}

}  // namespace campaign
