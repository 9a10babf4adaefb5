#pragma once
/// Dynamic shapes in the minifier: the inputs a candidate gets when it cuts a graph made with
/// `torch.compile(dynamic=True)` stay symbolic, and every symbol they mention is bound.
///
/// PyTorch's minifier turns a cut node into a placeholder holding its concrete value and prints
/// the sizes' symbols without binding them (pytorch/pytorch#114296). Here a cut tensor keeps the
/// symbolic sizes of its annotation ("f32[s23, s27, 128]", strides rebuilt from the value's
/// layout), a cut SymInt node becomes a `Sym(...)` placeholder holding its number, and a symbol
/// that no remaining input determines gets a `Sym(sN)` placeholder of its own (the original one
/// when the graph had it). Every candidate is then checked with bindInputs: its inputs bind each
/// symbol to the value it had in the recorded run, or the candidate is not built.
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <string>
#include <vector>

namespace fxray::minify {

/// The annotation a cut tensor gets in a symbolic graph: `annotated`'s symbolic sizes where they
/// evaluate, under `symbols`, to the value's sizes (static elsewhere), and strides that describe
/// `valueLayout` (a dense layout; contiguous otherwise) as expressions of those sizes. Returns
/// valueLayout's static form when no size can stay symbolic.
TensorMeta symbolicCutMeta(const TensorMeta& annotated, const TensorMeta& valueLayout, const sym::Binding& symbols);

/// v is a Python number (int, float, bool): what a `Sym(...)` placeholder holds.
bool isSymValue(const Value& v);

/// Symbols the placeholder determines directly: a Sym placeholder that is one symbol, tensor
/// sizes that are one symbol each.
std::vector<std::string> directlyBoundSymbols(const Node& ph);

/// The symbols mentioned by placeholders of g that no placeholder binds directly (see
/// directlyBoundSymbols): each needs a Sym placeholder for the candidate to be runnable.
std::vector<std::string> unboundInputSymbols(const Graph& g);

/// Checks a candidate: its inputs bind (bindInputs, sizes only: strides are laid out from the
/// annotation when the inputs are read back) and every symbol takes the value `expected` gives
/// it. The error names the input and the symbol.
Expected<sym::Binding> checkCandidateBinding(const Graph& g, const std::vector<Value>& inputs,
                                             const sym::Binding& expected);

/// 0-d tensors for Python-number inputs (SymInt -> int64, SymFloat -> f64, SymBool -> bool), the
/// form the recorded corpus runs use, so that `.npy` folders hold every input.
Tensor symValueTensor(const Value& v);

}  // namespace fxray::minify
