// Hashes: FNV-1a for stable case keys (fast, not cryptographic) and SHA-256
// for content provenance (campaign file hash in reports).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace campaign {

uint64_t fnv1a64(std::string_view data, uint64_t seed = 14695981039346656037ull);
std::string hex64(uint64_t v);  // 16 lower-case hex digits
std::string sha256_hex(std::string_view data);

}  // namespace campaign
