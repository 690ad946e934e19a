// Error types shared by every module.
//
// Two kinds matter to callers and to the exit status of `campaign`:
//   InputError  - the user's files are wrong (campaign, system, template,
//                 collector). Carries file:line:col and the offending key;
//                 the CLI prints it on one line and exits with status 2.
//   Error       - anything else that stops a command (I/O, scheduler, ...);
//                 exit status 1.
#pragma once

#include <stdexcept>
#include <string>

namespace campaign {

// A position in a user's file; line and column are 1-based, 0 when unknown.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:col", "file:line", or "file" depending on what is known.
  std::string str() const;
};

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public Error {
 public:
  // `key` is the dotted path of the offending key (e.g. "matrix.ranks"), may be empty.
  InputError(Location where, std::string key, std::string message);

  const Location& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  Location where_;
  std::string key_;
  std::string message_;
};

}  // namespace campaign
