#pragma once
/// Writes zip archives (fxray session files, exported repro bundles) through libzip.
///
/// The archive is built in a temporary file next to the destination and renamed over it only
/// when everything was written, so a crash or a full disk never leaves a half-written file
/// where the user's previous one was.
#include "support/diagnostic.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fxray {

class ZipWriter {
public:
    /// Members are added in order; names use '/' as separator.
    void add(std::string member, std::string bytes) { m_members.emplace_back(std::move(member), std::move(bytes)); }
    /// Adds a member before all others.
    void prepend(std::string member, std::string bytes) {
        m_members.emplace(m_members.begin(), std::move(member), std::move(bytes));
    }
    /// Writes all members to `path` atomically (temp file + rename). Compressed with deflate.
    Status write(const std::filesystem::path& path) const;

private:
    std::vector<std::pair<std::string, std::string>> m_members;
};

}  // namespace fxray
