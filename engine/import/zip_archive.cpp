#include "import/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <system_error>

namespace fxray {

namespace {

/// Deflate cannot expand data by more than about 1032:1; anything claiming more is a lie.
constexpr uint64_t kMaxCompressionRatio = 1100;

std::string zipErrorText(int code) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    std::string s = zip_error_strerror(&e);
    zip_error_fini(&e);
    return s;
}

}  // namespace

void ZipArchive::Closer::operator()(zip_t* z) const {
    if (z) zip_discard(z);  // read-only: never write anything back
}

ZipArchive::ZipArchive(ZipArchive&&) noexcept = default;
ZipArchive& ZipArchive::operator=(ZipArchive&&) noexcept = default;
ZipArchive::~ZipArchive() = default;

Diagnostic ZipArchive::error(std::string message, std::string_view member) const {
    Diagnostic d = makeError(member.empty() ? std::move(message) : "member '" + std::string(member) + "': " + message);
    d.file = m_name;
    return d;
}

Expected<ZipArchive> ZipArchive::open(const std::filesystem::path& path) {
    std::error_code ec;
    auto fail = [&](std::string msg) {
        Diagnostic d = makeError(std::move(msg));
        d.file = path.string();
        return d;
    };
    if (!std::filesystem::is_regular_file(path, ec)) return fail("no such file");
    uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return fail("cannot read file size: " + ec.message());
    int err = 0;
    zip_t* z = zip_open(path.string().c_str(), ZIP_RDONLY, &err);
    if (!z) return fail("not a readable zip archive (" + zipErrorText(err) + ")");
    return finishOpen(z, path.string(), size, nullptr);
}

Expected<ZipArchive> ZipArchive::openBuffer(std::string bytes, std::string name) {
    auto buffer = std::make_unique<std::string>(std::move(bytes));
    zip_error_t zerr;
    zip_error_init(&zerr);
    zip_source_t* src = zip_source_buffer_create(buffer->data(), buffer->size(), 0, &zerr);
    if (!src) {
        std::string msg = zip_error_strerror(&zerr);
        zip_error_fini(&zerr);
        Diagnostic d = makeError("cannot open in-memory zip: " + msg);
        d.file = name;
        return d;
    }
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY, &zerr);
    if (!z) {
        zip_source_free(src);  // still ours when open failed
        std::string msg = zip_error_strerror(&zerr);
        zip_error_fini(&zerr);
        Diagnostic d = makeError("not a readable zip archive (" + msg + ")");
        d.file = name;
        return d;
    }
    zip_error_fini(&zerr);
    uint64_t size = buffer->size();
    return finishOpen(z, std::move(name), size, std::move(buffer));
}

Expected<ZipArchive> ZipArchive::finishOpen(zip_t* z, std::string name, uint64_t containerBytes,
                                            std::unique_ptr<std::string> buffer) {
    ZipArchive a;
    a.m_zip.reset(z);
    a.m_buffer = std::move(buffer);
    a.m_name = std::move(name);
    a.m_containerBytes = containerBytes;
    zip_int64_t n = zip_get_num_entries(z, 0);
    if (n < 0) return a.error("cannot list members");
    // Every directory entry takes at least 46 bytes, so the count is bounded by the file size;
    // this keeps a forged count from reserving memory.
    if (static_cast<uint64_t>(n) > containerBytes / 46 + 1)
        return a.error("directory claims more members than the archive can hold");
    a.m_members.reserve(static_cast<size_t>(n));
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* nm = zip_get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
        if (!nm) return a.error("member #" + std::to_string(i) + " has no readable name");
        a.m_members.emplace_back(nm);
    }
    return a;
}

bool ZipArchive::contains(std::string_view member) const {
    return std::find(m_members.begin(), m_members.end(), member) != m_members.end();
}

std::optional<uint64_t> ZipArchive::memberSize(std::string_view member) const {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat(m_zip.get(), std::string(member).c_str(), ZIP_FL_ENC_RAW, &st) != 0) return std::nullopt;
    if (!(st.valid & ZIP_STAT_SIZE)) return std::nullopt;
    return st.size;
}

std::string ZipArchive::rootFolder() const {
    std::string root;
    for (const auto& m : m_members) {
        auto slash = m.find('/');
        if (slash == std::string::npos || slash == 0) return {};
        std::string_view top(m.data(), slash);
        if (root.empty())
            root = std::string(top);
        else if (root != top)
            return {};
    }
    return root;
}

Expected<std::string> ZipArchive::read(std::string_view member, uint64_t maxBytes) const {
    std::string mem(member);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat(m_zip.get(), mem.c_str(), ZIP_FL_ENC_RAW, &st) != 0)
        return error("no such member in the archive", member);
    if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE)) return error("size unknown", member);
    if (st.size > maxBytes)
        return error("declares " + std::to_string(st.size) + " bytes, more than the limit of " +
                         std::to_string(maxBytes),
                     member);
    // A stored member cannot be larger than the archive; a compressed one cannot expand beyond
    // what deflate allows. Either lie means a corrupt or hostile directory.
    const bool stored = (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
    if (stored ? st.size > m_containerBytes
               : (st.comp_size > m_containerBytes || st.size > st.comp_size * kMaxCompressionRatio + 1024))
        return error("declared size " + std::to_string(st.size) + " is impossible for an archive of " +
                         std::to_string(m_containerBytes) + " bytes",
                     member);
    zip_file_t* f = zip_fopen_index(m_zip.get(), st.index, 0);
    if (!f) return error(std::string("cannot open: ") + zip_error_strerror(zip_get_error(m_zip.get())), member);
    std::string out;
    out.resize(static_cast<size_t>(st.size));
    uint64_t got = 0;
    std::string failure;
    while (got < st.size) {
        zip_int64_t r = zip_fread(f, out.data() + got, st.size - got);
        if (r < 0) {
            failure = std::string("read failed: ") + zip_error_strerror(zip_file_get_error(f));
            break;
        }
        if (r == 0) break;
        got += static_cast<uint64_t>(r);
    }
    if (failure.empty() && got == st.size) {
        char extra;
        if (zip_fread(f, &extra, 1) > 0) failure = "holds more data than its declared size";
    }
    zip_fclose(f);
    if (!failure.empty()) return error(failure, member);
    if (got != st.size)
        return error("truncated: " + std::to_string(got) + " of " + std::to_string(st.size) + " bytes", member);
    return out;
}

}  // namespace fxray
