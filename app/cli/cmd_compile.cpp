// fxray compile FILE: run a pass pipeline over a graph and report what every pass did (times,
// matches, near-misses, provenance), optionally dumping the graph after each pass that changed
// it and the trace as JSON.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "exec/compare.h"
#include "import/constants_folder.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "pass/trace_json.h"
#include "transforms/passes.h"
#if defined(FXRAY_HAVE_CPU_BACKEND)
#include "codegen/cpu/cpu_backend.h"
#endif
#include "codegen/cuda/cuda_backend.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace fxray::cli {

namespace {

const char* kCompileUsage =
    "usage: fxray compile FILE [--graph SEL] [--pipeline inductor|joint|post-grad|pre-grad|freezing]\n"
    "                     [--backend none|cpu|cuda] [--arch compute_XX|sm_XX] [--inputs DIR] [--dynamo FILE]\n"
    "                     [--dump-dir DIR] [--out FILE] [--print-after-all] [--skip PASS]... [--json]\n"
    "  --pipeline P      joint (default): joint_graph_passes; post-grad: DCE, CSE, no-op removal;\n"
    "                    pre-grad: torch-level passes; inductor: pre-grad (torch-level graphs), lowering,\n"
    "                    joint, post-grad; freezing: freeze + freezing_passes\n"
    "  --inputs DIR      freezing: NNN.npy per input; parameters among them are inlined as constants\n"
    "  --dynamo FILE     freezing: the Dynamo graph whose input names say which inputs are parameters\n"
    "                    (default: dynamo.py next to FILE)\n"
    "  --dump-dir DIR    NN_PASS.py after each pass that changed the graph, 00_input.py, trace.json\n"
    "  --out FILE        the final graph in FX text form\n"
    "  --print-after-all the graph after every pass, on stdout\n"
    "  --skip PASS       do not run PASS (repeatable)\n"
    "  --backend B       after the pipeline, lower, fuse and compile the graph (static shapes from the\n"
    "                    annotations): cpu through LLVM; cuda through NVRTC for the local GPU (\"no CUDA\n"
    "                    device\" without one) or, with --arch, to PTX/cubin without a device\n"
    "  --arch A          cuda: compile for A (compute_90: PTX, sm_90: cubin) instead of the local device\n"
    "  --no-verify       do not verify the graph after each pass\n";

Status writeText(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    if (!f) {
        Diagnostic d = makeError("cannot write the file");
        d.file = p.string();
        return d;
    }
    f << text;
    return Status::success();
}

std::string fileSafe(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    return s;
}

/// Parameter values for the freezing pipeline: the inputs in DIR, the parameters among them
/// named by the Dynamo graph (--dynamo, or dynamo.py next to the file).
Expected<FreezeInputs> freezeInputsFor(const Graph& g, const std::string& file, const std::string& inputs,
                                       std::string dynamo) {
    if (dynamo.empty()) {
        auto sib = std::filesystem::path(file).parent_path() / "dynamo.py";
        if (!std::filesystem::exists(sib))
            return makeError("--inputs needs --dynamo FILE to tell the parameters from the inputs");
        dynamo = sib.string();
    }
    auto df = loadFile(dynamo);
    if (!df.ok()) return df.error();
    if (df->graphs.empty()) return makeError("the Dynamo file holds no graph");
    auto isParam = parameterPlaceholders(g, *df->graphs[0].graph);
    if (!isParam.ok()) return isParam.error();
    auto values = readNpyFolder(inputs, g.placeholders().size());
    if (!values.ok()) return values.error();
    return freezeInputsFromValues(g, *isParam, *values);
}

/// What the CUDA backend compiled for a graph, as the report shows it: its program and kernels
/// and, per subgraph op (cond, checkpoint, wrap), its subgraphs, compiled the same way.
struct CudaCompiled {
    const Graph* graph = nullptr;
    const cg::Program* prog = nullptr;
    const cg::cuda::CudaSource* src = nullptr;
    struct Op {
        std::string node;
        bool isCond = false;
        std::vector<CudaCompiled> graphs;
    };
    std::vector<Op> subgraphOps;
};

CudaCompiled describeCompiled(const cg::cuda::SourceOnly& so) {
    CudaCompiled c{so.graph, &so.program, &so.source, {}};
    for (const auto& [ci, ss] : so.subgraphs) {
        CudaCompiled::Op op{so.program.lowered.calls[ci].node->name(), ss.call.isCond, {}};
        for (const auto& sg : ss.graphs) op.graphs.push_back(describeCompiled(sg));
        c.subgraphOps.push_back(std::move(op));
    }
    return c;
}

CudaCompiled describeCompiled(const cg::cuda::CompiledGraph& cg) {
    CudaCompiled c{&cg.graph(), &cg.program(), &cg.source(), {}};
    for (size_t ci = 0; ci < cg.program().lowered.calls.size(); ++ci)
        if (const auto* subs = cg.subgraphs(ci)) {
            CudaCompiled::Op op{cg.program().lowered.calls[ci].node->name(), subs->call.isCond, {}};
            for (const auto& sg : subs->graphs) op.graphs.push_back(describeCompiled(*sg));
            c.subgraphOps.push_back(std::move(op));
        }
    return c;
}

nlohmann::json kernelsJson(const CudaCompiled& c) {
    nlohmann::json ks = nlohmann::json::array();
    for (size_t i = 0; i < c.prog->kernels.size(); ++i) {
        const auto& k = c.prog->kernels[i];
        nlohmann::json jk = {{"name", k.name}, {"nodes", k.nodes}, {"reduction", k.isReduction()}};
        if (i < c.src->plans.size()) jk["threads"] = c.src->plans[i].threads;
        ks.push_back(jk);
    }
    return ks;
}

/// [{node, graphs: [{role, graph, kernels, subgraphs}]}]: a branch may hold subgraph ops too.
nlohmann::json subgraphsJson(const CudaCompiled& c) {
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& op : c.subgraphOps) {
        nlohmann::json graphs = nlohmann::json::array();
        for (size_t i = 0; i < op.graphs.size(); ++i)
            graphs.push_back({{"role", cg::subgraphRole(op.isCond, i).substr(4)},  // "true branch"
                              {"graph", op.graphs[i].graph->className},
                              {"kernels", kernelsJson(op.graphs[i])},
                              {"subgraphs", subgraphsJson(op.graphs[i])}});
        ops.push_back({{"node", op.node}, {"graphs", graphs}});
    }
    return ops;
}

/// "cond: the true branch 1 kernels, the false branch 1 kernels" per subgraph op, nested ones indented.
void subgraphsText(const CudaCompiled& c, std::ostream& ts, int depth = 0) {
    for (const auto& op : c.subgraphOps) {
        ts << std::string(static_cast<size_t>(2 * depth), ' ') << "subgraph op " << op.node << " (compiled ahead): ";
        for (size_t i = 0; i < op.graphs.size(); ++i)
            ts << (i ? ", " : "") << cg::subgraphRole(op.isCond, i) << " " << op.graphs[i].prog->kernels.size()
               << " kernels";
        ts << "\n";
        for (const auto& g : op.graphs) subgraphsText(g, ts, depth + 1);
    }
}

/// --backend cuda: the pipeline's result lowered, fused and compiled with NVRTC, for the local
/// device (module loaded) or, with `arch`, to PTX/cubin without one. Fills j["backend"] and the
/// text report; writes module.cu and the PTX/cubin to dumpDir when given.
Status compileCuda(const Graph& g, const std::string& arch, const std::string& dumpDir, nlohmann::json& j,
                   std::string& text) {
    auto ins = cg::cuda::annotatedInputs(g);
    if (!ins.ok()) return ins.error();
    nlohmann::json jb;
    const cg::Program* prog = nullptr;
    const cg::cuda::CudaSource* src = nullptr;
    cg::cuda::CompileStats st;
    std::string target, image;
    bool cubin = false;
    std::map<std::string, int> fallbacks;
    std::unique_ptr<cg::cuda::CompiledGraph> dev;
    Expected<cg::cuda::SourceOnly> so = makeError("unused");
    if (arch.empty()) {
        auto c = cg::cuda::CompiledGraph::compile(g, *ins);
        if (!c.ok()) return c.error();
        dev = std::move(c).value();
        prog = &dev->program();
        src = &dev->source();
        st = dev->stats();
        target = dev->arch();
        fallbacks = dev->fallbackOps();
    } else {
        so = cg::cuda::compileSourceOnly(g, *ins, arch);
        if (!so.ok()) return so.error();
        prog = &so->program;
        src = &so->source;
        st = so->stats;
        target = arch;
        image = so->compiled.image;
        cubin = so->compiled.cubin;
        fallbacks = so->fallbacks;
    }
    jb["name"] = "cuda";
    jb["arch"] = target;
    jb["device"] = arch.empty();
    jb["compile_ms"] = st.totalMs;
    jb["lower_ms"] = st.lowerMs;
    jb["schedule_ms"] = st.scheduleMs;
    jb["codegen_ms"] = st.codegenMs;
    jb["nvrtc_ms"] = st.nvrtcMs;
    jb["load_ms"] = st.loadMs;
    jb["source_bytes"] = src->source.size();
    if (!arch.empty()) jb[cubin ? "cubin_bytes" : "ptx_bytes"] = image.size();
    // Ops the backend runs on the host through the reference kernel.
    jb["fallbacks"] = fallbacks;
    const CudaCompiled described = dev ? describeCompiled(*dev) : describeCompiled(*so);
    jb["kernels"] = kernelsJson(described);
    // Subgraph ops' subgraphs, each compiled as a graph of its own (run on the device, not the host).
    jb["subgraphs"] = subgraphsJson(described);
    if (!dumpDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dumpDir, ec);
        std::filesystem::path dir = dumpDir;
        if (auto s = writeText(dir / "module.cu", src->source); !s.ok()) return s;
        if (!image.empty())
            if (auto s = writeText(dir / (cubin ? "module.cubin" : "module.ptx"), image); !s.ok()) return s;
    }
    j["backend"] = jb;
    std::ostringstream ts;
    ts << "cuda backend (" << target << (arch.empty() ? ", local device" : ", no device needed")
       << "): " << prog->kernels.size() << " kernels, compiled in " << std::fixed << std::setprecision(1) << st.totalMs
       << " ms (lower " << st.lowerMs << ", schedule " << st.scheduleMs << ", codegen " << st.codegenMs << ", nvrtc "
       << st.nvrtcMs;
    if (arch.empty()) ts << ", load " << st.loadMs;
    ts << ")";
    if (!arch.empty()) ts << ", " << image.size() << " bytes of " << (cubin ? "cubin" : "PTX");
    ts << "\n" << cg::programSummary(*prog);
    subgraphsText(described, ts);
    std::string fb;
    for (const auto& [op, n] : fallbacks) fb += (fb.empty() ? "" : ", ") + op + " x" + std::to_string(n);
    ts << (fb.empty() ? "no fallback\n" : "fallback to the reference kernel (on the host): " + fb + "\n");
    text = ts.str();
    return Status::success();
}

}  // namespace

int cmdCompile(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(
        argv, {"--graph", "--pipeline", "--backend", "--dump-dir", "--out", "--skip", "--inputs", "--dynamo", "--arch"},
        {"--json", "--print-after-all", "--no-verify", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kCompileUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("compile takes one FILE"));
    std::string backend = a->get("--backend", "none");
#if defined(FXRAY_HAVE_CPU_BACKEND)
    const bool cpuBackend = backend == "cpu";
#else
    const bool cpuBackend = false;
#endif
    const bool cudaBackend = backend == "cuda";
    if (backend != "none" && !cpuBackend && !cudaBackend) {
        if (backend == "cpu")
            return reportError(err,
                               makeError("backend 'cpu' is not available in this build; use --backend none or cuda"));
        return reportError(err, makeError("unknown backend '" + backend + "' (none, cpu, cuda)"));
    }
    if (a->has("--arch") && !cudaBackend) return reportError(err, makeError("--arch is for --backend cuda"));
    const std::string arch = a->get("--arch");
    if (!arch.empty() && arch.rfind("compute_", 0) != 0 && arch.rfind("sm_", 0) != 0)
        return reportError(err, makeError("--arch takes compute_XX (PTX) or sm_XX (cubin), e.g. compute_90"));
    // Without --arch the code is built for the local device: say so before any work.
    if (cudaBackend && arch.empty())
        if (Status s = cg::cuda::requireDevice(); !s.ok()) {
            Diagnostic d = s.error();
            d.message += " (give --arch compute_90 to compile to PTX without a device)";
            return reportError(err, d);
        }
    std::string pipeline = a->get("--pipeline", "joint");
    PassManagerOptions opts;
    opts.verifyEach = !a->has("--no-verify");
    if (pipelinePasses(pipeline).empty()) {
        auto bad = buildPipeline(pipeline, opts);
        return reportError(err, bad.ok() ? makeError("unknown pipeline") : bad.error());
    }

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    // A Dynamo (torch-level) graph runs lowered to ATen, as `fxray run` runs it: the ATen-level
    // pipelines and the backends see that form. pre-grad works on torch-level graphs and
    // inductor lowers them itself.
    const bool lowerFirst = (*lg)->lowered && pipeline != "pre-grad" && pipeline != "inductor";
    Graph& g = lowerFirst ? *(*lg)->lowered : *(*lg)->graph;
    if (lowerFirst && !a->has("--json"))
        err << "fxray: note: " << a->positional[0] << " is a torch-level (Dynamo) graph: compiling it lowered to ATen\n";

    PipelineConfig cfg;
    if (pipeline == "freezing" && a->has("--inputs")) {
        auto fi = freezeInputsFor(g, a->positional[0], a->get("--inputs"), a->get("--dynamo"));
        if (!fi.ok()) return reportError(err, fi.error());
        cfg.freeze = std::make_shared<FreezeInputs>(std::move(fi).value());
    }
    auto pm = buildPipeline(pipeline, opts, cfg);
    if (!pm.ok()) return reportError(err, pm.error());
    std::set<std::string> skip;
    for (const auto& s : a->all("--skip")) {
        if (!(*pm)->find(s)) {
            std::string known;
            for (const auto& p : (*pm)->passes()) known += (known.empty() ? "" : ", ") + std::string(p->name());
            return reportError(
                err, makeError("--skip: pipeline '" + pipeline + "' has no pass '" + s + "' (" + known + ")"));
        }
        skip.insert(s);
    }
    if (!skip.empty()) (*pm)->addInstrumentation(std::make_unique<SkipPassesInstrumentation>(skip));
    if (a->has("--print-after-all")) {
        (*pm)->addInstrumentation(std::make_unique<PrintAfterAllInstrumentation>(
            [&out](const std::string& pass, const std::string& graph, const std::string& text) {
                out << "# ----- after " << pass << (graph.empty() ? "" : " (" + graph + ")") << " -----\n" << text;
            },
            false));
    }

    CompileTrace trace = (*pm)->run(g);

    nlohmann::json j = traceToJson(trace, false);
    j["graph"] = (*lg)->id;
    j["stage"] = (*lg)->stage;
    if (lowerFirst) j["lowered_to_aten"] = true;
    if (a->has("--dump-dir")) {
        std::filesystem::path dir = a->get("--dump-dir");
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) {
            Diagnostic d = makeError("cannot create the folder: " + ec.message());
            d.file = dir.string();
            return reportError(err, d);
        }
        std::vector<std::string> files;
        ConstantFiles constantFiles;  // the snapshots share the files of constants they share
        if (trace.initial) {
            if (auto s = writeText(dir / "00_input.py", trace.initial->text()); !s.ok())
                return reportError(err, s.error());
            if (trace.initial->graph)
                if (auto s = writeConstantsFolder(dir / "00_input.py", *trace.initial->graph, &constantFiles); !s.ok())
                    return reportError(err, s.error());
            files.push_back("00_input.py");
        }
        int idx = 0;
        for (const auto& p : trace.passes) {
            ++idx;
            if (!p.changed || !p.snapshot) continue;
            char prefix[16];
            std::snprintf(prefix, sizeof prefix, "%02d_", idx);
            std::string name = prefix + p.name + (p.graph.empty() ? "" : "." + fileSafe(p.graph)) + ".py";
            if (auto s = writeText(dir / name, p.snapshot->text()); !s.ok()) return reportError(err, s.error());
            if (p.snapshot->graph)
                if (auto s = writeConstantsFolder(dir / name, *p.snapshot->graph, &constantFiles); !s.ok())
                    return reportError(err, s.error());
            files.push_back(name);
        }
        nlohmann::json full = traceToJson(trace, true);
        full["graph"] = (*lg)->id;
        full["stage"] = (*lg)->stage;
        full["files"] = files;
        if (auto s = writeText(dir / "trace.json", full.dump(1) + "\n"); !s.ok()) return reportError(err, s.error());
        j["dump_dir"] = dir.string();
    }
    if (a->has("--out")) {
        if (auto s = writeGraphFile(a->get("--out"), g); !s.ok()) return reportError(err, s.error());
        j["out"] = a->get("--out");
    }

#if defined(FXRAY_HAVE_CPU_BACKEND)
    // --backend cpu: lower, fuse and JIT the pipeline's result (codegen/cpu/cpu_backend.h).
    std::string cpuText;
    if (cpuBackend) {
        auto ins = cg::cpu::CompiledGraph::annotatedInputs(g);
        if (!ins.ok()) return reportError(err, ins.error());
        auto cgE = cg::cpu::CompiledGraph::compile(g, *ins);
        if (!cgE.ok()) return reportError(err, cgE.error());
        const auto& cgr = **cgE;
        const cg::Program& prog = cgr.program();
        nlohmann::json jb;
        jb["compile_ms"] = cgr.stats().totalMs;
        jb["lower_ms"] = cgr.stats().lowerMs;
        jb["schedule_ms"] = cgr.stats().scheduleMs;
        jb["llvm_ms"] = cgr.stats().llvmMs;
        jb["target"] = cgr.jit().target();
        jb["fallbacks"] = cgr.fallbackOps();
        jb["kernels"] = nlohmann::json::array();
        for (const auto& k : prog.kernels)
            jb["kernels"].push_back({{"name", k.name}, {"nodes", k.nodes}, {"reduction", k.isReduction()}});
        jb["groups"] = nlohmann::json::array();
        for (const auto& gr : prog.groups) {
            nlohmann::json jg = {{"node", gr.node}, {"kind", std::string(cg::nodeGroupKindName(gr.kind))}};
            if (gr.kernel >= 0) jg["kernel"] = gr.kernel;
            if (!gr.kernelName.empty()) jg["name"] = gr.kernelName;
            jb["groups"].push_back(jg);
        }
        j["backend"] = jb;
        if (a->has("--dump-dir")) {
            std::filesystem::path dir = a->get("--dump-dir");
            for (size_t i = 0; i < prog.kernels.size(); ++i) {
                const auto& k = prog.kernels[i];
                if (auto s = writeText(dir / (k.name + ".txt"), cg::kernelToText(k)); !s.ok())
                    return reportError(err, s.error());
                if (auto s = writeText(dir / (k.name + ".ll"), cgr.jit().irText(i)); !s.ok())
                    return reportError(err, s.error());
            }
        }
        std::ostringstream ts;
        ts << "cpu backend: " << prog.kernels.size() << " kernels, compiled in " << std::fixed << std::setprecision(1)
           << cgr.stats().totalMs << " ms (lower " << cgr.stats().lowerMs << ", schedule " << cgr.stats().scheduleMs
           << ", llvm " << cgr.stats().llvmMs << ")\n";
        ts << cg::programSummary(prog);
        std::string fb;
        for (const auto& [op, n] : cgr.fallbackOps()) fb += (fb.empty() ? "" : ", ") + op + " x" + std::to_string(n);
        ts << (fb.empty() ? "no fallback\n" : "fallback to the reference kernel: " + fb + "\n");
        cpuText = ts.str();
    }
#endif
    std::string cudaText;
    if (cudaBackend) {
        if (Status s = compileCuda(g, arch, a->get("--dump-dir"), j, cudaText); !s.ok())
            return reportError(err, s.error());
    }
    if (a->has("--json")) {
        out << j.dump(1) << "\n";
    } else if (!a->has("--print-after-all")) {
        out << "pipeline " << pipeline << " on " << (*lg)->stage << ": " << trace.nodesBefore << " -> "
            << trace.nodesAfter << " nodes in " << std::fixed << std::setprecision(1) << trace.ms << " ms\n";
        for (const auto& p : trace.passes) {
            out << "  " << std::left << std::setw(44) << (p.graph.empty() ? p.name : p.name + " (" + p.graph + ")")
                << std::right;
            if (p.skipped) {
                out << "  skipped\n";
                continue;
            }
            out << std::setw(9) << std::setprecision(2) << p.ms << " ms  "
                << (p.failed    ? "FAILED "
                    : p.changed ? "changed"
                                : "-      ")
                << "  " << p.nodesBefore << " -> " << p.nodesAfter << " nodes";
            if (!p.matches.empty()) out << ", " << p.matches.size() << " match" << (p.matches.size() == 1 ? "" : "es");
            if (!p.nearMisses.empty())
                out << ", " << p.nearMisses.size() << " near-miss" << (p.nearMisses.size() == 1 ? "" : "es");
            out << "\n";
            if (p.failed) out << "    error: " << p.error << "\n";
        }
    }
#if defined(FXRAY_HAVE_CPU_BACKEND)
    if (!a->has("--json")) out << cpuText;
#endif
    if (!a->has("--json")) out << cudaText;
    for (const auto& fl : trace.failures) err << "fxray: pass '" << fl.pass << "' failed: " << fl.message << "\n";
    return trace.ok() ? Ok : CheckFailed;
}

}  // namespace fxray::cli
