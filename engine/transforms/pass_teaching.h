#pragma once
/// The teaching text of each registered pass: what it does, why a compiler does it, and the
/// PyTorch source it mirrors. Kept next to the pass registry (pipelines.cpp) so that a new pass
/// without a paragraph fails tst_pass_teaching. The text is English; the GUI shows it under
/// translated headings (engine text is not translated, like pass summaries and near-miss reasons).
#include <string_view>
#include <vector>

namespace fxray {

struct PassTeaching {
    std::string_view pass;             ///< the registered name ("fuse_attention")
    std::string_view what;             ///< what the pass does to the graph, in plain words
    std::string_view why;              ///< why a compiler does it (what it buys the kernels)
    std::string_view pytorchFile;      ///< path in the pytorch tree ("torch/_inductor/fx_passes/fuse_attention.py")
    std::string_view pytorchFunction;  ///< the function there it mirrors
};

/// Every entry, in registry order.
const std::vector<PassTeaching>& passTeachings();
/// The entry of a pass name, or null.
const PassTeaching* passTeaching(std::string_view pass);

}  // namespace fxray
