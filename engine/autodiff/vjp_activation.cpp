// VJP rules of activations and clamps: most have a fused `*_backward` op in derivatives.yaml;
// clamps mask the gradient where the input was clipped.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

/// where(pred, grad, 0).
Node* keepWhere(GraphEmitter& e, Node* pred, Node* g) {
    return e.op("aten.where.ScalarOther", {nodeArg(pred), nodeArg(g), num(0.0)});
}

// hardshrink / softshrink(self, lambd): *_backward(grad, self, lambd).
void hardshrink(VjpCall& c) {
    c.give(0, c.e.op("aten.hardshrink_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1)}));
}
void softshrink(VjpCall& c) {
    c.give(0, c.e.op("aten.softshrink_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1)}));
}

// hardsigmoid / hardswish / mish: *_backward(grad, self).
void hardsigmoid(VjpCall& c) { c.give(0, c.e.op("aten.hardsigmoid_backward.default", {nodeArg(c.grad()), c.arg(0)})); }
void hardswish(VjpCall& c) { c.give(0, c.e.op("aten.hardswish_backward.default", {nodeArg(c.grad()), c.arg(0)})); }
void mish(VjpCall& c) { c.give(0, c.e.op("aten.mish_backward.default", {nodeArg(c.grad()), c.arg(0)})); }
// softplus(self, beta, threshold): softplus_backward(grad, self, beta, threshold).
void softplus(VjpCall& c) {
    c.give(0, c.e.op("aten.softplus_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2)}));
}

// hardtanh(self, min_val, max_val): hardtanh_backward(grad, self, min_val, max_val).
void hardtanh(VjpCall& c) {
    c.give(0, c.e.op("aten.hardtanh_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2)}));
}

// threshold(self, threshold, value): threshold_backward(grad, self, threshold).
void threshold(VjpCall& c) {
    c.give(0, c.e.op("aten.threshold_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1)}));
}

// log_sigmoid_forward(self) -> (output, buffer): log_sigmoid_backward(grad, self, buffer).
void logSigmoidForward(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op("aten.log_sigmoid_backward.default", {nodeArg(c.grad(0)), c.arg(0), nodeArg(c.result(1))}));
}

// clamp(self, min?, max?) with numbers: clamp_backward: where(self >= min and self <= max, grad, 0).
void clampScalar(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* pred = nullptr;
    if (!c.arg(1).isNone()) pred = e.op("aten.ge.Scalar", {c.arg(0), c.arg(1)});
    if (!c.arg(2).isNone()) {
        Node* le = e.op("aten.le.Scalar", {c.arg(0), c.arg(2)});
        pred = pred ? e.op("aten.logical_and.default", {nodeArg(pred), nodeArg(le)}) : le;
    }
    c.give(0, pred ? keepWhere(e, pred, c.grad()) : c.grad());
}

// clamp.Tensor(self, min?, max?): self: clamp_backward; min, max: clamp_backward_min_max.
void clampTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    const Argument &self = c.arg(0), &mn = c.arg(1), &mx = c.arg(2);
    const bool hasMin = !mn.isNone(), hasMax = !mx.isNone();
    if (hasMin && hasMax) {
        if (c.needs(1)) {
            Node* lt = e.op("aten.lt.Tensor", {self, mn});
            Node* ok = e.op("aten.lt.Tensor", {mn, mx});
            c.give(1, keepWhere(e, e.op("aten.logical_and.default", {nodeArg(lt), nodeArg(ok)}), c.grad()));
        }
        if (c.needs(2)) {
            Node* gt = e.op("aten.gt.Tensor", {self, mx});
            Node* bad = e.op("aten.lt.Tensor", {mx, mn});
            c.give(2, keepWhere(e, e.op("aten.logical_or.default", {nodeArg(gt), nodeArg(bad)}), c.grad()));
        }
    } else if (hasMin && c.needs(1)) {
        c.give(1, keepWhere(e, e.op("aten.lt.Tensor", {self, mn}), c.grad()));
    } else if (hasMax && c.needs(2)) {
        c.give(2, keepWhere(e, e.op("aten.gt.Tensor", {self, mx}), c.grad()));
    }
    if (!c.needs(0)) return;
    Node* pred = nullptr;
    if (hasMin) pred = e.op("aten.ge.Tensor", {self, mn});
    if (hasMax) {
        Node* le = e.op("aten.le.Tensor", {self, mx});
        pred = pred ? e.op("aten.logical_and.default", {nodeArg(pred), nodeArg(le)}) : le;
    }
    c.give(0, pred ? keepWhere(e, pred, c.grad()) : c.grad());
}

// clamp_min(self, min): where(self >= min, grad, 0); clamp_max: where(self <= max, grad, 0).
void clampMin(VjpCall& c) { c.give(0, keepWhere(c.e, c.e.op("aten.ge.Scalar", {c.arg(0), c.arg(1)}), c.grad())); }
void clampMax(VjpCall& c) { c.give(0, keepWhere(c.e, c.e.op("aten.le.Scalar", {c.arg(0), c.arg(1)}), c.grad())); }

// clamp_min.Tensor: self: where(self >= min, grad, 0); min: where(self < min, grad, 0).
void clampMinTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, keepWhere(c.e, c.e.op("aten.lt.Tensor", {c.arg(0), c.arg(1)}), c.grad()));
    if (c.needs(0)) c.give(0, keepWhere(c.e, c.e.op("aten.ge.Tensor", {c.arg(0), c.arg(1)}), c.grad()));
}

// clamp_max.Tensor: self: where(self <= max, grad, 0); max: where(self > max, grad, 0).
void clampMaxTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, keepWhere(c.e, c.e.op("aten.gt.Tensor", {c.arg(0), c.arg(1)}), c.grad()));
    if (c.needs(0)) c.give(0, keepWhere(c.e, c.e.op("aten.le.Tensor", {c.arg(0), c.arg(1)}), c.grad()));
}

// elu(self, alpha, scale, input_scale): elu_backward(grad, alpha, scale, input_scale, false, self).
void elu(VjpCall& c) {
    c.give(0, c.e.op("aten.elu_backward.default",
                     {nodeArg(c.grad()), c.arg(1), c.arg(2), c.arg(3), Argument::ofBool(false), c.arg(0)}));
}

// leaky_relu(self, negative_slope): leaky_relu_backward(grad, self, negative_slope, false).
void leakyRelu(VjpCall& c) {
    c.give(0, c.e.op("aten.leaky_relu_backward.default",
                     {nodeArg(c.grad()), c.arg(0), c.arg(1), Argument::ofBool(false)}));
}

}  // namespace

void addActivationVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.hardshrink.default", hardshrink});
    out.push_back({"aten.softshrink.default", softshrink});
    out.push_back({"aten.hardsigmoid.default", hardsigmoid});
    out.push_back({"aten.hardswish.default", hardswish});
    out.push_back({"aten.mish.default", mish});
    out.push_back({"aten.softplus.default", softplus});
    out.push_back({"aten.hardtanh.default", hardtanh});
    out.push_back({"aten.threshold.default", threshold});
    out.push_back({"aten.log_sigmoid_forward.default", logSigmoidForward, false, 0b10});
    out.push_back({"aten.clamp.default", clampScalar});
    out.push_back({"aten.clamp.Tensor", clampTensor});
    out.push_back({"aten.clamp_min.default", clampMin});
    out.push_back({"aten.clamp_max.default", clampMax});
    out.push_back({"aten.clamp_min.Tensor", clampMinTensor});
    out.push_back({"aten.clamp_max.Tensor", clampMaxTensor});
    out.push_back({"aten.elu.default", elu});
    out.push_back({"aten.leaky_relu.default", leakyRelu});
}

}  // namespace fxray
