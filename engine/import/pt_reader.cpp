#include "import/pt_reader.h"

#include <cstring>
#include <fstream>
#include <map>

namespace fxray {

const Tensor* PtContents::tensorOf(const PickleValue* v) const {
    auto it = tensors.find(v);
    return it == tensors.end() ? nullptr : &it->second;
}

namespace {

/// The folder of the archive that holds data.pkl: PyTorch names it after the file's stem, but
/// renamed files keep the old name, so it is looked up rather than derived.
std::optional<std::string> findRoot(const ZipArchive& zip) {
    for (const auto& m : zip.members()) {
        if (m == "data.pkl") return std::string();
        auto slash = m.find('/');
        if (slash != std::string::npos && m.compare(slash, std::string::npos, "/data.pkl") == 0)
            return m.substr(0, slash);
    }
    return std::nullopt;
}

void flattenInto(const PtContents& pt, const PickleValue* v, const std::string& prefix, StateDict& out, int depth) {
    if (!v || depth > 512) return;  // depth is already bounded by the pickle reader
    auto join = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
    switch (v->kind) {
    case PickleValue::Kind::Tensor:
        if (const Tensor* t = pt.tensorOf(v)) out.push_back({prefix.empty() ? "tensor" : prefix, *t});
        break;
    case PickleValue::Kind::Dict:
        for (const auto& [k, x] : v->entries) {
            std::string key = k->kind == PickleValue::Kind::String ? k->s
                              : k->kind == PickleValue::Kind::Int  ? std::to_string(k->i)
                                                                   : std::string("?");
            flattenInto(pt, x, join(key), out, depth + 1);
        }
        break;
    case PickleValue::Kind::Tuple:
    case PickleValue::Kind::List:
        for (size_t i = 0; i < v->items.size(); ++i)
            flattenInto(pt, v->items[i], join(std::to_string(i)), out, depth + 1);
        break;
    default: break;
    }
}

}  // namespace

Expected<PtContents> readPtContents(const ZipArchive& zip, std::string root, const PickleOptions& opts) {
    if (root.empty()) {
        auto r = findRoot(zip);
        if (!r) return zip.error("not a torch.save archive: no data.pkl member");
        root = *r;
    }
    const std::string prefix = root.empty() ? std::string() : root + "/";
    if (zip.contains(prefix + "byteorder")) {
        auto bo = zip.read(prefix + "byteorder", 64);
        if (!bo.ok()) return bo.error();
        if (*bo != "little")
            return zip.error("byte order '" + *bo + "' is not supported (only little-endian files)",
                             prefix + "byteorder");
    }
    const std::string pklName = prefix + "data.pkl";
    auto pkl = zip.read(pklName, uint64_t(1) << 30);
    if (!pkl.ok()) return pkl.error();
    PtContents pt;
    pt.what = zip.name();
    auto res = unpickle(*pkl, zip.name() + ":" + pklName, opts);
    if (!res.ok()) return res.error();
    pt.pickle = std::move(res).value();

    // Load each storage once; tensors are views into it.
    std::map<std::string, std::shared_ptr<Storage>> storages;
    for (const auto& up : pt.pickle.arena) {
        const PickleValue* v = up.get();
        if (v->kind != PickleValue::Kind::Tensor) continue;
        const PickleValue* s = v->storage;
        auto it = storages.find(s->s);
        if (it == storages.end()) {
            const std::string member = prefix + "data/" + s->s;
            const uint64_t item = static_cast<uint64_t>(dtypeItemSize(s->dtype));
            if (static_cast<uint64_t>(s->numel) > (uint64_t(1) << 62) / item)
                return zip.error("storage '" + s->s + "' declares an impossible size", member);
            const uint64_t want = static_cast<uint64_t>(s->numel) * item;
            auto have = zip.memberSize(member);
            if (!have) return zip.error("storage '" + s->s + "' is missing from the archive", member);
            if (*have < want)
                return zip.error("holds " + std::to_string(*have) + " bytes, the pickle needs " + std::to_string(want),
                                 member);
            auto bytes = zip.read(member, want);
            if (!bytes.ok()) return bytes.error();
            auto st = std::make_shared<Storage>(static_cast<size_t>(want));
            if (want) std::memcpy(st->data(), bytes->data(), static_cast<size_t>(want));
            it = storages.emplace(s->s, std::move(st)).first;
        }
        Tensor t;
        t.meta = v->meta;
        t.storage = it->second;
        pt.tensors.emplace(v, std::move(t));
    }
    return pt;
}

Expected<PtContents> readPtContentsFile(const std::filesystem::path& path, const PickleOptions& opts) {
    std::ifstream f(path, std::ios::binary);
    char magic[4] = {0, 0, 0, 0};
    if (f) f.read(magic, 4);
    if (f && f.gcount() == 4 && std::memcmp(magic, "PK\x03\x04", 4) != 0) {
        Diagnostic d =
            makeError(static_cast<unsigned char>(magic[0]) == 0x80
                          ? "legacy (non-zip) torch.save format is not supported; re-save with PyTorch >= 1.6"
                          : "not a torch.save zip archive");
        d.file = path.string();
        return d;
    }
    auto zip = ZipArchive::open(path);
    if (!zip.ok()) return zip.error();
    return readPtContents(*zip, {}, opts);
}

StateDict flattenTensors(const PtContents& pt, const PickleValue* v) {
    StateDict out;
    flattenInto(pt, v, "", out, 0);
    return out;
}

Expected<StateDict> readPt(const std::filesystem::path& path) {
    auto pt = readPtContentsFile(path);
    if (!pt.ok()) return pt.error();
    return flattenTensors(*pt, pt->root());
}

Expected<StateDict> readPtArchive(const ZipArchive& zip, std::string root) {
    auto pt = readPtContents(zip, std::move(root));
    if (!pt.ok()) return pt.error();
    return flattenTensors(*pt, pt->root());
}

}  // namespace fxray
