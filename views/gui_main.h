#pragma once
/// Starts the desktop app (QApplication + main window). Called by main() when no subcommand
/// was given.
namespace fxray::views {
int guiMain(int argc, char** argv);
}
