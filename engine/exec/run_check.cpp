#include "exec/run_check.h"

#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"

#include <chrono>

namespace fxray {

Value deepCopy(const Value& v) {
    Value c = v;
    if (v.isTensor() && v.t.hasData()) c.t = kern::makeTensor(v.t.meta, kern::toDoubles(v.t));
    for (auto& x : c.list) x = deepCopy(x);
    return c;
}

namespace {
Expected<std::vector<Value>> runOnce(const Graph& g, const RunRequest& req, bool fp64, double* ms) {
    ExecContext ctx(req.seed);
    ctx.fp64 = fp64;
    Interpreter interp(Interpreter::Mode::Execute, &ctx);
    interp.pins = req.pins;
    std::vector<Value> inputs;
    for (const auto& v : req.inputs) inputs.push_back(deepCopy(v));
    auto t0 = std::chrono::steady_clock::now();
    auto r = interp.run(g, std::move(inputs));
    if (ms) *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}
} // namespace

Status judgeOutputs(const Graph& g, const RunRequest& req, const std::vector<Value>& expect, RunResult& res,
                    bool outputsAreFp64) {
    if (expect.size() != res.outputs.size())
        return makeError("expected " + std::to_string(expect.size()) + " outputs, the graph returned " +
                         std::to_string(res.outputs.size()));
    bool anyFloatFail = false;
    for (size_t i = 0; i < res.outputs.size(); ++i) {
        res.comparisons.push_back(compareValues(i, res.outputs[i], expect[i]));
        const auto& c = res.comparisons.back();
        anyFloatFail = anyFloatFail || (!c.ok && res.outputs[i].isTensor() && isFloating(res.outputs[i].t.dtype()));
    }
    if (anyFloatFail && !outputsAreFp64) {
        auto ref = runOnce(g, req, true, nullptr);
        if (ref.ok()) {
            res.fp64Rerun = true;
            for (size_t i = 0; i < res.outputs.size(); ++i)
                judgeWithFp64(res.comparisons[i], res.outputs[i], expect[i], (*ref)[i]);
        }
    }
    for (const auto& c : res.comparisons) res.ok = res.ok && c.ok;
    return Status::success();
}

Expected<RunResult> runAndCheck(const Graph& g, const RunRequest& req, const std::vector<Value>* expect) {
    RunResult res;
    auto outs = runOnce(g, req, req.fp64, &res.ms);
    if (!outs.ok()) return outs.error();
    res.outputs = std::move(outs).value();
    if (!expect) return res;
    if (Status s = judgeOutputs(g, req, *expect, res, req.fp64); !s.ok()) return s.error();
    return res;
}

} // namespace fxray
