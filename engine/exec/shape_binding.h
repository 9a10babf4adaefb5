#pragma once
/// Dynamic shapes at run time: which values the symbols of a graph (s23, s27, ...) take for
/// given inputs, checked against every placeholder, and the static metadata that follows.
///
/// A graph made with `torch.compile(dynamic=True)` takes SymInt placeholders (`s23: "Sym(s23)"`)
/// and tensors annotated with symbolic sizes (`"f32[s23, 64][64, 1]"`). One graph file serves
/// every size: the binding is read off the inputs, not the file.
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "ir/value.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// The placeholder is a SymInt/SymFloat/SymBool (`"Sym(s23)"`, `"Sym(s23*s27)"`, `"Sym(64)"`).
bool isSymPlaceholder(const Node& ph);
/// The expression inside "Sym(...)", or empty.
std::string symPlaceholderExpr(const Node& ph);
/// Any placeholder is a Sym or has symbolic sizes or strides.
bool graphIsSymbolic(const Graph& g);
/// The symbols the inputs mention, in order of first appearance.
std::vector<std::string> inputSymbols(const Graph& g);

/// 0-d tensors given for Sym placeholders (the recorded `.npy` files) become Python scalars, as
/// PyTorch passes them: int64 -> int, floating -> float, bool -> bool.
void scalarizeSymInputs(const Graph& g, std::vector<Value>& inputs);

/// Reads each symbol's value off the inputs (a Sym placeholder that is a plain symbol, a tensor
/// dimension or stride that is one, then linear expressions such as "4*s23") and checks every
/// placeholder against the result. Errors name the input, the dimension and the symbol.
/// Without `withStrides`, symbolic strides neither bind nor are checked (inputs read from .npy
/// files are contiguous until laid out with the bound annotation).
Expected<sym::Binding> bindInputs(const Graph& g, const std::vector<Value>& inputs, bool withStrides = true);

/// Static metadata: the symbolic sizes and strides (parsed on import) evaluated under b.
Expected<TensorMeta> bindMeta(const TensorMeta& m, const sym::Binding& b);

/// "s23=4,s27=16" (also with spaces). Errors name the bad item.
Expected<sym::Binding> parseSizes(std::string_view text);

/// A binding for every input symbol: `given` first, then the graph's hints (a trace's
/// create_symbol records), then `fallback`. Symbols that took the fallback are listed in
/// `defaulted` when it is given.
sym::Binding completeBinding(const Graph& g, const sym::Binding& given, int64_t fallback = 8,
                             std::vector<std::string>* defaulted = nullptr);

}  // namespace fxray
