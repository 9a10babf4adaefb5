#pragma once
/// The FFT ops (_fft_r2c, _fft_c2c, _fft_c2r) in real arithmetic, for exec/complex_to_real's
/// rewrite: each transformed dim is a product with constant DFT matrices (cos and sin of
/// 2 pi j k / n, built in the graph from arange so that no constant is carried), real and
/// imaginary parts as separate real tensors. O(n^2) per dim, but GEMMs on every backend: the
/// reference executor, the CPU backend's BLAS and cuBLAS run it with no kernel of their own.
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fxray {

/// Appends `op(args, kwargs)` to the rewritten graph (named `name`, or a fresh name when empty).
using RealEmitFn = std::function<Node*(const std::string& op, std::vector<Argument> args, const std::string& name,
                                       std::vector<std::pair<std::string, Argument>> kwargs)>;

/// Whether the rewrite has a rule for `qualname` here.
bool isFftOp(const std::string& qualname);

/// n's FFT op rewritten: `self` the rewritten input (a real tensor, or a complex one as its
/// [..., 2] real view when `selfComplex`), `selfMeta` the input's metadata in the source graph.
/// Returns the node holding the result (complex results as [..., 2]), named `name`.
Expected<Node*> rewriteFft(const Node& n, const Argument& self, bool selfComplex, const TensorMeta& selfMeta,
                           const std::string& name, const RealEmitFn& emit);

}  // namespace fxray
