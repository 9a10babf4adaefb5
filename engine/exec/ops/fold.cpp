// im2col (torch.nn.functional.unfold) and col2im (fold): sliding 2-D blocks to columns and back.
//
// A column row is (channel, kernel row, kernel column), row-major; a column is one block
// position (output row, output column), row-major. col2im adds the entries of overlapping blocks.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <array>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

struct FoldSpec {
    int64_t N = 1, C = 0;
    bool batched = true;
    std::array<int64_t, 2> img{0, 0}, k{1, 1}, d{1, 1}, p{0, 0}, s{1, 1}, blocks{0, 0};
    int64_t L() const { return blocks[0] * blocks[1]; }
    int64_t K() const { return k[0] * k[1]; }
};

Expected<std::array<int64_t, 2>> pairArg(const OpArgs& a, size_t i, const char* what) {
    auto v = a.toIntList(i);
    if (v.size() == 1) v.push_back(v[0]);
    if (v.size() != 2) return opError(a, std::string(what) + " must be one int or two ints, got " + shapeStr(v));
    return std::array<int64_t, 2>{v[0], v[1]};
}

/// Reads kernel_size, dilation, padding, stride starting at `first` and computes the block grid
/// over an image of size `img`.
Expected<FoldSpec> foldParams(const OpArgs& a, size_t first, std::array<int64_t, 2> img) {
    FoldSpec f;
    f.img = img;
    const char* names[4] = {"kernel_size", "dilation", "padding", "stride"};
    std::array<std::array<int64_t, 2>*, 4> dst{&f.k, &f.d, &f.p, &f.s};
    for (size_t i = 0; i < 4; ++i) {
        auto v = pairArg(a, first + i, names[i]);
        if (!v.ok()) return v.error();
        *dst[i] = *v;
    }
    for (size_t i = 0; i < 2; ++i) {
        if (f.k[i] <= 0)
            return opError(a, "kernel size should be greater than zero, but got " + shapeStr({f.k[0], f.k[1]}));
        if (f.d[i] <= 0)
            return opError(a, "dilation should be greater than zero, but got " + shapeStr({f.d[0], f.d[1]}));
        if (f.p[i] < 0) return opError(a, "padding should be non-negative, but got " + shapeStr({f.p[0], f.p[1]}));
        if (f.s[i] <= 0) return opError(a, "stride should be greater than zero, but got " + shapeStr({f.s[0], f.s[1]}));
        f.blocks[i] = (img[i] + 2 * f.p[i] - (f.d[i] * (f.k[i] - 1) + 1)) / f.s[i] + 1;
    }
    if (f.blocks[0] < 1 || f.blocks[1] < 1 || img[0] + 2 * f.p[0] < f.d[0] * (f.k[0] - 1) + 1 ||
        img[1] + 2 * f.p[1] < f.d[1] * (f.k[1] - 1) + 1)
        return opError(a, "given input with spatial size " + shapeStr({img[0], img[1]}) + ", kernel_size " +
                              shapeStr({f.k[0], f.k[1]}) + ", dilation " + shapeStr({f.d[0], f.d[1]}) + ", padding " +
                              shapeStr({f.p[0], f.p[1]}) + ", the calculated shape of the array of sliding blocks is " +
                              "too small: its components must be at least one");
    return f;
}

/// Calls fn(offset in the column matrix, offset in the image or -1 in the padding) for every
/// column entry of one image.
template <typename F>
void forEachTap(const FoldSpec& f, F&& fn) {
    int64_t row = 0;
    for (int64_t c = 0; c < f.C; ++c)
        for (int64_t ki = 0; ki < f.k[0]; ++ki)
            for (int64_t kj = 0; kj < f.k[1]; ++kj, ++row)
                for (int64_t bi = 0; bi < f.blocks[0]; ++bi) {
                    const int64_t y = bi * f.s[0] - f.p[0] + ki * f.d[0];
                    for (int64_t bj = 0; bj < f.blocks[1]; ++bj) {
                        const int64_t x = bj * f.s[1] - f.p[1] + kj * f.d[1];
                        const bool inside = y >= 0 && y < f.img[0] && x >= 0 && x < f.img[1];
                        fn(row * f.L() + bi * f.blocks[1] + bj, inside ? (c * f.img[0] + y) * f.img[1] + x : -1);
                    }
                }
}

// im2col(self, kernel_size, dilation, padding, stride)
Expected<FoldSpec> im2colSpec(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const auto& s = (*in)->shape();
    if (s.size() != 3 && s.size() != 4) return opError(a, "expected a 3-D or 4-D (batched) input, got " + shapeStr(s));
    for (size_t d = s.size() - 3; d < s.size(); ++d)
        if (s[d] == 0)
            return opError(a, "expected non-empty 3-D or 4-D input with a possibly empty batch, got " + shapeStr(s));
    auto f = foldParams(a, 1, {s[s.size() - 2], s[s.size() - 1]});
    if (!f.ok()) return f;
    f->batched = s.size() == 4;
    f->N = f->batched ? s[0] : 1;
    f->C = s[s.size() - 3];
    return f;
}

Expected<Value> metaIm2col(const OpArgs& a) {
    auto f = im2colSpec(a);
    if (!f.ok()) return f.error();
    std::vector<int64_t> shape{f->C * f->K(), f->L()};
    if (f->batched) shape.insert(shape.begin(), f->N);
    return metaValue(TensorMeta::contiguous(shape, a.tensor(0).dtype(), a.tensor(0).meta.device));
}

Expected<Value> im2colKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = im2colSpec(a);
    if (!f.ok()) return f.error();
    auto x = toDoubles(a.tensor(0));
    const int64_t imgSz = f->C * f->img[0] * f->img[1], colSz = f->C * f->K() * f->L();
    std::vector<double> col(static_cast<size_t>(f->N * colSz), 0.0);
    for (int64_t n = 0; n < f->N; ++n)
        forEachTap(*f, [&](int64_t ci, int64_t xi) {
            if (xi >= 0) col[static_cast<size_t>(n * colSz + ci)] = x[static_cast<size_t>(n * imgSz + xi)];
        });
    return Value::ofTensor(makeTensor(out.t.meta, col));
}

// col2im(self, output_size, kernel_size, dilation, padding, stride)
Expected<FoldSpec> col2imSpec(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const auto& s = (*in)->shape();
    if (s.size() != 2 && s.size() != 3) return opError(a, "expected a 2-D or 3-D (batched) input, got " + shapeStr(s));
    for (size_t d = s.size() - 2; d < s.size(); ++d)
        if (s[d] == 0)
            return opError(a, "expected non-empty 2-D or 3-D input with a possibly empty batch, got " + shapeStr(s));
    auto os = pairArg(a, 1, "output_size");
    if (!os.ok()) return os.error();
    if ((*os)[0] <= 0 || (*os)[1] <= 0)
        return opError(a, "output_size must be positive, got " + shapeStr({(*os)[0], (*os)[1]}));
    auto f = foldParams(a, 2, *os);
    if (!f.ok()) return f;
    f->batched = s.size() == 3;
    f->N = f->batched ? s[0] : 1;
    const int64_t rows = s[s.size() - 2], L = s[s.size() - 1];
    if (rows % f->K() != 0)
        return opError(a, "expected size of input's dimension " + std::to_string(s.size() - 2) +
                              " to be divisible by the product of kernel_size (" + std::to_string(f->K()) +
                              "), but got " + std::to_string(rows));
    if (L != f->L())
        return opError(a, "given output_size " + shapeStr({(*os)[0], (*os)[1]}) +
                              ", the expected number of sliding "
                              "blocks is " +
                              std::to_string(f->L()) + ", but the input has " + std::to_string(L));
    f->C = rows / f->K();
    return f;
}

Expected<Value> metaCol2im(const OpArgs& a) {
    auto f = col2imSpec(a);
    if (!f.ok()) return f.error();
    std::vector<int64_t> shape{f->C, f->img[0], f->img[1]};
    if (f->batched) shape.insert(shape.begin(), f->N);
    return metaValue(TensorMeta::contiguous(shape, a.tensor(0).dtype(), a.tensor(0).meta.device));
}

Expected<Value> col2imKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = col2imSpec(a);
    if (!f.ok()) return f.error();
    auto col = toDoubles(a.tensor(0));
    const int64_t imgSz = f->C * f->img[0] * f->img[1], colSz = f->C * f->K() * f->L();
    std::vector<double> img(static_cast<size_t>(f->N * imgSz), 0.0);
    for (int64_t n = 0; n < f->N; ++n)
        forEachTap(*f, [&](int64_t ci, int64_t xi) {
            if (xi >= 0) img[static_cast<size_t>(n * imgSz + xi)] += col[static_cast<size_t>(n * colSz + ci)];
        });
    return Value::ofTensor(makeTensor(out.t.meta, img));
}

}  // namespace

void registerFoldOps(OpRegistry& r) {
    r.add("aten.im2col.default",
          "im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
          OpCategory::Other, metaIm2col, im2colKernel);
    r.add("aten.col2im.default",
          "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
          "int[2] stride) -> Tensor",
          OpCategory::Other, metaCol2im, col2imKernel);
}

}  // namespace fxray
