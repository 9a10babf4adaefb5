#pragma once
/// Read-only access to zip archives (PyTorch's `.pt` and `.pt2` containers) through libzip.
///
/// Sizes come from the archive's directory, which a corrupt or hostile file can set to anything,
/// so every read is capped: a member whose declared size exceeds the caller's limit, or is
/// impossible for the archive's size, is refused before anything is allocated.
#include "support/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

typedef struct zip zip_t;

namespace fxray {

/// An open zip archive. Movable, not copyable; closes the archive when destroyed.
class ZipArchive {
public:
    /// Default cap on one member's uncompressed size (weights of large models fit; a lie in the
    /// directory does not get 16 exabytes allocated).
    static constexpr uint64_t kDefaultMaxMemberBytes = uint64_t(8) << 30;

    /// Opens a zip file. Diagnostic names the file when it is missing, not a zip, or corrupt.
    static Expected<ZipArchive> open(const std::filesystem::path& path);
    /// Opens a zip held in memory (a `.pt` stored inside a `.pt2`). `name` is used in messages.
    static Expected<ZipArchive> openBuffer(std::string bytes, std::string name);

    ZipArchive(ZipArchive&&) noexcept;
    ZipArchive& operator=(ZipArchive&&) noexcept;
    ~ZipArchive();

    /// The path or name given to open(), used in every Diagnostic.
    const std::string& name() const { return m_name; }
    /// Member names in directory order (folders, which end in '/', included).
    const std::vector<std::string>& members() const { return m_members; }
    bool contains(std::string_view member) const;
    /// Declared uncompressed size, or nullopt when there is no such member.
    std::optional<uint64_t> memberSize(std::string_view member) const;
    /// The folder every member lives under ("archive" for `archive/data.pkl`), or empty when
    /// members do not share one top-level folder.
    std::string rootFolder() const;

    /// Reads a whole member. Refuses members larger than `maxBytes`, declared sizes that the
    /// archive cannot hold, and data that is shorter or longer than declared.
    Expected<std::string> read(std::string_view member, uint64_t maxBytes = kDefaultMaxMemberBytes) const;

    /// A Diagnostic naming this archive (and `member` when given).
    Diagnostic error(std::string message, std::string_view member = {}) const;

private:
    ZipArchive() = default;
    static Expected<ZipArchive> finishOpen(zip_t* z, std::string name, uint64_t containerBytes,
                                           std::unique_ptr<std::string> buffer);

    struct Closer {
        void operator()(zip_t* z) const;
    };
    std::unique_ptr<zip_t, Closer> m_zip;
    std::unique_ptr<std::string> m_buffer;  ///< backing bytes of openBuffer (stable address)
    std::string m_name;
    std::vector<std::string> m_members;
    uint64_t m_containerBytes = 0;  ///< size of the archive itself, bounds stored members
};

}  // namespace fxray
