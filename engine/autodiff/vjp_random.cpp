// VJP rule of dropout.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

// native_dropout: native_dropout_backward(grad, result1, scale), scale = 1 / (1 - p) when
// training (0 for p == 1), 1 otherwise.
void nativeDropout(VjpCall& c) {
    if (!c.grad(0)) return;
    const double p = numberOf(c.arg(1));
    const bool train = c.arg(2).isNone() || (c.arg(2).kind == Argument::Kind::Bool && c.arg(2).b);
    const double scale = !train ? 1.0 : (p == 1.0 ? 0.0 : 1.0 / (1.0 - p));
    c.give(0, c.e.op("aten.native_dropout_backward.default",
                     {nodeArg(c.grad(0)), nodeArg(c.result(1)), Argument::ofFloat(scale)}));
}

}  // namespace

void addRandomVjps(std::vector<VjpRule>& out) { out.push_back({"aten.native_dropout.default", nativeDropout}); }

}  // namespace fxray
