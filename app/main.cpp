// Composition root: a subcommand runs headless (no Qt objects are created); otherwise the GUI
// opens, with FILE when given.
#include "cli/cli.h"
#include "registry/assemble.h"

#include <iostream>
#include <string>
#include <vector>

#ifdef FXRAY_WITH_GUI
#include "gui_main.h"
#endif

int main(int argc, char** argv) {
    // The op registry and the backend table first: every layer reads them, from the first file
    // loaded on.
    fxray::initOpRegistry();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && fxray::cli::isSubcommand(args[0])) return fxray::cli::runCli(args, std::cout, std::cerr);
#ifdef FXRAY_WITH_GUI
    return fxray::views::guiMain(argc, argv);
#else
    std::cerr << "fxray: this build has no GUI; use a subcommand\n" << fxray::cli::usage();
    return 2;
#endif
}
