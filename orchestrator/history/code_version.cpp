// Implements history/code_version.hpp: two git commands per location tried.
#include "history/code_version.hpp"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>

#include "transport/local_shell.hpp"
#include "util/env.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::history {

namespace {

// $NAME (the form shell users write in `code_dir: $HOME/src`) after ${NAME}.
std::string expand_all(const std::string& text) {
  std::string s = expand_env(text);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size() ||
        !(std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '_')) {
      out += s[i];
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    const char* v = std::getenv(s.substr(i + 1, j - i - 1).c_str());
    out += v ? v : "";
    i = j - 1;
  }
  return out;
}

constexpr std::chrono::seconds kGitTimeout{20};

}  // namespace

std::string CodeVersion::display() const {
  if (!label.empty()) return label;
  if (commit.empty()) return "";
  return commit.substr(0, 10) + (dirty ? "-dirty" : "");
}

CodeRecord CodeVersion::record() const { return {display(), commit, date, dirty}; }

std::vector<fs::path> code_locations(const matrix::Plan& plan) {
  std::vector<fs::path> out;
  auto add = [&](const std::string& text) {
    std::string expanded = trim(expand_all(text));
    if (expanded.empty()) return;
    fs::path p(expanded);
    if (p.is_relative()) p = plan.campaign.dir / p;
    out.push_back(p.lexically_normal());
  };
  if (plan.campaign.code_dir) add(*plan.campaign.code_dir);
  for (const auto& c : plan.cases) {
    const std::string& dir = plan.param(c, "code_dir");
    if (dir.empty()) continue;
    // A parameter's value is used as written; render it the way a command
    // using {{{code_dir}}} would see it if it holds tags itself.
    try {
      add(matrix::TextTemplate(dir, *plan.step_of(c).schema, {}, "params.code_dir")
              .render(c.values, matrix::Escape::none));
    } catch (const Error& e) {
      spdlog::debug("code version: code_dir '{}': {}", dir, e.what());
    }
    break;
  }
  out.push_back(fs::absolute(plan.campaign.dir).lexically_normal());
  return out;
}

std::optional<CodeVersion> git_version(transport::Shell& shell, const fs::path& dir, const std::string& rev) {
  transport::CommandResult head;
  try {
    head = shell.run({"git", "-C", dir.string(), "show", "-s", "--format=%H%n%ct%n", rev + "^{commit}", "--"},
                     kGitTimeout);
  } catch (const transport::TransportError& e) {
    spdlog::debug("code version: git in {}: {}", dir.string(), e.what());
    return std::nullopt;
  }
  if (!head.ok()) {
    spdlog::debug("code version: {} is not a git work tree here ({})", dir.string(), trim(head.err));
    return std::nullopt;
  }
  auto lines = split(head.out, '\n');
  if (lines.size() < 2 || trim(lines[0]).size() < 7) return std::nullopt;
  CodeVersion v;
  v.commit = trim(lines[0]);
  try {
    v.date = Time(std::chrono::seconds(std::stoll(trim(lines[1]))));
  } catch (const std::exception&) {
  }
  try {
    auto top = shell.run({"git", "-C", dir.string(), "rev-parse", "--show-toplevel"}, kGitTimeout);
    v.repo = top.ok() ? trim(top.out) : dir.string();
    if (rev == "HEAD") {
      auto st = shell.run({"git", "-C", dir.string(), "status", "--porcelain", "--untracked-files=no"},
                          kGitTimeout);
      v.dirty = st.ok() && !trim(st.out).empty();
    }
  } catch (const transport::TransportError&) {
  }
  return v;
}

CodeVersion detect_code_version(const matrix::Plan& plan, const std::string& label,
                                transport::Shell& code_shell, const std::string& rev) {
  auto where = code_locations(plan);
  transport::LocalShell local;
  for (size_t i = 0; i < where.size(); ++i) {
    bool campaign_dir = i + 1 == where.size();
    auto v = git_version(campaign_dir ? static_cast<transport::Shell&>(local) : code_shell, where[i], rev);
    if (!v) continue;
    v->label = label;
    spdlog::info("code version: commit {}{} of {} ({})", v->commit, v->dirty ? " with local changes" : "",
                 v->repo, campaign_dir ? "the campaign file's repository" : "code_dir");
    return *v;
  }
  std::vector<std::string> tried;
  for (auto& p : where) tried.push_back(p.string());
  if (rev != "HEAD")
    throw Error("no git work tree at " + join(tried, ", ") + " knows the commit '" + rev + "'");
  spdlog::info("code version: no git work tree at {}; recording {}", join(tried, ", "),
               label.empty() ? "no version" : "the label '" + label + "'");
  CodeVersion v;
  v.label = label;
  return v;
}

}  // namespace campaign::history
