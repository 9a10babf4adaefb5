#include "minify/repro_export.h"

#include "exec/shape_binding.h"
#include "import/constants_folder.h"
#include "import/npy.h"
#include "import/session_file.h"
#include "ir/printer.h"
#include "minify/sym_inputs.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace fxray::minify {

namespace fs = std::filesystem;

namespace {

/// Targets PyTorch can call as written.
bool pytorchCallable(const Node& n) {
    if (n.kind() != NodeKind::CallFunction) return n.kind() == NodeKind::CallMethod;
    const std::string& t = n.target();
    return t.rfind("torch.ops.aten.", 0) == 0 || t.rfind("torch.ops.prims.", 0) == 0 || t.rfind("operator.", 0) == 0 ||
           t.rfind("torch.", 0) == 0 || t.rfind("math.", 0) == 0 || t == "getattr";
}

std::string tupleRepr(const std::vector<int64_t>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    if (v.size() == 1) s += ",";
    return s + ")";
}

/// The forward of class `cls`; with faults, each faulty node's value is scaled after it.
void writeModule(std::ostream& os, const Graph& g, const std::string& cls, const std::vector<InjectSpec>* faults) {
    os << "class " << cls << "(torch.nn.Module):\n    def forward(self";
    for (Node* p : g.placeholders()) os << ", " << p->name();
    os << "):\n";
    for (const auto& up : g.nodes()) {
        const Node& n = *up;
        if (n.kind() == NodeKind::Placeholder) continue;
        if (n.kind() == NodeKind::Output) {
            os << "        return " << (n.args.empty() ? std::string("None") : n.args[0].repr()) << "\n";
            continue;
        }
        if (n.kind() == NodeKind::GetAttr) {
            os << "        " << n.name() << " = None  # get_attr " << n.target() << " is not carried by this repro\n";
            continue;
        }
        os << "        " << n.name() << " = " << printNodeExpr(n) << "\n";
        if (!faults) continue;
        for (const auto& f : *faults)
            if (f.kind == InjectSpec::Kind::Scale && n.opName() == f.op && !n.metaIsTuple && n.meta.size() == 1 &&
                isFloating(n.meta[0].dtype))
                os << "        " << n.name() << " = " << n.name() << " * " << pyFloatRepr(f.scale)
                   << "  # injected fault (--inject " << f.text << ")\n";
    }
    os << "\n\n";
}

/// A Python literal for an Inductor config value as written on the command line.
std::string pyConfigLiteral(const std::string& v) {
    if (v == "True" || v == "true") return "True";
    if (v == "False" || v == "false") return "False";
    if (v == "None" || v == "none") return "None";
    if (!v.empty() && v.find_first_not_of("0123456789-") == std::string::npos && v != "-") return v;
    return pyStringRepr(v);
}

/// The settings of a torch-compile check: device, backend, Inductor config. One compile thread
/// (the environment for what reads it at import, the config patch for the rest) keeps Inductor's
/// compile in this process: no worker pool to start per query, and a compile error is raised
/// here, not re-raised from a worker.
void writeTorchCompileHeader(std::ostream& os, const CheckSpec& c) {
    os << "# torch-compile check: torch.compile(backend=" << pyStringRepr(c.backend) << ")";
    if (!c.device.empty()) os << " on " << c.device;
    os << "\nimport os\nos.environ.setdefault('TORCHINDUCTOR_COMPILE_THREADS', '1')\n";
    if (!c.device.empty()) os << "DEVICE = " << pyStringRepr(c.device) << "  # the check's device\n";
    os << "BACKEND = " << pyStringRepr(c.backend) << "\nINDUCTOR_CONFIG = {";
    for (size_t i = 0; i < c.inductorConfig.size(); ++i)
        os << (i ? ", " : "") << pyStringRepr(c.inductorConfig[i].first) << ": "
           << pyConfigLiteral(c.inductorConfig[i].second);
    os << "}\n\n\n"
          "def describe(e):\n"
          "    # The failure signature: the innermost exception (Dynamo wraps the backend's) and the\n"
          "    # first line of its message (a SyntaxError's own message, without the file it names).\n"
          "    while getattr(e, 'inner_exception', None) is not None:\n"
          "        e = e.inner_exception\n"
          "    t = type(e)\n"
          "    name = t.__qualname__ if t.__module__ == 'builtins' else f'{t.__module__}.{t.__qualname__}'\n"
          "    msg = e.msg if isinstance(e, SyntaxError) and e.msg else str(e)\n"
          "    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]\n"
          "    return f'{name}: {lines[0] if lines else \"\"}'\n\n\n";
}

/// main() of a torch-compile check: eager first (a graph PyTorch cannot run is no compiler
/// failure: exit 3), then torch.compile; a failure prints one FXRAY_FAILURE line and exits 1.
void writeTorchCompileMain(std::ostream& os) {
    os << "    import traceback\n"
          "    import torch._inductor.config as inductor_config\n"
          "    try:\n"
          "        run(Repro(), load_inputs())\n"
          "    except Exception as e:\n"
          "        print('FXRAY_EAGER_FAILED ' + describe(e))\n"
          "        return 3\n"
          "    torch._dynamo.reset()\n"
          "    try:\n"
          "        with inductor_config.patch({'compile_threads': 1, **INDUCTOR_CONFIG}):\n"
          "            mod = torch.compile(Repro(), backend=BACKEND, dynamic=True if DYNAMIC else None)\n"
          "            run(mod, load_inputs())\n"
          "    except Exception as e:\n"
          "        traceback.print_exc()\n"
          "        print('FXRAY_FAILURE ' + describe(e), flush=True)\n"
          "        print(f'REPRODUCED: torch.compile(backend={BACKEND!r}) fails on {DEVICE}')\n"
          "        return 1\n"
          "    print(f'not reproduced: torch.compile(backend={BACKEND!r}) ran on {DEVICE}')\n"
          "    return 0\n";
}

}  // namespace

std::string reproScript(const Graph& g, const std::vector<Value>& inputs, const FailureSpec* spec,
                        const std::string& fxrayCommand) {
    std::ostringstream os;
    bool runnable = true;
    std::string notCallable;
    for (const auto& n : g.nodes())
        if ((n->kind() == NodeKind::CallFunction || n->kind() == NodeKind::CallModule) && !pytorchCallable(*n))
            runnable = false, notCallable = n->target();

    // What the script can show in PyTorch.
    std::string mode = "eager";  // run and print
    const CheckSpec* acc = nullptr;
    const CheckSpec* tc = nullptr;
    bool anyScale = false;
    if (spec) {
        for (const auto& i : spec->injects) anyScale = anyScale || i.kind == InjectSpec::Kind::Scale;
        for (const auto& c : spec->checks)
            if (c.kind == CheckSpec::Kind::Accuracy && !acc) acc = &c;
        if (acc && acc->refSide == acc->testSide)
            mode = "injected";
        else if (acc && (acc->refSide == "ref64" || acc->testSide == "ref64") &&
                 (acc->refSide == "ref" || acc->testSide == "ref"))
            mode = anyScale ? "injected" : "fp64";
        else if (acc && anyScale && acc->refSide == "ref")
            mode = "injected";
        else if (acc || !spec->checks.empty())
            mode = "fxray-only";
        // A torch.compile check is PyTorch-visible by definition: the script is the check.
        for (const auto& c : spec->checks)
            if (c.kind == CheckSpec::Kind::TorchCompile && !tc) tc = &c, mode = "torch-compile";
    }

    // Dynamic shapes: the sizes of the recorded run, read off the inputs.
    std::vector<Value> vals = inputs;
    sym::Binding sizes;
    const bool dynamic = graphIsSymbolic(g);
    if (dynamic) {
        scalarizeSymInputs(g, vals);
        auto b = bindInputs(g, vals, /*withStrides=*/false);
        if (b.ok()) sizes = std::move(b).value();
    }

    os << "# Minimal repro written by fxray (" << g.size() << " nodes).\n";
    if (!fxrayCommand.empty()) os << "# fxray command that reproduces the failure:\n#   " << fxrayCommand << "\n";
    if (spec) {
        for (const auto& c : spec->checks) os << "# check:  " << c.text << "\n";
        for (const auto& i : spec->injects) os << "# inject: " << i.text << "\n";
    }
    if (dynamic)
        os << "# Dynamic shapes: the graph was traced with torch.compile(dynamic=True); the inputs are saved at\n"
              "# the recorded sizes ("
           << sym::bindingStr(sizes)
           << ") and the tested module runs under\n"
              "# torch.compile(mod, dynamic=True) so that PyTorch sees them as symbols again.\n"
              "# Run: python repro.py [--device cpu|cuda] [--backend aot_eager|inductor|eager] [--eager]\n"
              "#      (exit 1 when the failure reproduces)\n";
    else
        os << "# Run: python repro.py [--device cpu|cuda]   (exit 1 when the failure reproduces)\n";
    os << "import argparse\nimport sys\nfrom pathlib import Path\n\nimport numpy as np\nimport torch\n"
          "import torch.utils._pytree as pytree\n\n"
          "HERE = Path(__file__).resolve().parent\n"
          "DEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
          "BACKEND = 'aot_eager'  # AOTAutograd's symbolic tracing without a C++ or Triton compiler\n"
          "inf = float('inf')\nnan = float('nan')\n\n\n"
          "def device(type=None, index=None):\n"
          "    # Graph literals name the recording machine's device; run where this script runs.\n"
          "    return torch.device(DEVICE)\n\n\n";
    if (tc) writeTorchCompileHeader(os, *tc);
    writeModule(os, g, "Repro", nullptr);
    if (mode == "injected") writeModule(os, g, "ReproInjected", &spec->injects);

    // Inputs, read from inputs/NNN.npy. A SymInt input is its number; a tensor is (shape, stride, dtype) at the recorded sizes.
    os << "INPUTS = [\n";
    auto phs = g.placeholders();
    for (size_t i = 0; i < phs.size() && i < vals.size(); ++i) {
        const Value& v = vals[i];
        if (isSymValue(v)) {
            os << "    "
               << (v.kind == Value::Kind::Double ? pyFloatRepr(v.d)
                   : v.kind == Value::Kind::Bool ? std::string(v.b ? "True" : "False")
                                                 : std::to_string(v.i))
               << ",  # " << phs[i]->name() << (phs[i]->annotationText.empty() ? "" : ": " + phs[i]->annotationText)
               << "\n";
            continue;
        }
        if (!v.isTensor()) {
            os << "    None,  # " << phs[i]->name() << ": not a tensor\n";
            continue;
        }
        TensorMeta m = !phs[i]->meta.empty() ? phs[i]->meta[0] : v.t.meta;
        std::string symbolic;
        if (m.isSymbolic()) {
            symbolic = ": " + m.annotation(true, false);
            auto bound = bindMeta(m, sizes);
            m = bound.ok() ? *bound : v.t.meta;
        }
        std::vector<int64_t> stride =
            m.strides.size() == m.shape.size() ? m.strides : TensorMeta::contiguousStrides(m.shape);
        os << "    (" << tupleRepr(m.shape) << ", " << tupleRepr(stride) << ", " << dtypeTorchName(m.dtype) << "),  # "
           << phs[i]->name() << symbolic << "\n";
    }
    os << "]\n";
    if (dynamic) {
        os << "SIZES = {";
        bool first = true;
        for (const auto& [name, num] : sizes) {
            os << (first ? "" : ", ") << pyStringRepr(name) << ": " << num.str();
            first = false;
        }
        os << "}  # the recorded binding\nDYNAMIC = True\n";
    } else {
        os << "DYNAMIC = False\n";
    }
    os << "TOL = " << pyFloatRepr(spec ? spec->tol : 1e-3)
       << "\nMULTIPLIER = " << pyFloatRepr(spec ? spec->multiplier : 2.0) << "\nSEED = " << (spec ? spec->seed : 0)
       << "\n\n\n";
    os << "def load_inputs(dtype_override=None):\n"
          "    args = []\n"
          "    for i, spec in enumerate(INPUTS):\n"
          "        if not isinstance(spec, tuple):\n"
          "            args.append(spec)  # a SymInt input: a Python number\n"
          "            continue\n"
          "        shape, stride, dtype = spec\n"
          "        data = torch.from_numpy(np.load(HERE / 'inputs' / f'{i:03d}.npy').copy()).to(dtype)\n"
          "        t = torch.empty_strided(shape, stride, dtype=dtype, device=DEVICE)\n"
          "        t.copy_(data.reshape(shape))\n"
          "        if dtype_override is not None and t.is_floating_point():\n"
          "            t = t.to(dtype_override)\n"
          "        args.append(t)\n"
          "    return args\n\n\n"
          "SYMBOLIC = []\n\n\n"
          "def compiled(mod):\n"
          "    # torch.compile with symbolic sizes, as the graph was traced. The backend notes which\n"
          "    # inputs Dynamo made symbolic before handing the graph to BACKEND.\n"
          "    if not DYNAMIC or BACKEND == 'none':\n"
          "        return mod\n"
          "    from torch._dynamo.backends.registry import lookup_backend\n"
          "    inner = lookup_backend(BACKEND)\n\n"
          "    def backend(gm, example_inputs):\n"
          "        for n in gm.graph.nodes:\n"
          "            v = n.meta.get('example_value', n.meta.get('val')) if n.op == 'placeholder' else None\n"
          "            if isinstance(v, torch.SymInt):\n"
          "                SYMBOLIC.append(f'{n.name}={v}')\n"
          "            elif isinstance(v, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in v.shape):\n"
          "                SYMBOLIC.append(f'{n.name}{list(v.shape)}')\n"
          "        return inner(gm, example_inputs)\n\n"
          "    torch._dynamo.reset()\n"
          "    return torch.compile(mod, backend=backend, dynamic=True)\n\n\n"
          "def report_dynamic():\n"
          "    if not DYNAMIC or BACKEND == 'none':\n"
          "        return\n"
          "    sizes = ', '.join(f'{k}={v}' for k, v in SIZES.items())\n"
          "    if SYMBOLIC:\n"
          "        print(f'torch.compile(dynamic=True, backend={BACKEND}) at {sizes}: symbolic inputs ' + ', "
          "'.join(SYMBOLIC))\n"
          "    else:\n"
          "        print(f'torch.compile(dynamic=True, backend={BACKEND}) at {sizes}: Dynamo specialized every "
          "size')\n\n\n"
          "def run(mod, args):\n"
          "    torch.manual_seed(SEED)\n"
          "    with torch.no_grad():\n"
          "        return [x for x in pytree.tree_leaves(mod(*args)) if isinstance(x, torch.Tensor)]\n\n\n"
          "def rmse(a, b):\n"
          "    return torch.sqrt(torch.mean(torch.square(a.double() - b.double()))).item()\n\n\n"
          "def same(ref, res, fp64):\n"
          "    # torch._dynamo.utils.same: allclose, else RMSE against an fp64 run.\n"
          "    if not res.is_floating_point():\n"
          "        return torch.equal(ref, res)\n"
          "    if torch.allclose(ref.to(res.dtype), res, atol=TOL, rtol=TOL, equal_nan=True):\n"
          "        return True\n"
          "    return rmse(fp64, res) <= MULTIPLIER * rmse(fp64, ref) + TOL / 10.0\n\n\n"
          "def compare(refs, ress, fp64s):\n"
          "    bad = 0\n"
          "    for i, (ref, res, f) in enumerate(zip(refs, ress, fp64s)):\n"
          "        ok = same(ref, res, f)\n"
          "        err = (res.double() - ref.double()).abs().max().item() if res.numel() else 0.0\n"
          "        print(f'output {i}: {\"ok\" if ok else \"MISMATCH\"}  max_abs_err {err:.3e}  '\n"
          "              f'rmse(fp64, ref) {rmse(f, ref):.3e}  rmse(fp64, tested) {rmse(f, res):.3e}')\n"
          "        bad += not ok\n"
          "    return bad\n\n\n"
          "def main():\n"
          "    global DEVICE, BACKEND\n"
          "    ap = argparse.ArgumentParser()\n"
          "    ap.add_argument('--device', default=DEVICE)\n"
          "    ap.add_argument('--backend', default=BACKEND, help='torch.compile backend of the tested side (dynamic "
          "graphs)')\n"
          "    ap.add_argument('--eager', action='store_true', help='run the tested side in eager, not "
          "torch.compile')\n"
          "    opts = ap.parse_args()\n"
          "    DEVICE = opts.device\n"
          "    BACKEND = 'none' if opts.eager else opts.backend\n";
    if (!runnable) {
        os << "    print('this graph calls " << notCallable
           << ", which PyTorch does not have; reproduce with fxray:')\n"
           << "    print(" << pyStringRepr(fxrayCommand) << ")\n    return 0\n";
    } else if (mode == "injected") {
        os << "    args = load_inputs()\n"
              "    refs = run(Repro(), args)\n"
              "    ress = run(compiled(ReproInjected()), args)\n"
              "    report_dynamic()\n"
              "    fp64s = run(Repro(), load_inputs(torch.float64))\n"
              "    bad = compare(refs, ress, fp64s)\n"
              "    print('REPRODUCED: the injected fault makes the outputs differ' if bad else 'not reproduced')\n"
              "    return 1 if bad else 0\n";
    } else if (mode == "torch-compile") {
        writeTorchCompileMain(os);
    } else if (mode == "fp64") {
        os << "    refs64 = run(Repro(), load_inputs(torch.float64))\n"
              "    ress = run(compiled(Repro()), load_inputs())\n"
              "    report_dynamic()\n"
              "    bad = compare([r.to(s.dtype) for r, s in zip(refs64, ress)], ress, refs64)\n"
              "    print('REPRODUCED: fp32 eager differs from fp64 eager beyond tolerance' if bad else 'not "
              "reproduced')\n"
              "    return 1 if bad else 0\n";
    } else {
        if (mode == "fxray-only")
            os << "    print('the failure is inside fxray (a pass or a compiled backend), not visible in PyTorch "
                  "eager;')\n"
                  "    print('reproduce it with:', "
               << pyStringRepr(fxrayCommand) << ")\n";
        os << "    outs = run(compiled(Repro()), load_inputs())\n"
              "    report_dynamic()\n"
              "    for i, o in enumerate(outs):\n"
              "        print(f'output {i}: {tuple(o.shape)} {o.dtype}  sum {o.double().sum().item():.6g}')\n"
              "    return 0\n";
    }
    os << "\n\nif __name__ == '__main__':\n    sys.exit(main())\n";
    return os.str();
}

Status writeGraphFolder(const fs::path& dir, const Graph& g, const std::vector<Value>& inputs, const FailureSpec* spec,
                        const std::string& graphFile, const std::string& fxrayCommand) {
    std::error_code ec;
    fs::create_directories(dir / "inputs", ec);
    if (ec) return makeError("cannot create " + (dir / "inputs").string() + ": " + ec.message());
    // Stale inputs of an earlier, larger graph would be read back as extra inputs.
    for (const auto& e : fs::directory_iterator(dir / "inputs", ec))
        if (e.path().extension() == ".npy") fs::remove(e.path(), ec);
    {
        std::ofstream f(dir / graphFile);
        f << printGraph(g);
        if (!f) return makeError("cannot write " + (dir / graphFile).string());
    }
    if (auto s = writeConstantsFolder(dir / graphFile, g); !s.ok()) return s;
    for (size_t i = 0; i < inputs.size(); ++i) {
        // SymInt inputs as 0-d int64 files: the folder feeds `fxray minify --inputs` as it is.
        if (!inputs[i].isTensor() && !isSymValue(inputs[i])) continue;
        char name[32];
        std::snprintf(name, sizeof name, "%03zu.npy", i);
        if (auto s = writeNpy(dir / "inputs" / name, inputs[i].isTensor() ? inputs[i].t : symValueTensor(inputs[i]));
            !s.ok())
            return s;
    }
    std::ofstream r(dir / "repro.py");
    r << reproScript(g, inputs, spec, fxrayCommand);
    if (!r) return makeError("cannot write " + (dir / "repro.py").string());
    return {};
}

Status writeMinifyOutputs(const fs::path& dir, const MinifyResult& res, const MinifyOptions& opts,
                          const ExportInfo& info) {
    if (!res.graph) return makeError("nothing to write: the minification has no result");
    if (auto s = writeGraphFolder(dir, *res.graph, res.inputs, &opts.spec, "minified.py", info.commandLine); !s.ok())
        return s;
    nlohmann::json j;
    j["format"] = "fxray-minify-session";
    j["version"] = 1;
    j["source"] = info.sourceFile;
    j["graph"] = info.graphSel;
    j["graph_file"] = "minified.py";
    j["inputs_dir"] = "inputs";
    j["checks"] = nlohmann::json::array();
    for (const auto& c : opts.spec.checks) j["checks"].push_back(c.text);
    j["inject"] = nlohmann::json::array();
    for (const auto& i : opts.spec.injects) j["inject"].push_back(i.text);
    j["seed"] = opts.spec.seed;
    j["tol"] = opts.spec.tol;
    j["passes"] = res.passes;
    j["signature"] = res.signature;
    j["nodes_before"] = res.nodesBefore;
    j["nodes_after"] = res.nodesAfter;
    j["queries"] = res.queries;
    j["cache_hits"] = res.cacheHits;
    j["seconds"] = res.seconds;
    j["steps"] = res.steps;
    j["bisection"] = res.bisection;
    j["command"] = info.commandLine;
    if (!res.recordedSizes.empty()) {
        // Dynamic shapes: the binding the minimized graph's inputs give (= the recorded run's).
        nlohmann::json sz = nlohmann::json::object();
        for (const auto& [k, v] : res.sizes.empty() ? res.recordedSizes : res.sizes)
            sz[k] = v.isFloat() ? nlohmann::json(v.d) : nlohmann::json(v.i);
        j["sizes"] = sz;
    }
    // The minimized graph as an fxray session, which the GUI opens like any other file.
    LoadedFile lf;
    lf.path = dir / "minified.py";
    lf.format = "fx-text";
    LoadedGraph lg;
    lg.id = "0";
    lg.stage = "minified";
    lg.graph = res.graph->clone();
    lf.graphs.push_back(std::move(lg));
    SessionState state;
    state.graph = "0";
    state.view["minify.signature"] = res.signature;
    state.view["minify.source"] = info.sourceFile;
    if (auto s = saveSession(dir / "minified.fxray", lf, state); s.ok())
        j["fxray_session"] = "minified.fxray";
    else
        j["fxray_session_error"] = s.error().str();
    std::ofstream f(dir / "session.json");
    f << j.dump(1) << "\n";
    if (!f) return makeError("cannot write " + (dir / "session.json").string());
    return {};
}

}  // namespace fxray::minify
