#include "import/npy.h"

#include "exec/ops/kernel_util.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fxray {

namespace {

Diagnostic npyError(const std::string& what, size_t offset, std::string msg) {
    Diagnostic d = makeError(std::move(msg) + " (at byte " + std::to_string(offset) + ")");
    d.file = what;
    return d;
}

/// Value of 'key' in the header dict text, as raw text up to the next top-level comma/brace.
std::string dictValue(const std::string& h, const std::string& key) {
    auto k = h.find("'" + key + "'");
    if (k == std::string::npos) return {};
    auto colon = h.find(':', k);
    if (colon == std::string::npos) return {};
    size_t i = colon + 1;
    while (i < h.size() && h[i] == ' ') ++i;
    int depth = 0;
    size_t start = i;
    for (; i < h.size(); ++i) {
        char c = h[i];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']') {
            if (depth == 0) break;
            --depth;
        } else if ((c == ',' || c == '}') && depth == 0)
            break;
    }
    std::string v = h.substr(start, i - start);
    if (!v.empty() && v.front() == '(' && depth == 0 && v.back() != ')') v += ')';
    return v;
}

}  // namespace

Expected<Tensor> parseNpy(std::string_view bytes, const std::string& what) {
    if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") return npyError(what, 0, "not a .npy file (bad magic)");
    const uint8_t major = static_cast<uint8_t>(bytes[6]);
    size_t hlen = 0, hstart = 0;
    if (major == 1) {
        hlen = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) return npyError(what, 8, "truncated header length");
        hlen = 0;
        for (int k = 0; k < 4; ++k) hlen |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + k])) << (8 * k);
        hstart = 12;
    } else {
        return npyError(what, 6, "unsupported .npy version " + std::to_string(major));
    }
    if (hstart + hlen > bytes.size()) return npyError(what, hstart, "truncated header");
    std::string header(bytes.substr(hstart, hlen));
    std::string descr = dictValue(header, "descr");
    std::string fortran = dictValue(header, "fortran_order");
    std::string shapeText = dictValue(header, "shape");
    if (descr.size() < 2 || shapeText.empty()) return npyError(what, hstart, "header lacks descr or shape");
    descr = descr.substr(1, descr.size() - 2);  // strip quotes
    if (fortran.find("True") != std::string::npos)
        return npyError(what, hstart, "Fortran-order arrays are not supported");
    if (!descr.empty() && descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1")
        return npyError(what, hstart, "big-endian data ('" + descr + "') is not supported");
    auto dt = dtypeFromNumpyDescr(descr);
    if (!dt) return npyError(what, hstart, "unsupported dtype '" + descr + "'");
    std::vector<int64_t> shape;
    {
        std::string s = shapeText;
        size_t i = 0;
        while (i < s.size()) {
            if (std::isdigit(static_cast<unsigned char>(s[i]))) {
                int64_t v = 0;
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
                    v = v * 10 + (s[i] - '0');
                    if (v > (int64_t(1) << 40)) return npyError(what, hstart, "dimension too large");
                    ++i;
                }
                shape.push_back(v);
            } else if (s[i] == '(' || s[i] == ')' || s[i] == ',' || s[i] == ' ' || s[i] == 'L') {
                ++i;
            } else {
                return npyError(what, hstart, "malformed shape '" + s + "'");
            }
        }
    }
    // Size the data from the header and check it against the file before allocating: a forged
    // shape must not get terabytes allocated (found by fuzz_npy).
    uint64_t need = static_cast<uint64_t>(dtypeItemSize(*dt));
    for (int64_t d : shape)
        if (__builtin_mul_overflow(need, static_cast<uint64_t>(d), &need))
            return npyError(what, hstart, "shape '" + shapeText + "' is too large");
    size_t dataStart = hstart + hlen;
    if (bytes.size() - dataStart < need)
        return npyError(what, dataStart,
                        "truncated data: need " + std::to_string(need) + " bytes, have " +
                            std::to_string(bytes.size() - dataStart));
    Tensor t = Tensor::empty(shape, *dt);
    if (need) std::memcpy(t.storage->data(), bytes.data() + dataStart, need);
    return t;
}

Expected<Tensor> readNpy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Diagnostic d = makeError("cannot open file");
        d.file = path.string();
        return d;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    return parseNpy(bytes, path.string());
}

std::string encodeNpy(const Tensor& t) {
    DType dt = t.dtype() == DType::BFloat16 ? DType::Float32 : t.dtype();
    TensorMeta m = TensorMeta::contiguous(t.shape(), dt);
    Tensor c = kern::makeTensor(m, kern::toDoubles(t));
    std::string shape = "(";
    for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + ", ";
    if (t.shape().size() > 1)
        shape.erase(shape.size() - 2);
    else if (t.shape().size() == 1)
        shape.erase(shape.size() - 1);
    shape += ")";
    std::string header =
        "{'descr': '" + std::string(dtypeNumpyDescr(dt)) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    std::string out("\x93NUMPY\x01\x00", 8);
    uint16_t hl = static_cast<uint16_t>(header.size());
    out += static_cast<char>(hl & 0xff);
    out += static_cast<char>(hl >> 8);
    out += header;
    out.append(reinterpret_cast<const char*>(c.storage->data()), static_cast<size_t>(c.numel() * dtypeItemSize(dt)));
    return out;
}

Status writeNpy(const std::filesystem::path& path, const Tensor& t) {
    std::string bytes = encodeNpy(t);
    std::ofstream out(path, std::ios::binary);
    if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        Diagnostic d = makeError("cannot write file");
        d.file = path.string();
        return d;
    }
    return Status::success();
}

Expected<std::vector<Value>> readNpyFolder(const std::filesystem::path& dir, size_t count) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        Diagnostic d = makeError("not a folder of NNN.npy files");
        d.file = dir.string();
        return d;
    }
    std::vector<Value> out;
    for (size_t i = 0; i < count; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "%03zu.npy", i);
        auto p = dir / name;
        if (!std::filesystem::exists(p)) {
            out.push_back(Value::none());
            continue;
        }
        auto t = readNpy(p);
        if (!t.ok()) return t.error();
        out.push_back(Value::ofTensor(std::move(t).value()));
    }
    return out;
}

}  // namespace fxray
