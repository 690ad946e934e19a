#include "util/env.hpp"

#include <cstdlib>

namespace campaign {

std::optional<std::string> getenv_lookup(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

std::string expand_env(std::string_view text, const EnvLookup& lookup, std::string* missing) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      out += c;
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      out += text.substr(i);
      break;
    }
    std::string_view inner = text.substr(i + 2, close - i - 2);
    std::optional<std::string> fallback;
    if (auto dash = inner.find(":-"); dash != std::string_view::npos) {
      fallback = std::string(inner.substr(dash + 2));
      inner = inner.substr(0, dash);
    }
    auto value = lookup(std::string(inner));
    if (value && !value->empty())
      out += *value;
    else if (fallback)
      out += *fallback;
    else if (missing && !value) {
      if (!missing->empty()) *missing += ", ";
      *missing += std::string(inner);
    }
    i = close;
  }
  return out;
}

}  // namespace campaign
