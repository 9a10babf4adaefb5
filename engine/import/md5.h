#pragma once
/// MD5 (RFC 1321), for checking TORCH_TRACE payloads against their `has_payload` digest.
/// Not for security: PyTorch uses it only to detect truncated or edited payloads.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fxray {

/// Incremental MD5: feed pieces with update(), then read the digest once with hexDigest().
class Md5 {
public:
    Md5();
    /// Appends bytes to the message.
    void update(std::string_view bytes);
    /// Finishes the message and returns the 16-byte digest. Call once.
    std::array<uint8_t, 16> digest();
    /// Finishes the message and returns the digest as 32 lowercase hex digits. Call once.
    std::string hexDigest();

private:
    void block(const uint8_t* p);
    uint32_t m_state[4];
    uint64_t m_length = 0;  ///< bytes seen
    uint8_t m_buffer[64];
    size_t m_buffered = 0;
};

/// MD5 of `bytes` as 32 lowercase hex digits.
std::string md5Hex(std::string_view bytes);

}  // namespace fxray
