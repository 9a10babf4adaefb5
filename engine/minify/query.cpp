#include "minify/query.h"

#include "codegen/backend.h"
#include "exec/compare.h"
#include "exec/ops/kernel_util.h"
#include "exec/shape_binding.h"
#include "import/constants_folder.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "minify/inject.h"
#include "minify/sym_inputs.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

namespace fxray::minify {

namespace fs = std::filesystem;

std::string QueryOutcome::kindName() const {
    switch (kind) {
    case Kind::Reproduced: return "reproduced";
    case Kind::Clean: return "clean";
    case Kind::Error: return "error";
    case Kind::Crash: return "crash";
    case Kind::Timeout: return "timeout";
    }
    return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

void writeStage(const fs::path& file, const std::string& what) {
    if (file.empty()) return;
    std::ofstream(file, std::ios::trunc) << what << "\n";
}

void flatten(const Value& v, std::vector<const Value*>& out) {
    if (v.isList()) {
        for (const auto& x : v.list) flatten(x, out);
        return;
    }
    out.push_back(&v);
}

std::vector<const Value*> leaves(const std::vector<Value>& vs) {
    std::vector<const Value*> out;
    for (const auto& v : vs) flatten(v, out);
    return out;
}

bool allclose(const std::vector<double>& ref, const std::vector<double>& res, double tol) {
    for (size_t i = 0; i < ref.size(); ++i) {
        double a = ref[i], b = res[i];
        if (std::isnan(a) || std::isnan(b)) {
            if (std::isnan(a) != std::isnan(b)) return false;
            continue;
        }
        if (std::isinf(a) || std::isinf(b)) {
            if (a != b) return false;
            continue;
        }
        if (std::abs(a - b) > tol + tol * std::abs(b)) return false;
    }
    return true;
}

double rmse(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) continue;
        double d = a[i] - b[i];
        s += d * d;
        ++n;
    }
    return n ? std::sqrt(s / double(n)) : 0.0;
}

/// Tensors with data comparable element by element (same shape).
bool comparable(const Value* a, const Value* b) {
    return a && b && a->isTensor() && b->isTensor() && a->t.hasData() && b->t.hasData() && a->t.shape() == b->t.shape();
}

/// allclose over all leaves; `why` names the first failing leaf.
bool allcloseAll(const std::vector<const Value*>& ref, const std::vector<const Value*>& res, double tol,
                 std::string* why) {
    if (ref.size() != res.size()) {
        if (why)
            *why =
                "the sides returned " + std::to_string(ref.size()) + " and " + std::to_string(res.size()) + " values";
        return false;
    }
    for (size_t i = 0; i < ref.size(); ++i) {
        const Value* a = ref[i];
        const Value* b = res[i];
        if (a->isNone() && b->isNone()) continue;
        if (!a->isTensor() || !b->isTensor()) {
            if (a->isNumber() && b->isNumber() && a->toDouble() == b->toDouble()) continue;
            if (a->kind == b->kind && !a->isTensor()) continue;
            if (why) *why = "output " + std::to_string(i) + ": " + a->describe() + " vs " + b->describe();
            return false;
        }
        if (!comparable(a, b)) {
            if (why)
                *why = "output " + std::to_string(i) + ": shape " + a->t.meta.annotation(false, false) + " vs " +
                       b->t.meta.annotation(false, false);
            return false;
        }
        auto x = kern::toDoubles(a->t), y = kern::toDoubles(b->t);
        bool floating = isFloating(a->t.dtype()) || isComplex(a->t.dtype());
        if (floating ? !allclose(x, y, tol) : x != y) {
            if (why) *why = "output " + std::to_string(i) + " differs";
            return false;
        }
    }
    return true;
}

}  // namespace

bool sameLikePyTorch(const std::vector<Value>& ref, const std::vector<Value>& res, const std::vector<Value>& fp64,
                     double tol, double multiplier, std::string* why) {
    auto a = leaves(ref), b = leaves(res), c = leaves(fp64);
    if (a.size() != b.size()) {
        if (why) *why = "the sides returned different numbers of values";
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        std::string w;
        if (allcloseAll({a[i]}, {b[i]}, tol, &w)) continue;
        // Only floating tensors get the fp64 second opinion.
        if (!comparable(a[i], b[i]) || !isFloating(a[i]->t.dtype()) || i >= c.size() || !comparable(a[i], c[i])) {
            if (why) *why = "output " + std::to_string(i) + ": " + w;
            return false;
        }
        auto r = kern::toDoubles(a[i]->t), s = kern::toDoubles(b[i]->t), f = kern::toDoubles(c[i]->t);
        double refErr = rmse(f, r), resErr = rmse(f, s);
        if (resErr > multiplier * refErr + tol / 10.0) {
            if (why) {
                char buf[160];
                std::snprintf(buf, sizeof buf,
                              "output %zu: RMSE(fp64, tested) %.3g > %.3g * RMSE(fp64, reference) %.3g + %.3g", i,
                              resErr, multiplier, refErr, tol / 10.0);
                *why = buf;
            }
            return false;
        }
    }
    return true;
}

namespace {

/// Writes "pass <run> <name>" before each pass run.
class StageInstrumentation final : public PassInstrumentation {
public:
    explicit StageInstrumentation(fs::path file) : m_file(std::move(file)) {}
    bool runBeforePass(const Pass& p, const Graph&, PassRecord&) override {
        writeStage(m_file, "pass " + std::to_string(m_run++) + " " + std::string(p.name()));
        return true;
    }

private:
    fs::path m_file;
    int m_run = 0;
};

std::vector<std::string> pipelineFor(const QueryRequest& req) {
    std::vector<std::string> passes = req.passes;
    if (passes.empty()) {
        auto names = pipelinePassNames("joint");
        if (names.ok()) passes = std::move(names).value();
    }
    for (const auto& c : req.spec.checks)
        if (c.kind == CheckSpec::Kind::PassFails && std::find(passes.begin(), passes.end(), c.pass) == passes.end())
            passes.push_back(c.pass);
    return passes;
}

struct CheckResult {
    QueryOutcome::Kind kind = QueryOutcome::Kind::Clean;
    std::string signature, message;
};

}  // namespace

QueryOutcome evaluateQuery(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                           const fs::path& stageFile) {
    auto t0 = Clock::now();
    QueryOutcome out;
    std::vector<CheckResult> results;
    const FailureSpec& spec = req.spec;

    bool anyPass = false;
    for (const auto& c : spec.checks) anyPass = anyPass || c.kind == CheckSpec::Kind::PassFails;
    CompileTrace trace;
    if (anyPass) {
        PassManagerOptions opts;
        opts.snapshots = false;
        auto pm = buildFaultyPipeline(pipelineFor(req), spec.injects, opts);
        if (!pm.ok()) {
            out.kind = QueryOutcome::Kind::Error;
            out.message = pm.error().str();
            return out;
        }
        if (!stageFile.empty()) (*pm)->addInstrumentation(std::make_unique<StageInstrumentation>(stageFile));
        auto work = g.clone();
        trace = (*pm)->run(*work);
    }

    for (const auto& c : spec.checks) {
        CheckResult r;
        if (c.kind == CheckSpec::Kind::Command || c.kind == CheckSpec::Kind::TorchCompile)
            continue;  // run by the Oracle, which has the folder
        if (c.kind == CheckSpec::Kind::PassFails) {
            std::regex re(c.regex);
            for (size_t k = 0; k < trace.passes.size(); ++k) {
                const auto& rec = trace.passes[k];
                if (!rec.failed || rec.name != c.pass) continue;
                if (!std::regex_search(rec.error, re)) continue;
                r.kind = QueryOutcome::Kind::Reproduced;
                r.signature = "pass-fails:" + c.pass + ":failed";
                r.message = "pass " + c.pass + " failed: " + rec.error;
                if (out.failedPassRun < 0) out.failedPassRun = static_cast<int>(k);
                break;
            }
            if (r.kind != QueryOutcome::Kind::Reproduced) r.message = "pass " + c.pass + " did not fail that way";
            results.push_back(r);
            continue;
        }
        // Accuracy: both sides get the same inputs and seed; faults go to the tested side.
        auto refB = makeBackend(c.refSide);
        auto testB = makeBackend(c.testSide);
        if (!refB.ok() || !testB.ok()) {
            r.kind = QueryOutcome::Kind::Error;
            r.message = (!refB.ok() ? refB.error() : testB.error()).message;
            results.push_back(r);
            continue;
        }
        auto tested = g.clone();
        applyScaleFaults(*tested, spec.injects);
        const bool observe = req.localize;
        std::map<std::string, Value> refVals, testVals;
        writeStage(stageFile, "run " + c.refSide);
        auto ro = (*refB)->outputs(g, inputs, spec.seed, observe ? &refVals : nullptr);
        writeStage(stageFile, "run " + c.testSide);
        auto to = (*testB)->outputs(*tested, inputs, spec.seed, observe ? &testVals : nullptr);
        if (!ro.ok() || !to.ok()) {
            r.kind = QueryOutcome::Kind::Error;
            r.message = "side " + (!ro.ok() ? c.refSide : c.testSide) +
                        " failed: " + (!ro.ok() ? ro.error() : to.error()).str();
            results.push_back(r);
            continue;
        }
        std::string why;
        bool same = allcloseAll(leaves(*ro), leaves(*to), spec.tol, &why);
        if (!same) {
            std::vector<Value> fp64;
            if (c.refSide == "ref64") {
                fp64 = *ro;
            } else {
                writeStage(stageFile, "run ref64");
                auto f = makeBackend("ref64");
                if (f.ok()) {
                    auto fo = (*f)->outputs(g, inputs, spec.seed);
                    if (fo.ok()) fp64 = std::move(fo).value();
                }
            }
            same = sameLikePyTorch(*ro, *to, fp64, spec.tol, spec.multiplier, &why);
        }
        if (same) {
            r.message = "the sides agree";
            results.push_back(r);
            continue;
        }
        r.kind = QueryOutcome::Kind::Reproduced;
        r.signature = "accuracy:" + c.refSide + "-vs-" + c.testSide + ":mismatch";
        r.message = "outputs differ (" + why + ")";
        if (observe) {
            for (const auto& n : g.nodes()) {
                if (n->kind() == NodeKind::Placeholder || n->kind() == NodeKind::Output) continue;
                auto a = refVals.find(n->name());
                auto b = testVals.find(n->name());
                if (a == refVals.end() || b == testVals.end()) continue;
                if (!comparable(&a->second, &b->second)) continue;
                if (allcloseAll({&a->second}, {&b->second}, spec.tol, nullptr)) continue;
                out.divergent.push_back(n->name());
                if (out.divergent.size() >= 16) break;
            }
            if (!out.divergent.empty()) {
                const Node* first = g.find(out.divergent.front());
                r.signature += "@" + (first ? first->opName() : std::string("?"));
            }
        }
        results.push_back(r);
    }

    bool all = !results.empty();
    for (const auto& r : results) {
        all = all && r.kind == QueryOutcome::Kind::Reproduced;
        if (r.kind == QueryOutcome::Kind::Error) out.kind = QueryOutcome::Kind::Error;
        if (!out.message.empty()) out.message += "; ";
        out.message += r.message;
        if (!r.signature.empty()) out.signature += (out.signature.empty() ? "" : " & ") + r.signature;
    }
    if (all)
        out.kind = QueryOutcome::Kind::Reproduced;
    else if (out.kind != QueryOutcome::Kind::Error)
        out.kind = QueryOutcome::Kind::Clean;
    if (!all) out.signature.clear();
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return out;
}

// ---- folders --------------------------------------------------------------------------------

namespace {

nlohmann::json requestJson(const QueryRequest& req) {
    nlohmann::json j;
    j["checks"] = nlohmann::json::array();
    for (const auto& c : req.spec.checks) j["checks"].push_back(c.text);
    j["inject"] = nlohmann::json::array();
    for (const auto& i : req.spec.injects) j["inject"].push_back(i.text);
    j["tol"] = req.spec.tol;
    j["multiplier"] = req.spec.multiplier;
    j["seed"] = req.spec.seed;
    j["passes"] = req.passes;
    j["localize"] = req.localize;
    j["pass_limit"] = req.passLimit;
    return j;
}

Expected<QueryRequest> requestFromJson(const nlohmann::json& j) {
    QueryRequest req;
    std::vector<std::string> checks, injects;
    for (const auto& c : j.at("checks")) checks.push_back(c.get<std::string>());
    for (const auto& c : j.at("inject")) injects.push_back(c.get<std::string>());
    auto spec = parseFailureSpec(checks, injects);
    if (!spec.ok()) return spec.error();
    req.spec = std::move(spec).value();
    req.spec.tol = j.value("tol", 1e-3);
    req.spec.multiplier = j.value("multiplier", 2.0);
    req.spec.seed = j.value("seed", uint64_t(0));
    req.passes = j.value("passes", std::vector<std::string>{});
    req.localize = j.value("localize", true);
    req.passLimit = j.value("pass_limit", -1);
    return req;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

Status writeQueryDir(const fs::path& dir, const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req) {
    std::error_code ec;
    fs::create_directories(dir / "inputs", ec);
    if (ec) return makeError("cannot create " + dir.string() + ": " + ec.message());
    {
        std::ofstream f(dir / "graph.py");
        f << printGraph(g);
        if (!f) return makeError("cannot write " + (dir / "graph.py").string());
    }
    if (auto s = writeConstantsFolder(dir / "graph.py", g); !s.ok()) return s;
    for (size_t i = 0; i < inputs.size(); ++i) {
        // SymInt inputs travel as 0-d int64 files, as the recorded corpus runs hold them.
        if (!inputs[i].isTensor() && !isSymValue(inputs[i])) continue;
        char name[32];
        std::snprintf(name, sizeof name, "%03zu.npy", i);
        auto s = writeNpy(dir / "inputs" / name, inputs[i].isTensor() ? inputs[i].t : symValueTensor(inputs[i]));
        if (!s.ok()) return s;
    }
    std::ofstream(dir / "query.json") << requestJson(req).dump(1) << "\n";
    return {};
}

Status readGraphDir(const fs::path& dir, std::unique_ptr<Graph>& g, std::vector<Value>& inputs) {
    auto f = loadFile(dir / "graph.py");
    if (!f.ok()) return f.error();
    auto lg = selectGraph(*f, "");
    if (!lg.ok()) return lg.error();
    g = (*lg)->lowered ? std::move((*lg)->lowered) : std::move((*lg)->graph);
    auto phs = g->placeholders();
    auto vals = readNpyFolder(dir / "inputs", phs.size());
    if (!vals.ok()) return vals.error();
    inputs = std::move(vals).value();
    // Dynamic shapes: Sym inputs become numbers, and annotations lay tensors out once the
    // symbols are read off the sizes.
    sym::Binding binding;
    const bool symbolic = graphIsSymbolic(*g);
    if (symbolic) {
        scalarizeSymInputs(*g, inputs);
        auto b = bindInputs(*g, inputs, /*withStrides=*/false);
        if (!b.ok()) return b.error();
        binding = std::move(b).value();
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].isTensor()) continue;
        if (symbolic && !phs[i]->meta.empty() && phs[i]->meta[0].isSymbolic()) {
            auto m = bindMeta(phs[i]->meta[0], binding);
            if (!m.ok()) return m.error();
            inputs[i].t = withAnnotatedStrides(inputs[i].t, *m);
            continue;
        }
        if (!phs[i]->meta.empty() && phs[i]->meta[0].dtype != inputs[i].t.dtype()) {
            // numpy has no bf16: .npy files hold it as f32.
            TensorMeta m = inputs[i].t.meta;
            m.dtype = phs[i]->meta[0].dtype;
            m.strides = TensorMeta::contiguousStrides(m.shape);
            inputs[i].t = kern::makeTensor(m, kern::toDoubles(inputs[i].t));
        }
        inputs[i].t = withAnnotatedStrides(inputs[i].t, *phs[i]);
    }
    return {};
}

int runQueryProcess(const fs::path& dir, std::string& err) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(slurp(dir / "query.json"));
    } catch (const std::exception& e) {
        err = (dir / "query.json").string() + ": " + e.what();
        return 2;
    }
    Expected<QueryRequest> req = makeError("");
    try {
        req = requestFromJson(j);
    } catch (const std::exception& e) {
        err = (dir / "query.json").string() + ": " + e.what();
        return 2;
    }
    if (!req.ok()) {
        err = req.error().str();
        return 2;
    }
    std::unique_ptr<Graph> g;
    std::vector<Value> inputs;
    if (auto s = readGraphDir(dir, g, inputs); !s.ok()) {
        err = s.error().str();
        return 2;
    }
    nlohmann::json r;
    if (req->passLimit >= 0) {
        PassManagerOptions opts;
        opts.snapshots = false;
        auto pm = buildFaultyPipeline(pipelineFor(*req), req->spec.injects, opts);
        if (!pm.ok()) {
            err = pm.error().str();
            return 2;
        }
        (*pm)->addInstrumentation(std::make_unique<StageInstrumentation>(dir / "stage"));
        (*pm)->addInstrumentation(std::make_unique<BisectInstrumentation>(static_cast<size_t>(req->passLimit)));
        (*pm)->run(*g);
        (void)writeGraphFile(dir / "after.py", *g);  // a diagnostic copy: best effort
        r["kind"] = "clean";
        r["message"] = "ran the first " + std::to_string(req->passLimit) + " pass runs";
    } else {
        QueryOutcome o = evaluateQuery(*g, inputs, *req, dir / "stage");
        r["kind"] = o.kindName();
        r["signature"] = o.signature;
        r["message"] = o.message;
        r["divergent"] = o.divergent;
        r["failed_pass_run"] = o.failedPassRun;
        r["seconds"] = o.seconds;
    }
    std::ofstream(dir / "result.json.tmp") << r.dump(1) << "\n";
    std::error_code ec;
    fs::rename(dir / "result.json.tmp", dir / "result.json", ec);
    return 0;
}

Expected<QueryOutcome> readQueryResult(const fs::path& dir) {
    try {
        auto j = nlohmann::json::parse(slurp(dir / "result.json"));
        QueryOutcome o;
        std::string k = j.at("kind").get<std::string>();
        o.kind = k == "reproduced" ? QueryOutcome::Kind::Reproduced
                 : k == "error"    ? QueryOutcome::Kind::Error
                 : k == "crash"    ? QueryOutcome::Kind::Crash
                 : k == "timeout"  ? QueryOutcome::Kind::Timeout
                                   : QueryOutcome::Kind::Clean;
        o.signature = j.value("signature", std::string());
        o.message = j.value("message", std::string());
        o.divergent = j.value("divergent", std::vector<std::string>{});
        o.failedPassRun = j.value("failed_pass_run", -1);
        o.seconds = j.value("seconds", 0.0);
        return o;
    } catch (const std::exception& e) {
        return makeError((dir / "result.json").string() + ": " + e.what());
    }
}

QueryOutcome judgeAbnormalEnd(const fs::path& dir, const FailureSpec& spec, bool timedOut, const std::string& how) {
    QueryOutcome o;
    o.kind = timedOut ? QueryOutcome::Kind::Timeout : QueryOutcome::Kind::Crash;
    std::string stage = slurp(dir / "stage");
    while (!stage.empty() && (stage.back() == '\n' || stage.back() == '\r')) stage.pop_back();
    std::string pass;
    int run = -1;
    if (stage.rfind("pass ", 0) == 0) {
        std::istringstream ss(stage.substr(5));
        ss >> run >> pass;
    }
    const std::string msg = timedOut ? how : "crashed: " + how;
    o.message = msg + (stage.empty() ? "" : " during " + stage);
    bool all = true;
    std::string sig;
    for (const auto& c : spec.checks) {
        if (c.kind == CheckSpec::Kind::Command || c.kind == CheckSpec::Kind::TorchCompile) continue;
        bool ok = c.kind == CheckSpec::Kind::PassFails && c.pass == pass && std::regex_search(msg, std::regex(c.regex));
        all = all && ok;
        if (ok) {
            std::string cls = timedOut ? "timed-out" : msg.substr(msg.find('(') + 1);
            if (!cls.empty() && cls.back() == ')') cls.pop_back();
            sig +=
                (sig.empty() ? "" : " & ") + ("pass-fails:" + c.pass + ":" + (timedOut ? cls : "crashed(" + cls + ")"));
        }
    }
    if (all && !sig.empty()) {
        o.kind = QueryOutcome::Kind::Reproduced;
        o.signature = sig;
        o.failedPassRun = run;
    }
    return o;
}

}  // namespace fxray::minify
