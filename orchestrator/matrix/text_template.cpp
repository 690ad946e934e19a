#include "matrix/text_template.hpp"

#include "util/mustache.hpp"
#include "util/strings.hpp"

namespace campaign::matrix {

int Schema::find(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

size_t Schema::add(const std::string& name) {
  int i = find(name);
  if (i >= 0) return static_cast<size_t>(i);
  names.push_back(name);
  return names.size() - 1;
}

TextTemplate::TextTemplate(const std::string& text, const Schema& schema, Location where, std::string key)
    : text_(text), schema_(&schema), where_(std::move(where)), key_(std::move(key)) {
  size_t pos = 0;
  std::string literal;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      literal += text.substr(pos);
      break;
    }
    literal += text.substr(pos, open - pos);
    bool triple = text.compare(open, 3, "{{{") == 0;
    size_t close = text.find(triple ? "}}}" : "}}", open);
    if (close == std::string::npos)
      throw InputError(where_, key_, "unclosed '{{' in template '" + text + "'");
    std::string tag = trim(text.substr(open + (triple ? 3 : 2), close - open - (triple ? 3 : 2)));
    bool raw = triple;
    if (!tag.empty() && tag[0] == '&') raw = true, tag = trim(tag.substr(1));
    if (tag.empty() || std::string("#^/>!=").find(tag[0]) != std::string::npos) {
      full_ = true;  // sections, partials, comments: the full engine renders it
      engine_ = std::make_shared<Mustache>(text, where_, key_);
      return;
    }
    int slot = schema.find(tag);
    if (slot < 0)
      throw InputError(
          where_, key_,
          "template uses '" + tag + "' but nothing defines it" + did_you_mean(tag, schema.names));
    pieces_.push_back({literal, -1, false});
    literal.clear();
    pieces_.push_back({"", slot, raw});
    pos = close + (triple ? 3 : 2);
  }
  if (!literal.empty()) pieces_.push_back({literal, -1, false});
}

std::string TextTemplate::render(const std::vector<spec::Value>& values, Escape escape) const {
  if (full_) {
    MustacheData data;
    for (size_t i = 0; i < schema_->names.size() && i < values.size(); ++i)
      data.set(schema_->names[i], scalar_data(values[i].text));
    return engine_->render(data, escape == Escape::shell);
  }
  std::string out;
  for (auto& p : pieces_) {
    if (p.slot < 0) {
      out += p.literal;
    } else {
      const std::string& v = values[static_cast<size_t>(p.slot)].text;
      out += (escape == Escape::shell && !p.raw) ? shell_escape_value(v) : v;
    }
  }
  return out;
}

}  // namespace campaign::matrix
