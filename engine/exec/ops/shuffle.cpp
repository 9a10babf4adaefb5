// Channel rearrangements: pixel_shuffle (depth to space), pixel_unshuffle (space to depth) and
// channel_shuffle (interleaving channel groups).
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

/// Output format of the shuffles (torch's meta_pixel_shuffle, and what CUDA gives): a
/// channels-last input keeps channels-last on CPU only; everything else is contiguous.
bool shuffleChannelsLast(const TensorMeta& m) { return isChannelsLast(m) && m.device.type == "cpu"; }

// pixel_shuffle(self, upscale_factor), pixel_unshuffle(self, downscale_factor)
Expected<std::vector<int64_t>> pixelShape(const OpArgs& a) {
    const bool up = a.op().schema.name == "pixel_shuffle";
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const auto& s = (*in)->shape();
    const int64_t r = a.toInt(1);
    if (s.size() < 3)
        return opError(a, "pixel_" + std::string(up ? "" : "un") +
                              "shuffle expects input to have at least 3 dimensions, "
                              "but got input with " +
                              std::to_string(s.size()) + " dimension(s)");
    if (r <= 0) return opError(a, "factor must be greater than 0, but got: " + std::to_string(r));
    const size_t nd = s.size();
    std::vector<int64_t> o = s;
    if (up) {
        if (s[nd - 3] % (r * r) != 0)
            return opError(a, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                              "upscale_factor, but input.size(-3)=" +
                                  std::to_string(s[nd - 3]) + " is not divisible by " + std::to_string(r * r));
        o[nd - 3] = s[nd - 3] / (r * r);
        o[nd - 2] = s[nd - 2] * r;
        o[nd - 1] = s[nd - 1] * r;
    } else {
        if (s[nd - 2] % r != 0 || s[nd - 1] % r != 0)
            return opError(a, "pixel_unshuffle expects height and width to be divisible by downscale_factor, but got " +
                                  shapeStr(s) + " and factor " + std::to_string(r));
        o[nd - 3] = s[nd - 3] * r * r;
        o[nd - 2] = s[nd - 2] / r;
        o[nd - 1] = s[nd - 1] / r;
    }
    return o;
}

Expected<Value> metaPixel(const OpArgs& a) {
    auto shape = pixelShape(a);
    if (!shape.ok()) return shape.error();
    const TensorMeta& im = a.tensor(0).meta;
    return metaValue(denseMeta(*shape, im.dtype, im.device, shuffleChannelsLast(im)));
}

Expected<Value> pixelKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool up = a.op().schema.name == "pixel_shuffle";
    const Tensor& in = a.tensor(0);
    const int64_t r = a.toInt(1);
    // The small (channel-rich) side: [B, C*r*r, H, W]; the large side: [B, C, H*r, W*r].
    const auto& ls = up ? out.t.shape() : in.shape();
    const size_t nd = ls.size();
    const int64_t C = ls[nd - 3], H = ls[nd - 2] / r, W = ls[nd - 1] / r;
    const int64_t B = spanProduct(ls, 0, nd - 3);
    auto x = toDoubles(in);
    std::vector<double> y(x.size());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < r; ++i)
                for (int64_t j = 0; j < r; ++j)
                    for (int64_t h = 0; h < H; ++h)
                        for (int64_t w = 0; w < W; ++w) {
                            const size_t small =
                                static_cast<size_t>((((b * C + c) * r * r + i * r + j) * H + h) * W + w);
                            const size_t large =
                                static_cast<size_t>(((b * C + c) * H * r + h * r + i) * W * r + w * r + j);
                            if (up)
                                y[large] = x[small];
                            else
                                y[small] = x[large];
                        }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// channel_shuffle(self, groups)
Expected<Value> metaChannelShuffle(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    const int64_t g = a.toInt(1);
    if (im.dim() <= 2)
        return opError(a, "channel_shuffle expects input to have at least 3 dimensions, but got input with " +
                              std::to_string(im.dim()) + " dimension(s)");
    if (g <= 0)
        return opError(a,
                       "Number of groups to divide channels in must be positive. Value of groups:" + std::to_string(g));
    if (im.shape[1] % g != 0)
        return opError(a, "Number of channels must be divisible by groups. Got " + std::to_string(im.shape[1]) +
                              " channels and " + std::to_string(g) + " groups.");
    // The CPU kernel keeps a channels-last layout; on CUDA (the composite) the output is contiguous.
    return metaValue(denseMeta(im.shape, im.dtype, im.device, shuffleChannelsLast(im)));
}

Expected<Value> channelShuffleKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const auto& s = in.shape();
    const int64_t g = a.toInt(1), C = s[1], per = C / g;
    const int64_t N = s[0], S = spanProduct(s, 2, s.size());
    auto x = toDoubles(in);
    std::vector<double> y(x.size());
    // Output channel i*g + j is input channel j*per + i (the [g, per] -> [per, g] transpose).
    for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < per; ++i)
            for (int64_t j = 0; j < g; ++j) {
                const int64_t oc = i * g + j, ic = j * per + i;
                for (int64_t e = 0; e < S; ++e)
                    y[static_cast<size_t>((n * C + oc) * S + e)] = x[static_cast<size_t>((n * C + ic) * S + e)];
            }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

}  // namespace

void registerShuffleOps(OpRegistry& r) {
    r.add("aten.pixel_shuffle.default", "pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", OpCategory::Other,
          metaPixel, pixelKernel);
    r.add("aten.pixel_unshuffle.default", "pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor",
          OpCategory::Other, metaPixel, pixelKernel);
    r.add("aten.channel_shuffle.default", "channel_shuffle(Tensor self, SymInt groups) -> Tensor", OpCategory::Other,
          metaChannelShuffle, channelShuffleKernel);
}

}  // namespace fxray
