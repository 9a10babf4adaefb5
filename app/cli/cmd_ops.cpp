// fxray ops [--json] [--filter SUBSTR]: the op table's coverage matrix, one row per registered
// op: does it have a reference kernel, how the CPU and CUDA backends run it, its VJP rule and its
// partitioner class. Users see what runs before they try.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "registry/coverage.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>

namespace fxray::cli {

namespace {

/// Counts of each value of the per-backend columns, plus the number of ops with a kernel.
struct Totals {
    size_t ops = 0, ref = 0, partition = 0;
    std::map<std::string, size_t> cpu, cuda, vjp;
};

Totals totalsOf(const std::vector<OpCoverage>& rows) {
    Totals t;
    for (const auto& r : rows) {
        ++t.ops;
        t.ref += r.ref ? 1 : 0;
        t.partition += r.partition.empty() ? 0 : 1;
        ++t.cpu[r.cpu];
        ++t.cuda[r.cuda];
        ++t.vjp[r.vjp];
    }
    return t;
}

std::string joinCounts(const std::map<std::string, size_t>& m) {
    std::string s;
    for (const auto& [k, n] : m) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    return s.empty() ? "0" : s;
}

void printText(const std::vector<OpCoverage>& rows, const Totals& t, std::ostream& out) {
    const std::vector<std::string> head = {"op", "category", "ref", "cpu", "cuda", "vjp", "partition"};
    std::vector<std::vector<std::string>> cells;
    for (const auto& r : rows)
        cells.push_back({r.qualname, r.category, r.ref ? "yes" : "no", r.cpu, r.cuda, r.vjp,
                         r.partition.empty() ? "-" : r.partition});
    std::vector<size_t> width(head.size());
    for (size_t c = 0; c < head.size(); ++c) {
        width[c] = head[c].size();
        for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
    }
    auto line = [&](const std::vector<std::string>& row) {
        std::string s;
        for (size_t c = 0; c < row.size(); ++c) {
            s += row[c];
            if (c + 1 < row.size()) s += std::string(width[c] - row[c].size() + 2, ' ');
        }
        out << s << "\n";
    };
    line(head);
    for (const auto& row : cells) line(row);
    out << "\n"
        << t.ops << " ops: ref " << t.ref << "; cpu " << joinCounts(t.cpu) << "; cuda " << joinCounts(t.cuda)
        << "; vjp " << joinCounts(t.vjp) << "; partition class " << t.partition << "\n";
}

nlohmann::json toJson(const std::vector<OpCoverage>& rows, const Totals& t) {
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& r : rows)
        ops.push_back({{"op", r.qualname},
                       {"category", r.category},
                       {"ref", r.ref},
                       {"cpu", r.cpu},
                       {"cuda", r.cuda},
                       {"vjp", r.vjp},
                       {"partition", r.partition.empty() ? nlohmann::json() : nlohmann::json(r.partition)}});
    nlohmann::json totals = {{"ops", t.ops},   {"ref", t.ref}, {"cpu", t.cpu},
                             {"cuda", t.cuda}, {"vjp", t.vjp}, {"partition", t.partition}};
    return {{"ops", ops}, {"totals", totals}};
}

}  // namespace

int cmdOps(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--filter"}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << "usage: fxray ops [--json] [--filter SUBSTR]\n"
               "  one row per registered op: ref (a reference kernel), cpu (lowered / extern / reference\n"
               "  fallback), cuda (lowered / extern device kernel / host fallback), vjp (rule / non-diff /\n"
               "  none), partition (PyTorch's partitioner class of its packet); complex-only ops are\n"
               "  \"rewritten\" on cpu and cuda (complex graphs run as real ones)\n";
        return Ok;
    }
    if (!a->positional.empty()) return reportError(err, makeError("ops takes no FILE"));
    const std::string filter = a->get("--filter");
    std::vector<OpCoverage> rows;
    for (auto& r : opCoverage(OpRegistry::instance()))
        if (filter.empty() || r.qualname.find(filter) != std::string::npos) rows.push_back(std::move(r));
    const Totals t = totalsOf(rows);
    if (a->has("--json"))
        out << toJson(rows, t).dump(1) << "\n";
    else
        printText(rows, t, out);
    return Ok;
}

}  // namespace fxray::cli
