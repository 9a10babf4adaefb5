#include "cli/cli.h"

#include "registry/assemble.h"

#include <algorithm>
#include <ostream>

namespace fxray::cli {

namespace {
struct Command {
    const char* name;
    int (*fn)(const std::vector<std::string>&, std::ostream&, std::ostream&);
    const char* summary;
};
const Command kCommands[] = {
    {"info", cmdInfo, "graphs in FILE: id, stage, node count, op histogram"},
    {"print", cmdPrint, "a graph in FX text (print_readable) form"},
    {"run", cmdRun, "execute a graph on inputs and compare with expected outputs"},
    {"compile", cmdCompile, "run a pass pipeline; per-pass times, matches, near-misses, provenance"},
    {"autodiff", cmdAutodiff, "forward/inference graph -> joint forward+backward graph (AOT autograd)"},
    {"partition", cmdPartition, "split a joint graph into forward and backward (min-cut rematerialization)"},
    {"compare", cmdCompare, "run a graph on several backends (ref, ref64, cpu, cuda) and compare outputs and nodes"},
    {"minify", cmdMinify, "shrink a failing graph to a small one that fails the same way; PyTorch repro.py"},
    {"debug-compile", cmdDebugCompile, "save a graph and its inputs to a folder; print the commands to minify it"},
    {"aot-compile", cmdAotCompile, "compile a static-shape graph to a shared library in the persistent cache"},
    {"report", cmdReport, "a TORCH_TRACE's compiles, breaks, recompiles, failures as a Markdown report"},
    {"sweep", cmdSweep, "one check over every graph under folders, in child processes, sharded; --report"},
    {"ops", cmdOps, "the op table: per op, reference kernel, CPU and CUDA paths, VJP rule, partition class"},
    {"bench", cmdBench, "time a compiled graph (cpu or cuda) and where its time goes, step by step"},
};
// Internal subcommands: not listed in the usage text.
const Command kHidden[] = {
    {"__minify-query", cmdMinifyQuery, "the minifier's isolated query process"},
    {"__sweep-serve", cmdSweepServe, "a sweep's long-lived worker process (sweep/serve_worker.h)"},
};

}  // namespace

std::string usage() {
    std::string u = "usage: fxray [FILE]                 open the GUI (optionally with FILE)\n"
                    "       fxray COMMAND [options]     run headless\n\ncommands:\n";
    for (const auto& c : kCommands)
        u += "  " + std::string(c.name) + std::string(std::max<size_t>(1, 14 - std::string(c.name).size()), ' ') +
             c.summary + "\n";
    u += "\nrun 'fxray COMMAND --help' for its options; exit status 0 ok, 1 check failed, 2 bad input\n";
    return u;
}

bool isSubcommand(const std::string& word) {
    if (word == "help" || word == "--help" || word == "-h" || word == "--version") return true;
    for (const auto& c : kCommands)
        if (word == c.name) return true;
    for (const auto& c : kHidden)
        if (word == c.name) return true;
    return false;
}

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    // main() has assembled the registry; callers in-process (tests, tools) need not have.
    initOpRegistry();
    if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
        out << usage();
        return Ok;
    }
    if (args[0] == "--version") {
        out << "fxray " << FXRAY_VERSION << "\n";
        return Ok;
    }
    for (const auto& c : kCommands)
        if (args[0] == c.name) return c.fn(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    for (const auto& c : kHidden)
        if (args[0] == c.name) return c.fn(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    err << "fxray: unknown command '" << args[0] << "'\n" << usage();
    return BadInput;
}

}  // namespace fxray::cli
