// Result files (one JSON per graph, written atomically) and the report over a results folder.
#include "sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fxray::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kStatuses[] = {"ok", "differ", "unsupported", "error", "crash", "timeout"};

bool failing(const std::string& status) { return status != "ok"; }

double num(const json& j, const char* key, double def = 0.0) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : def;
}

/// Time a graph's check took: the child's own measurement when it gave one, else wall time.
double timeOf(const json& r) { return num(r, "seconds"); }

}  // namespace

fs::path resultPath(const fs::path& resultsDir, const std::string& id) {
    std::string name;
    for (char c : id) {
        if (c == '/')
            name += "%2F";
        else if (c == '%')
            name += "%25";
        else
            name += c;
    }
    return resultsDir / (name + ".json");
}

Status writeResult(const fs::path& resultsDir, const json& result) {
    std::error_code ec;
    fs::create_directories(resultsDir, ec);
    const fs::path final = resultPath(resultsDir, result.value("id", "unnamed"));
    // A unique temporary name per process and call: shards share the folder.
    static std::atomic<uint64_t> counter{0};
    const fs::path tmp = resultsDir / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            Diagnostic d = makeError("cannot write a result");
            d.file = tmp.string();
            return d;
        }
        out << result.dump(1) << "\n";
        if (!out.flush()) {
            Diagnostic d = makeError("cannot write a result (disk full?)");
            d.file = tmp.string();
            return d;
        }
    }
    fs::rename(tmp, final, ec);
    if (ec) {
        fs::remove(tmp, ec);
        Diagnostic d = makeError("cannot move a result into place: " + ec.message());
        d.file = final.string();
        return d;
    }
    return Status::success();
}

std::vector<json> readResults(const fs::path& resultsDir, std::vector<std::string>* bad) {
    std::vector<json> out;
    std::error_code ec;
    std::vector<fs::path> files;
    for (auto it = fs::directory_iterator(resultsDir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".json" && it->path().filename().string()[0] != '.') files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f);
        json j = json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j.contains("status")) {
            if (bad) bad->push_back(f.string());
            continue;
        }
        out.push_back(std::move(j));
    }
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["id"] < b["id"]; });
    return out;
}

bool hasResult(const fs::path& resultsDir, const std::string& id) {
    std::ifstream in(resultPath(resultsDir, id));
    if (!in) return false;
    json j = json::parse(in, nullptr, false);
    return !j.is_discarded() && j.is_object() && j.contains("status");
}

std::string statusOf(const json& result) { return result.value("status", "error"); }

json report(const std::vector<json>& results, const std::vector<json>* old) {
    json r;
    json counts = {{"graphs", results.size()}};
    for (const char* s : kStatuses)
        counts[std::string(s) == "error"     ? "errors"
               : std::string(s) == "crash"   ? "crashes"
               : std::string(s) == "timeout" ? "timeouts"
                                             : s] = 0;
    json byStatus = json::object();
    for (const auto& res : results) {
        const std::string s = statusOf(res);
        const std::string key = s == "error" ? "errors" : s == "crash" ? "crashes" : s == "timeout" ? "timeouts" : s;
        counts[key] = counts.value(key, 0) + 1;
    }
    // A compiled backend's ok that ran ops on the reference or the host says so in "fallbacks";
    // the rate without them is what the op-coverage targets count.
    json fallbackOps = json::object();
    int okWithFallbacks = 0;
    for (const auto& res : results) {
        if (statusOf(res) != "ok" || !res.contains("fallbacks") || !res["fallbacks"].is_object() ||
            res["fallbacks"].empty())
            continue;
        ++okWithFallbacks;
        for (const auto& [op, n] : res["fallbacks"].items()) fallbackOps[op] = fallbackOps.value(op, 0) + 1;
    }
    counts["ok_with_fallbacks"] = okWithFallbacks;
    r["counts"] = counts;
    r["fallback_ops"] = fallbackOps;
    // The worst: the largest error among graphs whose numbers differ; then the slowest.
    std::vector<const json*> differ, all;
    for (const auto& res : results) {
        all.push_back(&res);
        if (statusOf(res) == "differ") differ.push_back(&res);
    }
    std::sort(differ.begin(), differ.end(),
              [](const json* a, const json* b) { return num(*a, "max_rel_err") > num(*b, "max_rel_err"); });
    std::sort(all.begin(), all.end(), [](const json* a, const json* b) { return timeOf(*a) > timeOf(*b); });
    r["worst"] = json::array();
    for (size_t i = 0; i < differ.size() && i < 10; ++i)
        r["worst"].push_back({{"id", (*differ[i])["id"]},
                              {"max_rel_err", num(*differ[i], "max_rel_err")},
                              {"message", differ[i]->value("message", "")}});
    r["slowest"] = json::array();
    for (size_t i = 0; i < all.size() && i < 10; ++i)
        r["slowest"].push_back({{"id", (*all[i])["id"]}, {"seconds", timeOf(*all[i])}});
    r["failures"] = json::array();
    for (const auto& res : results)
        if (failing(statusOf(res)))
            r["failures"].push_back(
                {{"id", res["id"]}, {"status", statusOf(res)}, {"message", res.value("message", "")}});
    // Which GPU each worker used (a sweep with --gpus).
    json workers = json::object();
    for (const auto& res : results)
        if (res.contains("worker")) workers[std::to_string(res.value("worker", 0))] = res.value("gpu", "");
    r["workers"] = workers;
    if (old) {
        std::map<std::string, const json*> before;
        for (const auto& o : *old) before[o.value("id", "")] = &o;
        json newlyFailing = json::array(), newlyPassing = json::array(), slower = json::array(), added = json::array(),
             removed = json::array();
        std::set<std::string> seen;
        for (const auto& res : results) {
            const std::string id = res.value("id", "");
            seen.insert(id);
            auto it = before.find(id);
            if (it == before.end()) {
                added.push_back(id);
                continue;
            }
            const std::string was = statusOf(*it->second), now = statusOf(res);
            if (!failing(was) && failing(now))
                newlyFailing.push_back({{"id", id}, {"was", was}, {"now", now}, {"message", res.value("message", "")}});
            else if (failing(was) && !failing(now))
                newlyPassing.push_back({{"id", id}, {"was", was}});
            // Slower beyond noise: half as slow again and at least 50 ms more (process start-up
            // and small graphs jitter by tens of milliseconds).
            const double t0 = timeOf(*it->second), t1 = timeOf(res);
            if (t1 > 1.5 * t0 && t1 - t0 > 0.05)
                slower.push_back({{"id", id}, {"seconds_before", t0}, {"seconds", t1}});
        }
        for (const auto& [id, o] : before)
            if (!seen.count(id)) removed.push_back(id);
        r["compare"] = {{"newly_failing", newlyFailing},
                        {"newly_passing", newlyPassing},
                        {"slower", slower},
                        {"added", added},
                        {"removed", removed}};
    }
    return r;
}

std::string reportText(const json& r) {
    std::ostringstream s;
    const json& c = r["counts"];
    s << "graphs " << c.value("graphs", 0) << ": ok " << c.value("ok", 0) << ", differ " << c.value("differ", 0)
      << ", unsupported " << c.value("unsupported", 0) << ", errors " << c.value("errors", 0) << ", crashes "
      << c.value("crashes", 0) << ", timeouts " << c.value("timeouts", 0) << "\n";
    const double n = std::max(1.0, c.value("graphs", 0) * 1.0);
    s << std::fixed << std::setprecision(1) << "pass rate " << 100.0 * c.value("ok", 0) / n << "%\n";
    if (const int fb = c.value("ok_with_fallbacks", 0); fb > 0) {
        // Graphs per fallback op, most first: what to lower or give a device kernel next.
        std::vector<std::pair<int, std::string>> ops;
        static const json kNone = json::object();
        const json& fallbackOps = r.contains("fallback_ops") ? r["fallback_ops"] : kNone;
        for (const auto& [op, k] : fallbackOps.items()) ops.emplace_back(-k.get<int>(), op);
        std::sort(ops.begin(), ops.end());
        s << "ok without fallbacks " << c.value("ok", 0) - fb << " (" << 100.0 * (c.value("ok", 0) - fb) / n << "%); "
          << fb << " ok with fallbacks:";
        for (size_t i = 0; i < ops.size() && i < 8; ++i) s << (i ? ", " : " ") << ops[i].second << " " << -ops[i].first;
        s << (ops.size() > 8 ? ", ..." : "") << "\n";
    }
    if (!r["worst"].empty()) {
        s << "\nworst (largest error):\n";
        for (const auto& w : r["worst"])
            s << "  " << std::scientific << std::setprecision(2) << w.value("max_rel_err", 0.0) << "  "
              << w["id"].get<std::string>() << "\n";
    }
    if (!r["slowest"].empty()) {
        s << "\nslowest:\n";
        for (const auto& w : r["slowest"])
            s << "  " << std::fixed << std::setprecision(3) << std::setw(8) << w.value("seconds", 0.0) << " s  "
              << w["id"].get<std::string>() << "\n";
    }
    if (!r["failures"].empty()) {
        s << "\nfailing (" << r["failures"].size() << "):\n";
        size_t shown = 0;
        for (const auto& f : r["failures"]) {
            if (++shown > 50) {
                s << "  ... " << r["failures"].size() - 50 << " more (--json lists all)\n";
                break;
            }
            s << "  " << std::left << std::setw(12) << f["status"].get<std::string>() << f["id"].get<std::string>()
              << "  " << f.value("message", "").substr(0, 160) << "\n";
        }
    }
    if (r.contains("compare")) {
        const json& cmp = r["compare"];
        s << "\nagainst the earlier sweep: newly failing " << cmp["newly_failing"].size() << ", newly passing "
          << cmp["newly_passing"].size() << ", slower " << cmp["slower"].size() << ", added " << cmp["added"].size()
          << ", removed " << cmp["removed"].size() << "\n";
        for (const auto& f : cmp["newly_failing"])
            s << "  now " << f["now"].get<std::string>() << " (was " << f["was"].get<std::string>()
              << "): " << f["id"].get<std::string>() << "  " << f.value("message", "").substr(0, 120) << "\n";
        for (const auto& f : cmp["slower"])
            s << "  slower: " << f["id"].get<std::string>() << std::fixed << std::setprecision(3) << "  "
              << f.value("seconds_before", 0.0) << " s -> " << f.value("seconds", 0.0) << " s\n";
    }
    return s.str();
}

}  // namespace fxray::sweep
