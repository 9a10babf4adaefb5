#pragma once
/// The headless `fxray` command line (see shared/docs/CLI.md). Qt-free, so it runs on machines
/// without a display or Qt, and tests can call it in-process.
#include <iosfwd>
#include <string>
#include <vector>

namespace fxray::cli {

/// Exit statuses.
enum Exit { Ok = 0, CheckFailed = 1, BadInput = 2 };

/// True when `word` names a subcommand (otherwise fxray opens the GUI).
bool isSubcommand(const std::string& word);
/// Runs a subcommand; args[0] is the subcommand name. Output to out, messages to err.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Usage text.
std::string usage();

// Subcommands (one file each).
int cmdInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdPrint(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdBench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdCompile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdAutodiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdPartition(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdMinify(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdMinifyQuery(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdAotCompile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// fxray sweep DIR... --check C --out RESULTS | --report RESULTS [--compare OLD]
int cmdSweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdSweepServe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// fxray report TRACE --out DIR: the compile story as Markdown with the graphs it references
int cmdReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdDebugCompile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdOps(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace fxray::cli
