#include "pass/records.h"

#include <algorithm>

namespace fxray {

const char* provenanceKindName(ProvenanceEvent::Kind k) {
    switch (k) {
    case ProvenanceEvent::Kind::Created: return "created";
    case ProvenanceEvent::Kind::Replaced: return "replaced";
    case ProvenanceEvent::Kind::Erased: return "erased";
    }
    return "?";
}

void RewriteLog::addNearMiss(std::string pattern, std::string node, std::string reason) {
    size_t same = static_cast<size_t>(
        std::count_if(nearMisses.begin(), nearMisses.end(), [&](const NearMiss& m) { return m.pattern == pattern; }));
    if (same >= nearMissLimitPerPattern) {
        ++droppedNearMisses;
        return;
    }
    nearMisses.push_back({std::move(pattern), std::move(node), std::move(reason), graph});
}

}  // namespace fxray
