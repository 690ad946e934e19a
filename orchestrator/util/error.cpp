#include "util/error.hpp"

namespace campaign {

std::string Location::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ':' + std::to_string(line);
    if (column > 0) s += ':' + std::to_string(column);
  }
  return s;
}

static std::string format(const Location& where, const std::string& key, const std::string& message) {
  std::string s = where.str() + ": ";
  if (!key.empty()) s += key + ": ";
  return s + message;
}

InputError::InputError(Location where, std::string key, std::string message)
    : Error(format(where, key, message)),
      where_(std::move(where)),
      key_(std::move(key)),
      message_(std::move(message)) {}

}  // namespace campaign
