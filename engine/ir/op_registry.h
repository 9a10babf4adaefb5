#pragma once
/// The op registry: one entry per ATen/prims op overload, naming everything fxray knows about it:
/// schema, category, shape inference and reference kernel (exec/), VJP rule (autodiff/),
/// partitioner class (partition/), lowering and extern kernel (codegen/), how the CPU and CUDA
/// backends run it. ir/ defines the table and fills nothing: initOpRegistry()
/// (registry/assemble.h) assembles it once at program start-up, each layer attaching its concern
/// to the entries; the upper layers' types are only named here. Adding an op is one entry per
/// concern, and assembly fails when a table names an op the registry lacks.
#include "ir/value.h"
#include "support/diagnostic.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxray {

struct ExecContext;
struct OpInfo;
struct VjpRule;  // autodiff/vjp.h
namespace partition {
struct OpClass;
}  // namespace partition
namespace cg {
struct LoweringRule;
}  // namespace cg

/// One formal argument of an op schema ("Tensor self", "int[1] dim", "*, Scalar alpha=1").
struct SchemaArg {
    std::string name;
    std::string type;  ///< "Tensor", "Tensor?", "int[]", "Scalar", "ScalarType?", ...
    bool kwOnly = false;
    bool hasDefault = false;
    Argument defaultValue;  ///< parsed default when hasDefault
    bool optional() const { return !type.empty() && type.back() == '?'; }
};

/// A parsed PyTorch schema: `addmm(Tensor self, Tensor mat1, ..., *, Scalar alpha=1) -> Tensor`.
struct Schema {
    std::string name;      ///< "addmm"
    std::string overload;  ///< "" for default
    std::vector<SchemaArg> args;
    std::string returns;  ///< return type text, "Tensor", "(Tensor, Tensor)", "Tensor[]"
    std::string text;     ///< the original schema string
    int indexOf(std::string_view argName) const;
};
/// Parses a schema string; returns a Diagnostic on malformed text.
Expected<Schema> parseSchema(std::string_view text);

/// Operation categories, used by passes, fusion and the GUI's colouring.
enum class OpCategory : uint8_t { Pointwise, Reduction, View, Extern, Random, HigherOrder, Creation, Other };
std::string_view opCategoryName(OpCategory c);

/// Arguments bound to a schema: one Value per schema argument, defaults filled in.
class OpArgs {
public:
    OpArgs(const OpInfo& op, std::vector<Value> values) : m_op(&op), m_values(std::move(values)) {}
    const OpInfo& op() const { return *m_op; }
    size_t size() const { return m_values.size(); }
    const Value& operator[](size_t i) const { return m_values[i]; }
    const std::vector<Value>& values() const { return m_values; }

    bool isNone(size_t i) const { return m_values[i].isNone(); }
    bool isTensor(size_t i) const { return m_values[i].isTensor(); }
    /// The binder has checked types against the schema, so these only assert.
    const Tensor& tensor(size_t i) const;
    std::vector<Tensor> tensorList(size_t i) const;
    int64_t toInt(size_t i) const;
    double toDouble(size_t i) const;
    bool toBool(size_t i) const;
    std::vector<int64_t> toIntList(size_t i) const;
    std::optional<DType> toOptDType(size_t i) const;

private:
    const OpInfo* m_op;
    std::vector<Value> m_values;
};

/// Shape/dtype/stride inference: returns the output as meta tensors (or a list of them).
using MetaFn = Expected<Value> (*)(const OpArgs& args);
/// Reference kernel: computes the output. `out` is what MetaFn returned for these arguments
/// (shapes, dtypes, strides are decided there, once).
using KernelFn = Expected<Value> (*)(const OpArgs& args, const Value& out, ExecContext& ctx);

/// How a compiled backend runs an op, as the backend's own tables say.
enum class BackendPath : uint8_t {
    Reference,  ///< no compiled path: the reference kernel runs (on the host, for CUDA): a fallback
    Lowered,    ///< generated loop code from the op's lowering rule (an instance it declines falls back)
    Extern,     ///< a hand-written kernel of the backend (CPU extern kernel, CUDA device kernel)
};

/// Everything known about one op overload.
struct OpInfo {
    std::string qualname;  ///< "aten.addmm.default"
    Schema schema;
    OpCategory category = OpCategory::Other;
    MetaFn meta = nullptr;
    KernelFn kernel = nullptr;
    /// Output aliases input 0 (views, in-place ops); the executor shares storage.
    bool aliasesInput = false;
    /// Mutates its first argument in place (`add_`, `relu_`).
    bool inplace = false;

    // The concerns of the layers above ir/, attached when the registry is assembled.
    /// autodiff: the VJP rule, null when fxray has none.
    const VjpRule* vjp = nullptr;
    /// autodiff: the outputs never carry gradients (detach, creation, comparisons).
    bool nonDifferentiable = false;
    /// partition: the class PyTorch's partitioner gives the op's packet, null when its lists do not
    /// name the packet.
    const partition::OpClass* opClass = nullptr;
    /// codegen: the loop-level lowering rule, null when there is none.
    const cg::LoweringRule* lowering = nullptr;
    /// codegen: the extern kernel a compiled graph calls for the op ("mm"), empty when none.
    std::string_view externKernel;
    /// How the CPU backend (codegen/cpu) and the CUDA backend (codegen/cuda) run the op.
    BackendPath cpu = BackendPath::Reference;
    BackendPath cuda = BackendPath::Reference;
};

/// The table of all ops.
class OpRegistry {
public:
    /// The process-wide registry. initOpRegistry() (registry/assemble.h) installs it at program
    /// start-up; using it before then is a bug in the program and aborts with a message.
    static const OpRegistry& instance();
    /// Whether the process-wide registry is installed.
    static bool installed();
    /// Makes `r` the process-wide registry, once it is complete (the assembly calls this). Returns
    /// false and leaves the installed one in place when there is one already.
    static bool install(std::unique_ptr<OpRegistry> r);

    const OpInfo* find(std::string_view qualname) const;
    const std::vector<std::unique_ptr<OpInfo>>& all() const { return m_ops; }

    /// Adds an op. `schema` is PyTorch's schema text; the qualname's namespace is prepended
    /// from `qualname`. Aborts on a malformed schema (that is a bug in fxray, not user input).
    OpInfo& add(std::string qualname, std::string_view schema, OpCategory category, MetaFn meta, KernelFn kernel);

    /// The entry a layer's `table` attaches its concern to during assembly, or an error naming the
    /// table and the op when the registry has no such op (a table must not name ops fxray lacks).
    Expected<OpInfo*> entryFor(std::string_view table, std::string_view qualname);

private:
    std::vector<std::unique_ptr<OpInfo>> m_ops;
    std::unordered_map<std::string, OpInfo*> m_byName;
};

/// Binds positional and keyword values to `op`'s schema, filling defaults and checking types.
/// `what` names the node for messages.
Expected<OpArgs> bindArgs(const OpInfo& op, std::vector<Value> positional,
                          std::vector<std::pair<std::string, Value>> keywords);

}  // namespace fxray
