// VJP rules of the complex-number ops (rotary embeddings done with `polar`, `view_as_complex` and
// complex `mul`, as in Meta's Llama code and torchtitan). Formulas follow
// tools/autograd/derivatives.yaml with PyTorch's convention for complex gradients: the gradient
// of a real loss L with respect to z = x + iy is dL/dx + i dL/dy (so mul's is grad * conj(other),
// in vjp_pointwise.cpp). The joint graph runs on every backend through exec/complex_to_real.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

/// grad as the dense tensor `view_as_real` / `view_as_complex` need (`grad.contiguous()`).
Node* contiguous(GraphEmitter& e, Node* g) { return e.meta(g).isContiguous() ? g : e.contiguousClone(g); }

// view_as_complex: self: at::view_as_real(grad.contiguous().resolve_conj()).
void viewAsComplex(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.view_as_real.default", {nodeArg(contiguous(c.e, c.grad()))}));
}

// view_as_real: self: at::view_as_complex(grad.contiguous()).
void viewAsReal(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.view_as_complex.default", {nodeArg(contiguous(c.e, c.grad()))}));
}

// _conj / conj: self: grad.conj().
void conj(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten._conj.default", {nodeArg(c.grad())}));
}

// conj_physical: self: grad.conj_physical().
void conjPhysical(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.conj_physical.default", {nodeArg(c.grad())}));
}

// polar(abs, angle): abs, angle: polar_backward(grad, result), which is
//   abs:   real(conj(grad) * sgn(result)) = sign(abs) * (re(grad) cos(angle) + im(grad) sin(angle))
//   angle: real(conj(grad) * result * 1j) = abs * (im(grad) cos(angle) - re(grad) sin(angle))
// written with real ops (sgn(result) is sign(abs) * e^(i angle): 0 where abs is 0, as ATen's).
void polar(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.needs(0) && !c.needs(1)) return;
    Node* re = e.op("aten.real.default", {nodeArg(c.grad())});
    Node* im = e.op("aten.imag.default", {nodeArg(c.grad())});
    Node* cos = e.op("aten.cos.default", {c.arg(1)});
    Node* sin = e.op("aten.sin.default", {c.arg(1)});
    if (c.needs(0)) {
        Node* along = e.add(e.mul(re, nodeArg(cos)), e.mul(im, nodeArg(sin)));
        c.give(0, e.mul(along, nodeArg(e.op("aten.sign.default", {c.arg(0)}))));
    }
    if (c.needs(1)) {
        Node* across = e.op("aten.sub.Tensor", {nodeArg(e.mul(im, nodeArg(cos))), nodeArg(e.mul(re, nodeArg(sin)))});
        c.give(1, e.mul(across, c.arg(0)));
    }
}

// complex(real, imag): imag: at::imag(grad); real: at::real(grad).
void complexOf(VjpCall& c) {
    if (c.needs(1)) c.give(1, c.e.op("aten.imag.default", {nodeArg(c.grad())}));
    if (c.needs(0)) c.give(0, c.e.op("aten.real.default", {nodeArg(c.grad())}));
}

// real(self): the real gradient as the complex grad + 0i (autograd's validate_outputs casts it).
void realPart(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.grad());
}

// imag(self): i * grad, as complex(0, grad): d/dy of a real loss lands on the imaginary part.
void imagPart(VjpCall& c) {
    if (!c.needs(0)) return;
    Node* zero = c.e.op("aten.zeros_like.default", {nodeArg(c.grad())});
    c.give(0, c.e.op("aten.complex.default", {nodeArg(zero), nodeArg(c.grad())}));
}

}  // namespace

void addComplexVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.view_as_complex.default", viewAsComplex});
    out.push_back({"aten.view_as_real.default", viewAsReal});
    out.push_back({"aten._conj.default", conj});
    out.push_back({"aten.conj.default", conj});
    out.push_back({"aten.conj_physical.default", conjPhysical});
    out.push_back({"aten.polar.default", polar});
    out.push_back({"aten.complex.default", complexOf});
    out.push_back({"aten.real.default", realPart});
    out.push_back({"aten.imag.default", imagPart});
}

}  // namespace fxray
