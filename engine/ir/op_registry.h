#pragma once
/// The op registry: one entry per ATen/prims op overload, holding everything each stage needs to
/// know about it (schema, category, shape inference, reference kernel). ir/ defines the table;
/// it does not fill it: initOpRegistry() (registry/assemble.h) assembles it once at program
/// start-up from every layer's tables.
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

/// One formal argument of an op schema ("Tensor self", "int[1] dim", "*, Scalar alpha=1").
struct SchemaArg {
    std::string name;
    std::string type;       ///< "Tensor", "Tensor?", "int[]", "Scalar", "ScalarType?", ...
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
    std::string returns;   ///< return type text, "Tensor", "(Tensor, Tensor)", "Tensor[]"
    std::string text;      ///< the original schema string
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
    OpInfo& add(std::string qualname, std::string_view schema, OpCategory category, MetaFn meta,
                KernelFn kernel);

private:
    std::vector<std::unique_ptr<OpInfo>> m_ops;
    std::unordered_map<std::string, OpInfo*> m_byName;
};

/// Binds positional and keyword values to `op`'s schema, filling defaults and checking types.
/// `what` names the node for messages.
Expected<OpArgs> bindArgs(const OpInfo& op, std::vector<Value> positional,
                          std::vector<std::pair<std::string, Value>> keywords);

} // namespace fxray
