// Entry point: everything happens in cli::main, which maps errors to exit codes.
#include "cli/cli.hpp"

int main(int argc, char** argv) { return campaign::cli::main(argc, argv); }
