#include "import/zip_writer.h"

#include <zip.h>

#include <system_error>
#include <unistd.h>

namespace fxray {

namespace {
Diagnostic writeError(const std::filesystem::path& p, const std::string& msg) {
    Diagnostic d = makeError(msg);
    d.file = p.string();
    return d;
}
}  // namespace

Status ZipWriter::write(const std::filesystem::path& path) const {
    // Unique per process so two fxray processes saving the same file do not share a temp file.
    std::filesystem::path tmp = path;
    tmp += ".tmp" + std::to_string(::getpid());
    int err = 0;
    zip_t* z = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) return writeError(path, "cannot create the archive (libzip error " + std::to_string(err) + ")");
    for (const auto& [name, bytes] : m_members) {
        // libzip reads the buffer at zip_close, so it must stay alive until then: it does (m_members).
        zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
        zip_int64_t idx = src ? zip_file_add(z, name.c_str(), src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE) : -1;
        if (idx < 0) {
            if (src) zip_source_free(src);
            std::string msg = zip_strerror(z);
            zip_discard(z);
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return writeError(path, "cannot add " + name + ": " + msg);
        }
    }
    if (zip_close(z) != 0) {
        std::string msg = zip_strerror(z);
        zip_discard(z);
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        return writeError(path, "cannot write the archive: " + msg);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return writeError(path, "cannot replace the file: " + ec.message());
    }
    return Status::success();
}

}  // namespace fxray
