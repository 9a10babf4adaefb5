// The reference executor's fused LSTM / GRU cells (exec/ops/rnn_cells.cpp), as nn.LSTMCell and
// nn.GRUCell run on CUDA: forwards against the cell equations written out here, backwards
// against central differences of the forwards in fp64, with and without biases; and the
// activation backwards leaky_relu_backward / elu_backward against differences of their forwards.
// (PyTorch's own recorded outputs of these ops are checked by bench/gen_popular.py's rnn_cells
// and yolo_neck graphs.)
#include "test_util.h"

#include <cmath>

using namespace fxray;
using fxtest::run;
using fxtest::tv;
using fxtest::values;

namespace {

constexpr auto F64 = DType::Float64;

std::vector<double> noise(size_t n, uint32_t seed) {
    std::vector<double> v(n);
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = (static_cast<double>(seed >> 8) / 16777216.0 - 0.5) * 3.0;
    }
    return v;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

/// d loss / d v[k] for every k by central differences; loss reads the perturbed copy.
template <class F>
std::vector<double> numericGrad(std::vector<double> v, F loss) {
    std::vector<double> g(v.size());
    const double h = 1e-6;
    for (size_t k = 0; k < v.size(); ++k) {
        const double x = v[k];
        v[k] = x + h;
        const double up = loss(v);
        v[k] = x - h;
        const double down = loss(v);
        v[k] = x;
        g[k] = (up - down) / (2 * h);
    }
    return g;
}

bool near(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-7) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > tol * (1.0 + std::abs(b[i]))) {
            qWarning("element %zu: %.12g vs %.12g", i, a[i], b[i]);
            return false;
        }
    return true;
}

constexpr int64_t B = 2, H = 3;

}  // namespace

class TestRnnCells : public QObject {
    Q_OBJECT
private slots:
    void lstmForwardIsTheCellEquation() {
        const auto ig = noise(B * 4 * H, 1), hg = noise(B * 4 * H, 2), cx = noise(B * H, 3), bi = noise(4 * H, 4),
                   bh = noise(4 * H, 5);
        Value r = run("aten._thnn_fused_lstm_cell.default",
                      {tv({B, 4 * H}, ig, F64), tv({B, 4 * H}, hg, F64), tv({B, H}, cx, F64), tv({4 * H}, bi, F64),
                       tv({4 * H}, bh, F64)});
        QCOMPARE(r.list.size(), size_t(3));
        const auto hy = values(r.list[0]), cy = values(r.list[1]), ws = values(r.list[2]);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
                auto pre = [&](int64_t gate) {
                    const int64_t k = gate * H + j;
                    return ig[b * 4 * H + k] + hg[b * 4 * H + k] + bi[k] + bh[k];
                };
                const double i = sigmoid(pre(0)), f = sigmoid(pre(1)), g = std::tanh(pre(2)), o = sigmoid(pre(3));
                const double c = f * cx[b * H + j] + i * g;
                QVERIFY(std::abs(cy[b * H + j] - c) < 1e-12);
                QVERIFY(std::abs(hy[b * H + j] - o * std::tanh(c)) < 1e-12);
                QVERIFY(std::abs(ws[b * 4 * H + 2 * H + j] - g) < 1e-12);
                QVERIFY(std::abs(ws[b * 4 * H + 3 * H + j] - o) < 1e-12);
            }
    }

    void lstmBackwardMatchesDifferences_data() {
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("gradCy");
        QTest::newRow("biases, both gradients") << true << true;
        QTest::newRow("no biases, grad_cy None") << false << false;
    }
    void lstmBackwardMatchesDifferences() {
        QFETCH(bool, bias);
        QFETCH(bool, gradCy);
        const auto ig = noise(B * 4 * H, 11), hg = noise(B * 4 * H, 12), cx = noise(B * H, 13), bi = noise(4 * H, 14),
                   bh = noise(4 * H, 15), ghy = noise(B * H, 16), gcy = noise(B * H, 17);
        auto forward = [&](const std::vector<double>& i, const std::vector<double>& c, const std::vector<double>& b) {
            std::vector<Value> args{tv({B, 4 * H}, i, F64), tv({B, 4 * H}, hg, F64), tv({B, H}, c, F64)};
            if (bias) args.push_back(tv({4 * H}, b, F64)), args.push_back(tv({4 * H}, bh, F64));
            return run("aten._thnn_fused_lstm_cell.default", args);
        };
        auto loss = [&](const Value& r) {
            return dot(values(r.list[0]), ghy) + (gradCy ? dot(values(r.list[1]), gcy) : 0.0);
        };
        Value f = forward(ig, cx, bi);
        Value g = run("aten._thnn_fused_lstm_cell_backward_impl.default",
                      {tv({B, H}, ghy, F64), gradCy ? tv({B, H}, gcy, F64) : Value::none(), tv({B, H}, cx, F64),
                       f.list[1], f.list[2], Value::ofBool(bias)});
        QCOMPARE(g.list.size(), size_t(3));
        QVERIFY(near(values(g.list[0]), numericGrad(ig, [&](const auto& v) { return loss(forward(v, cx, bi)); })));
        QVERIFY(near(values(g.list[1]), numericGrad(cx, [&](const auto& v) { return loss(forward(ig, v, bi)); })));
        if (bias)
            QVERIFY(near(values(g.list[2]), numericGrad(bi, [&](const auto& v) { return loss(forward(ig, cx, v)); })));
        else
            QVERIFY(g.list[2].isNone());
    }

    void gruBackwardMatchesDifferences_data() {
        QTest::addColumn<bool>("bias");
        QTest::newRow("biases") << true;
        QTest::newRow("no biases") << false;
    }
    void gruBackwardMatchesDifferences() {
        QFETCH(bool, bias);
        const auto ig = noise(B * 3 * H, 21), hg = noise(B * 3 * H, 22), hx = noise(B * H, 23), bi = noise(3 * H, 24),
                   bh = noise(3 * H, 25), ghy = noise(B * H, 26);
        auto forward = [&](const std::vector<double>& i, const std::vector<double>& h, const std::vector<double>& x,
                           const std::vector<double>& b1, const std::vector<double>& b2) {
            std::vector<Value> args{tv({B, 3 * H}, i, F64), tv({B, 3 * H}, h, F64), tv({B, H}, x, F64)};
            if (bias) args.push_back(tv({3 * H}, b1, F64)), args.push_back(tv({3 * H}, b2, F64));
            return run("aten._thnn_fused_gru_cell.default", args);
        };
        auto loss = [&](const Value& r) { return dot(values(r.list[0]), ghy); };
        Value f = forward(ig, hg, hx, bi, bh);
        // hy = n + z * (hx - n): the cell equation, from the workspace [r, z, n, hx, h_n].
        const auto hy = values(f.list[0]), ws = values(f.list[1]);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
                const double* w = ws.data() + b * 5 * H + j;
                QVERIFY(std::abs(w[3 * H] - hx[b * H + j]) < 1e-15);
                QVERIFY(std::abs(hy[b * H + j] - (w[2 * H] + w[H] * (hx[b * H + j] - w[2 * H]))) < 1e-12);
                const double r = sigmoid(ig[b * 3 * H + j] + hg[b * 3 * H + j] + (bias ? bi[j] + bh[j] : 0.0));
                QVERIFY(std::abs(w[0] - r) < 1e-12);
            }
        Value g =
            run("aten._thnn_fused_gru_cell_backward.default", {tv({B, H}, ghy, F64), f.list[1], Value::ofBool(bias)});
        QCOMPARE(g.list.size(), size_t(5));
        QVERIFY(
            near(values(g.list[0]), numericGrad(ig, [&](const auto& v) { return loss(forward(v, hg, hx, bi, bh)); })));
        QVERIFY(
            near(values(g.list[1]), numericGrad(hg, [&](const auto& v) { return loss(forward(ig, v, hx, bi, bh)); })));
        QVERIFY(
            near(values(g.list[2]), numericGrad(hx, [&](const auto& v) { return loss(forward(ig, hg, v, bi, bh)); })));
        if (bias) {
            QVERIFY(near(values(g.list[3]),
                         numericGrad(bi, [&](const auto& v) { return loss(forward(ig, hg, hx, v, bh)); })));
            QVERIFY(near(values(g.list[4]),
                         numericGrad(bh, [&](const auto& v) { return loss(forward(ig, hg, hx, bi, v)); })));
        } else {
            QVERIFY(g.list[3].isNone() && g.list[4].isNone());
        }
    }

    void badShapesAreErrors() {
        ExecContext ctx(0);
        auto r = invokeOp("aten._thnn_fused_lstm_cell.default",
                          {tv({2, 12}, noise(24, 1)), tv({2, 8}, noise(16, 2)), tv({2, 3}, noise(6, 3))}, {}, &ctx);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().str().find("gates of shape [B, 4 * H]") != std::string::npos, r.error().str().c_str());
        auto s = invokeOp("aten._thnn_fused_gru_cell_backward.default",
                          {tv({2, 3}, noise(6, 1)), tv({2, 14}, noise(28, 2)), Value::ofBool(true)}, {}, &ctx);
        QVERIFY(!s.ok());
    }

    void activationBackwardsMatchDifferences() {
        const auto x = noise(12, 31), g = noise(12, 32);
        auto loss = [&](const char* op, std::vector<Value> extra) {
            return [&g, op, extra](const std::vector<double>& v) {
                std::vector<Value> args{tv({12}, v, F64)};
                args.insert(args.end(), extra.begin(), extra.end());
                return dot(values(run(op, args)), g);
            };
        };
        const Value slope = Value::ofDouble(0.2);
        Value lrb =
            run("aten.leaky_relu_backward.default", {tv({12}, g, F64), tv({12}, x, F64), slope, Value::ofBool(false)});
        QVERIFY(near(values(lrb), numericGrad(x, loss("aten.leaky_relu.default", {slope}))));
        const std::vector<Value> ep{Value::ofDouble(1.5), Value::ofDouble(1.25), Value::ofDouble(0.5)};
        Value eb = run("aten.elu_backward.default",
                       {tv({12}, g, F64), ep[0], ep[1], ep[2], Value::ofBool(false), tv({12}, x, F64)});
        QVERIFY(near(values(eb), numericGrad(x, loss("aten.elu.default", ep))));
        // From the result (in-place elu): the same gradient.
        Value y = run("aten.elu.default", {tv({12}, x, F64), ep[0], ep[1], ep[2]});
        Value eb2 = run("aten.elu_backward.default", {tv({12}, g, F64), ep[0], ep[1], ep[2], Value::ofBool(true), y});
        QVERIFY(near(values(eb2), values(eb), 1e-12));
        // In-place forms with a negative slope cannot be inverted: PyTorch refuses them.
        ExecContext ctx(0);
        QVERIFY(!invokeOp("aten.leaky_relu_backward.default",
                          {tv({12}, g), tv({12}, x), Value::ofDouble(-0.1), Value::ofBool(true)}, {}, &ctx)
                     .ok());
    }
};

QTEST_GUILESS_MAIN(TestRnnCells)
#include "tst_rnn_cells.moc"
