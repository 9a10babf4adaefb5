#include "import/pickle.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace fxray {

const PickleValue* PickleValue::get(std::string_view key) const {
    for (const auto& [k, v] : entries)
        if (k && k->kind == Kind::String && k->s == key) return v;
    return nullptr;
}

std::optional<DType> dtypeFromStorageClass(std::string_view name) {
    if (name.rfind("torch.", 0) == 0) name.remove_prefix(6);
    static const std::pair<const char*, DType> table[] = {
        {"FloatStorage", DType::Float32},
        {"DoubleStorage", DType::Float64},
        {"HalfStorage", DType::Float16},
        {"BFloat16Storage", DType::BFloat16},
        {"LongStorage", DType::Int64},
        {"IntStorage", DType::Int32},
        {"ShortStorage", DType::Int16},
        {"CharStorage", DType::Int8},
        {"ByteStorage", DType::UInt8},
        {"BoolStorage", DType::Bool},
        {"ComplexFloatStorage", DType::Complex64},
        {"ComplexDoubleStorage", DType::Complex128},
        {"UntypedStorage", DType::UInt8},
        {"storage.UntypedStorage", DType::UInt8},
    };
    for (auto& [k, v] : table)
        if (name == k) return v;
    return std::nullopt;
}

namespace {

using V = PickleValue;
using K = PickleValue::Kind;

// Names the reader understands. Anything else is refused at the GLOBAL opcode.
constexpr std::string_view kRebuildV2 = "torch._utils._rebuild_tensor_v2";
constexpr std::string_view kRebuildV1 = "torch._utils._rebuild_tensor";
constexpr std::string_view kRebuildParam = "torch._utils._rebuild_parameter";
constexpr std::string_view kOrderedDict = "collections.OrderedDict";
constexpr std::string_view kDevice = "torch.device";
constexpr std::string_view kSize = "torch.Size";
constexpr std::string_view kReduceGraphModule = "torch.fx.graph_module.reduce_graph_module";
constexpr std::string_view kSet = "builtins.set";

constexpr int kMaxDims = 64;  // PyTorch's own limit on tensor rank

class Machine {
public:
    Machine(std::string_view bytes, const std::string& what, const PickleOptions& opts)
            : m_in(bytes), m_what(what), m_opts(opts) {}

    Expected<PickleResult> run() {
        while (true) {
            if (m_pos >= m_in.size()) return fail("truncated pickle: no STOP opcode", m_pos);
            m_op = m_pos;
            uint8_t op = static_cast<uint8_t>(m_in[m_pos++]);
            if (op == '.') break;  // STOP
            if (!step(op)) return std::move(*m_err);
        }
        if (m_stack.size() != 1 || !m_marks.empty())
            return fail("malformed pickle: STOP with " + std::to_string(m_stack.size()) + " values on the stack", m_op);
        if (!checkShape(m_stack.back())) return std::move(*m_err);
        PickleResult r;
        r.root = m_stack.back();
        r.arena = std::move(m_arena);
        return r;
    }

private:
    // ---- errors and input ----
    Diagnostic makeDiag(const std::string& msg, size_t at) const {
        Diagnostic d = makeError(msg + " at byte " + std::to_string(at));
        d.file = m_what;
        return d;
    }
    Diagnostic fail(const std::string& msg, size_t at) const { return makeDiag(msg, at); }
    bool err(const std::string& msg) {
        m_err = makeDiag(msg, m_op);
        return false;
    }
    bool need(size_t n) {
        if (m_in.size() - m_pos < n)
            return err("truncated pickle: opcode needs " + std::to_string(n) + " more bytes, " +
                       std::to_string(m_in.size() - m_pos) + " left");
        return true;
    }
    uint64_t readLE(size_t n) {
        uint64_t v = 0;
        for (size_t k = 0; k < n; ++k) v |= uint64_t(static_cast<uint8_t>(m_in[m_pos + k])) << (8 * k);
        m_pos += n;
        return v;
    }
    bool readLine(std::string& out) {
        // GLOBAL's module and name: short newline-terminated lines.
        size_t nl = m_in.find('\n', m_pos);
        if (nl == std::string_view::npos || nl - m_pos > 512) return err("truncated or overlong GLOBAL name");
        out.assign(m_in.substr(m_pos, nl - m_pos));
        m_pos = nl + 1;
        return true;
    }

    // ---- values ----
    V* make(K k) {
        if (m_arena.size() >= m_opts.maxObjects) return nullptr;
        m_arena.push_back(std::make_unique<V>());
        m_arena.back()->kind = k;
        return m_arena.back().get();
    }
    bool push(V* v) {
        if (!v) return err("pickle creates more than " + std::to_string(m_opts.maxObjects) + " objects");
        if (m_stack.size() >= m_opts.maxStack)
            return err("pickle stack deeper than " + std::to_string(m_opts.maxStack));
        m_stack.push_back(v);
        return true;
    }
    bool pop(V*& out) {
        size_t floor = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() <= floor) return err("malformed pickle: stack underflow");
        out = m_stack.back();
        m_stack.pop_back();
        return true;
    }
    bool top(V*& out) {
        size_t floor = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() <= floor) return err("malformed pickle: stack underflow");
        out = m_stack.back();
        return true;
    }
    /// Pops everything above the last MARK, and the mark.
    bool popMark(std::vector<V*>& out) {
        if (m_marks.empty()) return err("malformed pickle: no MARK");
        size_t m = m_marks.back();
        m_marks.pop_back();
        out.assign(m_stack.begin() + static_cast<std::ptrdiff_t>(m), m_stack.end());
        m_stack.resize(m);
        return true;
    }
    bool pushInt(int64_t v) {
        V* x = make(K::Int);
        if (x) x->i = v;
        return push(x);
    }
    bool pushString(K k, size_t n) {
        if (!need(n)) return false;
        V* x = make(k);
        if (x) x->s.assign(m_in.substr(m_pos, n));
        m_pos += n;
        return push(x);
    }
    bool memoPut(uint64_t idx) {
        if (m_stack.empty()) return err("malformed pickle: memoize with empty stack");
        if (m_memo.size() >= m_opts.maxMemo && !m_memo.count(idx))
            return err("pickle memo larger than " + std::to_string(m_opts.maxMemo));
        m_memo[idx] = m_stack.back();
        return true;
    }
    bool memoGet(uint64_t idx) {
        auto it = m_memo.find(idx);
        if (it == m_memo.end()) return err("malformed pickle: memo key " + std::to_string(idx) + " not defined");
        return push(it->second);
    }
    bool tupleOf(std::vector<V*> items) {
        V* t = make(K::Tuple);
        if (t) t->items = std::move(items);
        return push(t);
    }
    bool setItem(V* dict, V* key, V* value) {
        if (dict->kind != K::Dict) return err("malformed pickle: SETITEM on a non-dict");
        if (key->kind == K::String || key->kind == K::Int) {
            for (auto& [k, v] : dict->entries)
                if (k->kind == key->kind && k->s == key->s && k->i == key->i) {
                    v = value;
                    return true;
                }
        }
        dict->entries.emplace_back(key, value);
        return true;
    }

    // ---- globals and calls ----
    bool global(std::string module, const std::string& name) {
        if (module == "__builtin__") module = "builtins";  // protocol 2 writes Python 2 names
        std::string full = module + "." + name;
        bool ok = full == kRebuildV2 || full == kRebuildV1 || full == kRebuildParam || full == kOrderedDict ||
                  full == kDevice || full == kSize;
        if (module == "torch" && (dtypeFromStorageClass(name) || dtypeFromTorchName(name))) ok = true;
        if (full == "torch.storage.UntypedStorage") ok = true;
        if (m_opts.allowGraphModule && (full == kReduceGraphModule || full == kSet)) ok = true;
        if (!ok) {
            Diagnostic d = makeError("refusing to load global '" + full + "' at byte " + std::to_string(m_op) +
                                     ": only tensor data is read from PyTorch files, nothing is executed");
            d.file = m_what;
            m_err = std::move(d);
            return false;
        }
        V* g = nullptr;
        if (module == "torch" && !dtypeFromStorageClass(name) && dtypeFromTorchName(name)) {
            g = make(K::DType);
            if (g) g->dtype = *dtypeFromTorchName(name);
        } else {
            g = make(K::Global);
            if (g) g->s = full;
        }
        return push(g);
    }

    static bool asInt(const V* v, int64_t& out) {
        if (v->kind == K::Int) {
            out = v->i;
            return true;
        }
        if (v->kind == K::Bool) {
            out = v->b ? 1 : 0;
            return true;
        }
        return false;
    }
    bool intList(const V* v, std::vector<int64_t>& out, const char* what) {
        if (!v->isSequence()) return err(std::string("tensor ") + what + " is not a tuple");
        if (v->items.size() > kMaxDims) return err(std::string("tensor ") + what + " has more than 64 dimensions");
        out.clear();
        for (const V* x : v->items) {
            int64_t n;
            if (!asInt(x, n) || n < 0) return err(std::string("tensor ") + what + " must be non-negative integers");
            out.push_back(n);
        }
        return true;
    }

    bool rebuildTensor(const std::vector<V*>& a, bool v2) {
        if (a.size() < 4 || (v2 && a.size() > 7))
            return err("_rebuild_tensor called with " + std::to_string(a.size()) + " arguments");
        const V* storage = a[0];
        if (storage->kind != K::Storage) return err("_rebuild_tensor's first argument is not a storage");
        int64_t offset;
        if (!asInt(a[1], offset) || offset < 0) return err("tensor storage offset must be a non-negative integer");
        std::vector<int64_t> sizes, strides;
        if (!intList(a[2], sizes, "size") || !intList(a[3], strides, "stride")) return false;
        if (sizes.size() != strides.size()) return err("tensor size and stride have different lengths");
        // Elements the view spans, computed without overflow: every term is checked against the
        // storage, whose element count is itself bounded by its member's byte size later.
        constexpr int64_t kLimit = int64_t(1) << 62;
        int64_t numel = 1, extent = 0;
        for (size_t d = 0; d < sizes.size(); ++d) {
            if (sizes[d] == 0) {
                numel = 0;
                continue;
            }
            if (numel > kLimit / sizes[d]) return err("tensor size overflows");
            numel *= sizes[d];
            if (strides[d] > 0 && (sizes[d] - 1) > (kLimit - extent) / strides[d])
                return err("tensor stride overflows");
            extent += (sizes[d] - 1) * strides[d];
        }
        if (numel > 0 && (offset > kLimit - extent - 1 || offset + extent + 1 > storage->numel))
            return err("tensor of size " + std::to_string(numel) + " at offset " + std::to_string(offset) +
                       " reaches beyond its storage of " + std::to_string(storage->numel) + " elements");
        V* t = make(K::Tensor);
        if (!t) return push(nullptr);
        t->storage = const_cast<V*>(storage);
        t->dtype = storage->dtype;
        t->meta.dtype = storage->dtype;
        t->meta.shape = std::move(sizes);
        t->meta.strides = std::move(strides);
        t->meta.offset = offset;
        if (auto dev = parseDevice(storage->location)) t->meta.device = *dev;
        if (v2 && a.size() > 4 && a[4]->kind == K::Bool) t->requiresGrad = a[4]->b;
        return push(t);
    }

    bool call(V* fn, V* args) {
        if (fn->kind != K::Global) return err("malformed pickle: REDUCE on a value that is not a callable global");
        if (args->kind != K::Tuple) return err("malformed pickle: REDUCE arguments are not a tuple");
        const auto& a = args->items;
        const std::string& name = fn->s;
        if (name == kRebuildV2 || name == kRebuildV1) return rebuildTensor(a, name == kRebuildV2);
        if (name == kRebuildParam) {
            if (a.empty() || a[0]->kind != K::Tensor) return err("_rebuild_parameter of a non-tensor");
            V* t = make(K::Tensor);
            if (!t) return push(nullptr);
            *t = *a[0];
            if (a.size() > 1 && a[1]->kind == K::Bool) t->requiresGrad = a[1]->b;
            return push(t);
        }
        if (name == kOrderedDict) {
            V* d = make(K::Dict);
            if (!d) return push(nullptr);
            if (!a.empty()) {
                if (!a[0]->isSequence()) return err("OrderedDict argument is not a list of pairs");
                for (V* p : a[0]->items) {
                    if (!p->isSequence() || p->items.size() != 2)
                        return err("OrderedDict argument is not a list of pairs");
                    if (!setItem(d, p->items[0], p->items[1])) return false;
                }
            }
            return push(d);
        }
        if (name == kDevice) {
            if (a.empty() || a[0]->kind != K::String) return err("torch.device without a type string");
            V* s = make(K::String);
            if (!s) return push(nullptr);
            s->s = a[0]->s;
            if (a.size() > 1 && a[1]->kind == K::Int) s->s += ":" + std::to_string(a[1]->i);
            return push(s);
        }
        if (name == kSize) {
            if (a.size() != 1 || !a[0]->isSequence()) return err("torch.Size without a tuple");
            return tupleOf(a[0]->items);
        }
        if (name == kSet) {
            V* s = make(K::Set);
            if (!s) return push(nullptr);
            if (!a.empty() && a[0]->isSequence()) s->items = a[0]->items;
            return push(s);
        }
        if (name == kReduceGraphModule) {
            if (a.empty() || a[0]->kind != K::Dict) return err("reduce_graph_module without an attribute dict");
            V* g = make(K::GraphModule);
            if (!g) return push(nullptr);
            g->items = a;
            return push(g);
        }
        return err("cannot call '" + name + "'");
    }

    bool persistentId(V* pid) {
        // ('storage', storage_type, key, location, numel)
        if (pid->kind != K::Tuple || pid->items.size() != 5 || pid->items[0]->kind != K::String ||
            pid->items[0]->s != "storage")
            return err("unsupported persistent id (expected ('storage', type, key, location, numel))");
        const auto& it = pid->items;
        std::optional<DType> dt;
        if (it[1]->kind == K::Global)
            dt = dtypeFromStorageClass(it[1]->s);
        else if (it[1]->kind == K::DType)
            dt = it[1]->dtype;
        if (!dt) return err("persistent id names an unknown storage type");
        if (it[2]->kind != K::String || it[3]->kind != K::String || it[4]->kind != K::Int || it[4]->i < 0)
            return err("malformed storage persistent id");
        V* s = make(K::Storage);
        if (!s) return push(nullptr);
        s->dtype = *dt;
        s->s = it[2]->s;
        s->location = it[3]->s;
        s->numel = it[4]->i;
        return push(s);
    }

    // ---- the interpreter loop body ----
    bool step(uint8_t op) {
        V* a = nullptr;
        V* b = nullptr;
        V* c = nullptr;
        std::vector<V*> items;
        switch (op) {
        case 0x80:  // PROTO
            if (!need(1)) return false;
            if (static_cast<uint8_t>(m_in[m_pos]) > 5)
                return err("unsupported pickle protocol " + std::to_string(uint8_t(m_in[m_pos])));
            m_pos += 1;
            return true;
        case 0x95:  // FRAME: a length hint only
            if (!need(8)) return false;
            m_pos += 8;
            return true;
        case '(':  // MARK
            if (m_marks.size() >= m_opts.maxStack) return err("too many MARKs");
            m_marks.push_back(m_stack.size());
            return true;
        case '}': return push(make(K::Dict));
        case ']': return push(make(K::List));
        case ')': return push(make(K::Tuple));
        case 0x8f: return push(make(K::Set));  // EMPTY_SET
        case 'N': return push(make(K::None));
        case 0x88:
        case 0x89: {  // NEWTRUE / NEWFALSE
            V* x = make(K::Bool);
            if (x) x->b = op == 0x88;
            return push(x);
        }
        case 'J':
            if (!need(4)) return false;
            return pushInt(static_cast<int32_t>(readLE(4)));
        case 'K':
            if (!need(1)) return false;
            return pushInt(static_cast<int64_t>(readLE(1)));
        case 'M':
            if (!need(2)) return false;
            return pushInt(static_cast<int64_t>(readLE(2)));
        case 0x8a:
        case 0x8b: {  // LONG1 / LONG4: little-endian two's complement
            size_t w = op == 0x8a ? 1 : 4;
            if (!need(w)) return false;
            uint64_t n = readLE(w);
            if (n > 8) return err("integer wider than 64 bits");
            if (!need(n)) return false;
            uint64_t v = readLE(n);
            if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
            return pushInt(static_cast<int64_t>(v));
        }
        case 'G': {  // BINFLOAT: big-endian double
            if (!need(8)) return false;
            uint64_t bits = 0;
            for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(m_in[m_pos + k]);
            m_pos += 8;
            V* x = make(K::Float);
            if (x) std::memcpy(&x->f, &bits, 8);
            return push(x);
        }
        case 0x8c:
            if (!need(1)) return false;
            return pushString(K::String, readLE(1));  // SHORT_BINUNICODE
        case 'X':
            if (!need(4)) return false;
            return pushString(K::String, readLE(4));  // BINUNICODE
        case 0x8d:
            if (!need(8)) return false;
            return pushString(K::String, readLE(8));  // BINUNICODE8
        case 'U':
            if (!need(1)) return false;
            return pushString(K::String, readLE(1));  // SHORT_BINSTRING
        case 'T':
            if (!need(4)) return false;
            return pushString(K::String, readLE(4));  // BINSTRING
        case 'C':
            if (!need(1)) return false;
            return pushString(K::Bytes, readLE(1));  // SHORT_BINBYTES
        case 'B':
            if (!need(4)) return false;
            return pushString(K::Bytes, readLE(4));  // BINBYTES
        case 0x8e:
            if (!need(8)) return false;
            return pushString(K::Bytes, readLE(8));  // BINBYTES8
        case 'q':
            if (!need(1)) return false;
            return memoPut(readLE(1));  // BINPUT
        case 'r':
            if (!need(4)) return false;
            return memoPut(readLE(4));             // LONG_BINPUT
        case 0x94: return memoPut(m_memo.size());  // MEMOIZE
        case 'h':
            if (!need(1)) return false;
            return memoGet(readLE(1));  // BINGET
        case 'j':
            if (!need(4)) return false;
            return memoGet(readLE(4));  // LONG_BINGET
        case 't':                       // TUPLE
            if (!popMark(items)) return false;
            return tupleOf(std::move(items));
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1..3
            size_t n = op - 0x84;
            items.resize(n);
            for (size_t k = n; k-- > 0;)
                if (!pop(items[k])) return false;
            return tupleOf(std::move(items));
        }
        case 'l': {  // LIST
            if (!popMark(items)) return false;
            V* l = make(K::List);
            if (l) l->items = std::move(items);
            return push(l);
        }
        case 'd': {  // DICT
            if (!popMark(items)) return false;
            if (items.size() % 2) return err("malformed pickle: DICT with an odd number of items");
            V* d = make(K::Dict);
            if (!d) return push(nullptr);
            for (size_t k = 0; k < items.size(); k += 2)
                if (!setItem(d, items[k], items[k + 1])) return false;
            return push(d);
        }
        case 'a':  // APPEND
            if (!pop(a) || !top(b)) return false;
            if (b->kind != K::List) return err("malformed pickle: APPEND to a non-list");
            b->items.push_back(a);
            return true;
        case 'e':  // APPENDS
            if (!popMark(items) || !top(b)) return false;
            if (b->kind != K::List) return err("malformed pickle: APPENDS to a non-list");
            b->items.insert(b->items.end(), items.begin(), items.end());
            return true;
        case 0x90:  // ADDITEMS
            if (!popMark(items) || !top(b)) return false;
            if (b->kind != K::Set) return err("malformed pickle: ADDITEMS to a non-set");
            b->items.insert(b->items.end(), items.begin(), items.end());
            return true;
        case 's':  // SETITEM
            if (!pop(a) || !pop(b) || !top(c)) return false;
            return setItem(c, b, a);
        case 'u':  // SETITEMS
            if (!popMark(items) || !top(c)) return false;
            if (items.size() % 2) return err("malformed pickle: SETITEMS with an odd number of items");
            for (size_t k = 0; k < items.size(); k += 2)
                if (!setItem(c, items[k], items[k + 1])) return false;
            return true;
        case '0': return pop(a);          // POP
        case '1': return popMark(items);  // POP_MARK
        case '2':
            if (!top(a)) return false;
            return push(a);  // DUP
        case 'c': {          // GLOBAL
            std::string module, name;
            if (!readLine(module) || !readLine(name)) return false;
            return global(std::move(module), name);
        }
        case 0x93:  // STACK_GLOBAL
            if (!pop(b) || !pop(a)) return false;
            if (a->kind != K::String || b->kind != K::String)
                return err("malformed pickle: STACK_GLOBAL needs two strings");
            return global(a->s, b->s);
        case 'R':  // REDUCE
            if (!pop(b) || !pop(a)) return false;
            return call(a, b);
        case 0x81:  // NEWOBJ: only OrderedDict can be instantiated
            if (!pop(b) || !pop(a)) return false;
            if (a->kind != K::Global || a->s != kOrderedDict)
                return err("refusing to instantiate '" + (a->kind == K::Global ? a->s : std::string("?")) + "'");
            return push(make(K::Dict));
        case 'b':  // BUILD: object state (OrderedDict's _metadata, module attributes) is data we skip
            if (!pop(a) || !top(b)) return false;
            return true;
        case 'Q':  // BINPERSID
            if (!pop(a)) return false;
            return persistentId(a);
        default: break;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        return err(std::string("unsupported pickle opcode ") + hex);
    }

    /// Rejects reference cycles and nesting deeper than maxDepth, so that consumers may recurse.
    bool checkShape(const V* root) {
        std::unordered_map<const V*, int> depth;  // -1: on the current path
        struct Frame {
            const V* v;
            size_t next;
            int best;
        };
        std::vector<Frame> st;
        auto children = [](const V* v, size_t k) -> const V* {
            if (k < v->items.size()) return v->items[k];
            k -= v->items.size();
            if (k < 2 * v->entries.size()) return k % 2 ? v->entries[k / 2].second : v->entries[k / 2].first;
            return nullptr;
        };
        st.push_back({root, 0, 0});
        depth[root] = -1;
        while (!st.empty()) {
            Frame& f = st.back();
            const V* ch = children(f.v, f.next++);
            if (!ch) {
                int d = f.best + 1;
                depth[f.v] = d;
                st.pop_back();
                if (!st.empty()) st.back().best = std::max(st.back().best, d);
                continue;
            }
            auto it = depth.find(ch);
            if (it != depth.end()) {
                if (it->second < 0) {
                    m_op = m_in.size() - 1;
                    return err("pickle contains a reference cycle");
                }
                f.best = std::max(f.best, it->second);
                continue;
            }
            if (st.size() >= m_opts.maxDepth) {
                m_op = m_in.size() - 1;
                return err("pickle nests deeper than " + std::to_string(m_opts.maxDepth));
            }
            depth[ch] = -1;
            st.push_back({ch, 0, 0});
        }
        return true;
    }

    std::string_view m_in;
    const std::string& m_what;
    const PickleOptions& m_opts;
    size_t m_pos = 0;
    size_t m_op = 0;
    std::vector<V*> m_stack;
    std::vector<size_t> m_marks;
    std::unordered_map<uint64_t, V*> m_memo;
    std::vector<std::unique_ptr<V>> m_arena;
    std::optional<Diagnostic> m_err;
};

}  // namespace

Expected<PickleResult> unpickle(std::string_view bytes, const std::string& what, const PickleOptions& opts) {
    Machine m(bytes, what, opts);
    return m.run();
}

}  // namespace fxray
