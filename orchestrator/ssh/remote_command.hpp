// argv -> the one command string an SSH server hands to the remote user's shell (`$SHELL -c`).
//
// Invariant: every word reaches the remote program literally, whatever it contains (spaces, quotes,
// `$(...)`, globs, newlines, a leading `~` or `-`, `NAME=value` as argv[0]); the remote shell only
// splits the string back into the same words. Assumes a POSIX shell on the remote side.
#pragma once

#include <string>
#include <vector>

namespace campaign::ssh {

// Each word single-quoted, `'` written as `'\''`, words joined by spaces. Throws TransportError for
// an empty argv or a word holding a NUL byte, which no remote program could receive.
std::string remote_command(const std::vector<std::string>& argv);

}  // namespace campaign::ssh
