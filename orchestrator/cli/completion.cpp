// `campaign completion bash`: a bash completion script written from the command line's own
// definition (every visible command and its options), so it cannot fall behind a new option.
// Commands and options complete by name; -s/--system by the profiles `campaign systems` finds; the
// rest (campaign files, work directories) as file names. zsh reads it after `bashcompinit`.
#include <iostream>
#include <set>

#include "cli/cli.hpp"
#include "util/strings.hpp"

namespace campaign::cli {

namespace {

std::vector<std::string> option_names(const CLI::App& app) {
  std::set<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) continue;
    for (auto& n : o->get_lnames()) names.insert("--" + n);
    for (auto& n : o->get_snames()) names.insert("-" + n);
  }
  return {names.begin(), names.end()};
}

std::string bash_script(CLI::App& app) {
  std::vector<std::string> commands;
  std::string cases;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // internal commands, hidden from --help too
    commands.push_back(sub->get_name());
    cases += "    " + sub->get_name() + ") opts=\"" + join(option_names(*sub), " ") + "\" ;;\n";
  }
  return "# bash completion for campaign (written by `campaign completion bash`; zsh: run\n"
         "# `autoload -U bashcompinit && bashcompinit` first).\n"
         "_campaign() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
         "  if ((COMP_CWORD == 1)); then\n"
         "    COMPREPLY=($(compgen -W \"" +
         join(commands, " ") + " " + join(option_names(app), " ") +
         "\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  case $prev in\n"
         "    -s | --system)\n"
         "      COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" systems 2>/dev/null | awk 'NR > 1 && /^  / "
         "{ print $1 }')\" -- \"$cur\"))\n"
         "      return ;;\n"
         "  esac\n"
         "  case ${COMP_WORDS[1]} in\n" +
         cases +
         "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o default -F _campaign campaign\n";
}

}  // namespace

void add_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>("bash");
  auto* cmd = app.add_subcommand("completion",
                                 "Print the shell completion script (bash; zsh after bashcompinit): "
                                 "`source <(campaign completion bash)`, or save it as "
                                 "~/.local/share/bash-completion/completions/campaign");
  cmd->add_option("SHELL", *shell, "bash")->check(CLI::IsMember({"bash"}))->capture_default_str();
  cmd->callback([&app] { std::cout << bash_script(app); });
}

}  // namespace campaign::cli
