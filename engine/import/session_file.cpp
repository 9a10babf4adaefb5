#include "import/session_file.h"

#include "exec/ops/kernel_util.h"
#include "import/fx_text_reader.h"
#include "import/npy.h"
#include "import/zip_archive.h"
#include "import/zip_writer.h"
#include "ir/printer.h"

#include <nlohmann/json.hpp>

#include <functional>

namespace fxray {

using json = nlohmann::json;

namespace {

/// Calls f(path, graph) for g and every subgraph below it ("" for g, "a/b" below).
void forEachGraph(const Graph& g, const std::string& path,
                  const std::function<void(const std::string&, const Graph&)>& f) {
    f(path, g);
    for (const auto& [name, sub] : g.subgraphs()) forEachGraph(*sub, path.empty() ? name : path + "/" + name, f);
}

Graph* subgraphAt(Graph& g, const std::string& path) {
    if (path.empty()) return &g;
    auto slash = path.find('/');
    std::string head = path.substr(0, slash);
    for (auto& [name, sub] : g.subgraphs())
        if (name == head) return slash == std::string::npos ? sub.get() : subgraphAt(*sub, path.substr(slash + 1));
    return nullptr;
}

json specToJson(const InputSpec& s) {
    json j{{"name", s.name}};
    if (s.isSymInt)
        j["symint"] = s.symValue;
    else
        j["tensor"] = s.meta.annotation();
    if (s.requiresGrad) j["requires_grad"] = true;
    return j;
}

json stateToJson(const SessionState& s) {
    return json{{"graph", s.graph},
                {"pipeline", s.pipeline},
                {"pass", s.passIndex},
                {"selection", s.selection},
                {"memory_budget", s.memoryBudget},
                {"skip", s.skippedPasses},
                {"node_notes", s.nodeNotes},
                {"view", s.view}};
}

/// Reads the fields it knows; wrong types are ignored (the state is a convenience, not data).
SessionState stateFromJson(const json& j) {
    SessionState s;
    if (!j.is_object()) return s;
    auto str = [&](const char* k, std::string& out) {
        auto it = j.find(k);
        if (it != j.end() && it->is_string()) out = it->get<std::string>();
    };
    auto strList = [&](const char* k, std::vector<std::string>& out) {
        auto it = j.find(k);
        if (it == j.end() || !it->is_array()) return;
        for (const auto& e : *it)
            if (e.is_string()) out.push_back(e.get<std::string>());
    };
    auto strMap = [&](const char* k, std::map<std::string, std::string>& out) {
        auto it = j.find(k);
        if (it == j.end() || !it->is_object()) return;
        for (const auto& [key, v] : it->items())
            if (v.is_string()) out[key] = v.get<std::string>();
    };
    str("graph", s.graph);
    str("pipeline", s.pipeline);
    if (auto it = j.find("pass"); it != j.end() && it->is_number_integer()) s.passIndex = it->get<int>();
    if (auto it = j.find("memory_budget"); it != j.end() && it->is_number()) {
        double b = it->get<double>();
        if (b >= 0.0 && b <= 1.0) s.memoryBudget = b;
    }
    strList("selection", s.selection);
    strList("skip", s.skippedPasses);
    strMap("node_notes", s.nodeNotes);
    strMap("view", s.view);
    return s;
}

Diagnostic sessionError(const std::filesystem::path& p, const std::string& member, const std::string& msg) {
    Diagnostic d = makeError(member.empty() ? msg : member + ": " + msg);
    d.file = p.string();
    return d;
}

}  // namespace

Status saveSession(const std::filesystem::path& path, const LoadedFile& file, const SessionState& state) {
    ZipWriter zip;
    json graphs = json::array();
    for (size_t k = 0; k < file.graphs.size(); ++k) {
        const LoadedGraph& lg = file.graphs[k];
        const std::string member = "graphs/" + std::to_string(k) + ".py";
        zip.add(member, printGraph(*lg.graph));
        json jg{
            {"id", lg.id}, {"stage", lg.stage}, {"compile_id", lg.compileId}, {"file", member}, {"notes", lg.notes}};
        json specs = json::array();
        for (const auto& s : lg.inputSpecs) specs.push_back(specToJson(s));
        jg["inputs"] = std::move(specs);
        json consts = json::array();
        size_t n = 0;
        forEachGraph(*lg.graph, "", [&](const std::string& sub, const Graph& g) {
            for (const auto& [name, t] : g.constants) {
                const std::string cm = "constants/" + std::to_string(k) + "/" + std::to_string(n++) + ".npy";
                zip.add(cm, encodeNpy(t));
                consts.push_back(json{{"name", name},
                                      {"graph", sub},
                                      {"file", cm},
                                      {"dtype", std::string(dtypeTorchName(t.dtype()))},
                                      {"shape", t.shape()},
                                      {"strides", t.meta.strides},
                                      {"offset", t.meta.offset}});
            }
        });
        jg["constants"] = std::move(consts);
        graphs.push_back(std::move(jg));
    }
    json arts = json::array();
    for (size_t k = 0; k < file.artifacts.size(); ++k) {
        const Artifact& a = file.artifacts[k];
        const std::string member = "artifacts/" + std::to_string(k) + ".txt";
        zip.add(member, a.text);
        arts.push_back(json{{"compile_id", a.compileId}, {"name", a.name}, {"encoding", a.encoding}, {"file", member}});
    }
    json top{{"format", "fxray-session"},   {"version", kSessionVersion},
             {"fxray", FXRAY_VERSION},      {"source", {{"path", file.path.string()}, {"format", file.format}}},
             {"graphs", std::move(graphs)}, {"artifacts", std::move(arts)},
             {"warnings", file.warnings},   {"state", stateToJson(state)}};
    // First member, so a reader (and `unzip -l`) sees at once what the archive is.
    zip.prepend("session.json", top.dump(1));
    return zip.write(path);
}

bool isSessionFile(const std::filesystem::path& path) {
    auto z = ZipArchive::open(path);
    return z.ok() && z->contains("session.json");
}

namespace {

Expected<LoadedSession> readSession(const ZipArchive* z, const std::filesystem::path& path) {
    if (!z->contains("session.json")) return sessionError(path, "", "not an fxray session (no session.json member)");
    auto text = z->read("session.json", uint64_t(256) << 20);
    if (!text.ok()) return text.error();
    json top = json::parse(*text, nullptr, false);
    if (top.is_discarded() || !top.is_object()) return sessionError(path, "session.json", "not valid JSON");
    if (top.value("format", std::string()) != "fxray-session")
        return sessionError(path, "session.json", "\"format\" is not \"fxray-session\"");
    auto ver = top.find("version");
    if (ver == top.end() || !ver->is_number_integer()) return sessionError(path, "session.json", "missing \"version\"");
    if (ver->get<int>() > kSessionVersion || ver->get<int>() < 1)
        return sessionError(path, "session.json",
                            "session format version " + std::to_string(ver->get<int>()) +
                                " is not supported by this fxray (it reads version " + std::to_string(kSessionVersion) +
                                "); update fxray");
    LoadedSession out;
    out.file.path = path;
    out.file.format = "session";
    if (auto src = top.find("source"); src != top.end() && src->is_object()) {
        out.sourcePath = src->value("path", std::string());
        out.sourceFormat = src->value("format", std::string());
    }
    auto graphs = top.find("graphs");
    if (graphs == top.end() || !graphs->is_array())
        return sessionError(path, "session.json", "missing \"graphs\" list");
    for (size_t k = 0; k < graphs->size(); ++k) {
        const json& jg = (*graphs)[k];
        const std::string where = "graphs[" + std::to_string(k) + "]";
        if (!jg.is_object() || !jg.contains("file") || !jg["file"].is_string())
            return sessionError(path, "session.json", where + " has no \"file\"");
        const std::string member = jg["file"].get<std::string>();
        auto src = z->read(member, uint64_t(1) << 30);
        if (!src.ok()) return src.error();
        auto g = readFxText(*src, path.string() + "!" + member);
        if (!g.ok()) return g.error();
        LoadedGraph lg;
        lg.id = jg.value("id", std::to_string(k));
        lg.stage = jg.value("stage", std::string());
        lg.compileId = jg.value("compile_id", std::string());
        lg.graph = std::move(g).value();
        lg.graph->sourceFile = path.string() + "!" + member;
        if (auto notes = jg.find("notes"); notes != jg.end() && notes->is_array())
            for (const auto& nt : *notes)
                if (nt.is_string()) lg.notes.push_back(nt.get<std::string>());
        if (auto consts = jg.find("constants"); consts != jg.end() && consts->is_array()) {
            for (const auto& jc : *consts) {
                if (!jc.is_object() || !jc.contains("file") || !jc["file"].is_string() || !jc.contains("name"))
                    return sessionError(path, "session.json", where + ": a constant without \"name\"/\"file\"");
                const std::string cm = jc["file"].get<std::string>();
                auto bytes = z->read(cm);
                if (!bytes.ok()) return bytes.error();
                auto t = parseNpy(*bytes, path.string() + "!" + cm);
                if (!t.ok()) return t.error();
                // Restore what .npy cannot say: bf16 and the original strides/offset.
                TensorMeta m = t->meta;
                if (auto dt = dtypeFromTorchName(jc.value("dtype", std::string()))) m.dtype = *dt;
                auto strides = jc.value("strides", std::vector<int64_t>());
                int64_t offset = jc.value("offset", int64_t(0));
                if (strides.size() == m.shape.size() && offset >= 0) {
                    m.strides = strides;
                    m.offset = offset;
                }
                Tensor restored = m.dtype == t->meta.dtype && m.strides == t->meta.strides && m.offset == 0
                                      ? *t
                                      : kern::makeTensor(m, kern::toDoubles(*t));
                Graph* owner = subgraphAt(*lg.graph, jc.value("graph", std::string()));
                if (!owner) return sessionError(path, cm, "constant of an unknown subgraph");
                owner->constants[jc["name"].get<std::string>()] = std::move(restored);
            }
        }
        if (auto specs = jg.find("inputs"); specs != jg.end() && specs->is_array()) {
            for (const auto& js : *specs) {
                if (!js.is_object()) continue;
                InputSpec s;
                s.name = js.value("name", std::string());
                if (js.contains("symint") && js["symint"].is_number_integer()) {
                    s.isSymInt = true;
                    s.symValue = js["symint"].get<int64_t>();
                } else if (auto m = parseAnnotation(js.value("tensor", std::string()))) {
                    s.meta = *m;
                } else {
                    return sessionError(path, "session.json",
                                        where + ": input spec '" + s.name + "' has no valid \"tensor\"");
                }
                s.requiresGrad = js.value("requires_grad", false);
                lg.inputSpecs.push_back(std::move(s));
            }
        }
        finishGraph(lg);
        out.file.graphs.push_back(std::move(lg));
    }
    if (auto arts = top.find("artifacts"); arts != top.end() && arts->is_array()) {
        for (const auto& ja : *arts) {
            if (!ja.is_object() || !ja.contains("file") || !ja["file"].is_string()) continue;
            auto bytes = z->read(ja["file"].get<std::string>());
            if (!bytes.ok()) return bytes.error();
            Artifact a;
            a.compileId = ja.value("compile_id", std::string());
            a.name = ja.value("name", std::string());
            a.encoding = ja.value("encoding", std::string("string"));
            a.text = std::move(*bytes);
            out.file.artifacts.push_back(std::move(a));
        }
    }
    if (auto w = top.find("warnings"); w != top.end() && w->is_array())
        for (const auto& e : *w)
            if (e.is_string()) out.file.warnings.push_back(e.get<std::string>());
    out.state = stateFromJson(top.value("state", json::object()));
    return out;
}

}  // namespace

Expected<LoadedSession> loadSession(const std::filesystem::path& path) {
    auto z = ZipArchive::open(path);
    if (!z.ok()) return z.error();
    return readSession(&*z, path);
}

Expected<LoadedSession> loadSessionBuffer(std::string bytes, const std::string& name) {
    auto z = ZipArchive::openBuffer(std::move(bytes), name);
    if (!z.ok()) return z.error();
    return readSession(&*z, name);
}

}  // namespace fxray
