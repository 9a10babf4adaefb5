#pragma once
/// The fusion scheduler: decides which lowered tensors are realized in memory, groups the
/// computations into kernels (in the spirit of Inductor's scheduler) and orders kernels and
/// opaque calls into a Program that a backend compiles and runs.
///
/// - Pointwise producers with one consumer are inlined into it (computed in registers).
/// - Realized computations join a kernel when their iteration space matches: vertical fusion
///   of pointwise chains, reductions with pointwise prologues (same loop) and epilogues (after
///   the loop, per outer point), several reductions over the same rows (softmax: max, then
///   sum, then the normalised store), and horizontal fusion of independent loops.
/// - A buffer whose only readers are inside its own kernel is never written to memory.
#include "codegen/kernel_ir.h"
#include "codegen/lowering.h"

#include <map>
#include <string>
#include <vector>

namespace fxray::cg {

/// A realized tensor of a Program.
struct BufferDesc {
    enum class Source : uint8_t { Input, Constant, Pinned, Kernel, Call };
    Source source = Source::Kernel;
    int lnode = -1;
    std::string name;
    TensorMeta meta;        ///< layout it is allocated with (offset 0 unless an input's)
    int inputIndex = -1;    ///< Source::Input: placeholder index
    std::string key;        ///< Constant: attribute name; Pinned: node name
    bool internal = false;  ///< only read inside its own kernel: never allocated or stored
    int kernel = -1;        ///< Source::Kernel: the kernel writing it
};

/// One step of the program, in execution order.
struct ProgramStep {
    enum class Kind : uint8_t { Kernel, Call };
    Kind kind = Kind::Kernel;
    int index = -1;  ///< into Program::kernels or LoweredGraph::calls
};

/// Where one graph node ended up (the group map the GUI colours nodes by).
struct NodeGroup {
    std::string node;
    enum class Kind : uint8_t { Kernel, Extern, Fallback, View, Input, None };
    Kind kind = Kind::None;
    int kernel = -1;         ///< Kind::Kernel: kernel index
    std::string kernelName;  ///< kernel name, extern kernel name, or the op run by fallback
};
std::string_view nodeGroupKindName(NodeGroup::Kind k);

/// A scheduled graph.
struct Program {
    LoweredGraph lowered;
    std::vector<BufferDesc> buffers;
    std::vector<int> bufferOf;  ///< per LNode: its buffer, or -1 (inlined or a view)
    /// Per LNode that is a view needed as a runtime value but not expressible as an alias: the
    /// LNode of its materialized copy.
    std::map<int, int> viewCopies;
    std::vector<Kernel> kernels;
    std::vector<ProgramStep> steps;
    std::vector<NodeGroup> groups;  ///< one per call node of the graph, in graph order
};

struct ScheduleOptions {
    bool fuse = true;             ///< false: one kernel per realized computation
    bool inlinePointwise = true;  ///< false: realize every pointwise result
    /// Merge adjacent dims every index walks densely (kernel_collapse.h); FXRAY_KERNEL_COLLAPSE=0
    /// turns the default off (to compare).
    bool collapseDims = defaultCollapse();
    static bool defaultCollapse();
};

/// Realizes, fuses and orders the lowered graph.
Expected<Program> schedule(LoweredGraph lg, const ScheduleOptions& opts = {});

/// "k3: add, relu, mul" lines plus extern calls and fallbacks: a readable group report.
std::string programSummary(const Program& p);

}  // namespace fxray::cg
