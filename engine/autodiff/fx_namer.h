#pragma once
/// FX's node naming (torch.fx.graph._Namespace.create_name), so that the joint graph's names are
/// the ones PyTorch prints: `view`, `view_1`, `sum_1` (Python builtins are avoided), `getitem_3`.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace fxray {

/// Hands out unique Python identifiers the way an FX graph's namespace does.
class FxNamer {
public:
    /// A fresh name derived from `candidate`: illegal characters become `_`, a trailing `_N`
    /// is read as a counter, and names that are taken, keywords or builtins get the next suffix.
    std::string create(std::string_view candidate);
    /// Marks a name as taken without going through create() (names copied from elsewhere).
    void reserve(const std::string& name) { m_used.insert(name); }

private:
    std::unordered_set<std::string> m_used;
    std::unordered_map<std::string, int64_t> m_baseCount;
};

/// "sum" for "aten.sum.dim_IntList": the op's overload packet name, which make_fx names nodes by.
std::string_view opPacketName(std::string_view qualname);

}  // namespace fxray
