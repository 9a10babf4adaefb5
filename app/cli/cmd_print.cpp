// fxray print FILE [--graph SEL] [--no-comments] [--strides on|off]: a graph in FX text form.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "ir/printer.h"

namespace fxray::cli {

int cmdPrint(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--strides", "--devices"}, {"--no-comments", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << "usage: fxray print FILE [--graph SEL] [--no-comments] [--strides on|off] [--devices on|off]\n";
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("print takes one FILE"));
    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    PrintOptions po;
    po.comments = !a->has("--no-comments");
    for (const char* opt : {"--strides", "--devices"}) {
        if (!a->has(opt)) continue;
        std::string v = a->get(opt);
        if (v != "on" && v != "off") return reportError(err, makeError(std::string(opt) + " takes on or off"));
        (std::string(opt) == "--strides" ? po.strides : po.devices) = v == "on";
    }
    out << printGraph(*(*lg)->graph, po);
    return Ok;
}

}  // namespace fxray::cli
