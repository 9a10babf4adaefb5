#pragma once
// A deterministic FX graph as text (the print_readable format the corpus holds), of about N
// nodes and shaped like a deep model: stages of repeated layers, alternating a DenseNet-like CNN
// stage (each layer concatenates the stage's recent features, then norm, relu and convolution)
// and a transformer stage (layer norm, attention through mm/bmm/softmax, an MLP, residual adds),
// with a transition between stages. Every statement has a `# File:` provenance line whose
// line number repeats per layer, as a real model's do, so the canvas finds its layers and
// stacks. It stands in for the big real graphs (densenet121, llama) that are not checked in:
// the large-graph tests and bench_gui parse it like any file, so parsing is measured too.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace fxtest {

struct SyntheticShape {
    int nodes = 20000;  ///< about this many nodes (the last layer completes, then the output)
    int stages = 8;
};

/// The text; `layers` (when given) receives the number of layers of each stage, in order.
inline std::string syntheticFxText(const SyntheticShape& shape = {}, std::vector<int>* layers = nullptr) {
    std::string body, params;
    int nodes = 0, primals = 0, counter = 0;
    auto fresh = [&](const char* stem) { return std::string(stem) + "_" + std::to_string(counter++); };
    auto primal = [&](const std::string& type) {
        const std::string name = "primals_" + std::to_string(++primals);
        if (!params.empty()) params += ", ";
        params += name + ": \"" + type + "\"";
        ++nodes;
        return name;
    };
    auto file = [&](int line, const char* code) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "\n        # File: /synthetic/model.py:%d in forward, code: %s\n", line, code);
        body += buf;
    };
    auto stmt = [&](const std::string& name, const std::string& type, const std::string& rhs) {
        body += "        " + name + (type.empty() ? "" : ": \"" + type + "\"") + " = " + rhs + "\n";
        ++nodes;
        return name;
    };
    const std::string act = "f32[2, 64, 28, 28][50176, 784, 28, 1]cuda:0";
    const std::string seq = "f32[2, 128, 256][32768, 256, 1]cuda:0";
    const std::string flat = "f32[256, 256][256, 1]cuda:0";
    const std::string vec = "f32[256][1]cuda:0";
    const std::string mat = "f32[256, 256][256, 1]cuda:0";
    const std::string matT = "f32[256, 256][1, 256]cuda:0";
    const std::string kernel = "f32[64, 64, 3, 3][576, 9, 3, 1]cuda:0";
    const std::string chan = "f32[64][1]cuda:0";

    std::string x = primal(act);
    const int perStage = std::max(1, shape.nodes / std::max(1, shape.stages));
    for (int s = 0; s < shape.stages; ++s) {
        const int stageEnd = std::min(shape.nodes - 2, (s + 1) * perStage);
        const bool cnn = s % 2 == 0;
        if (!cnn) {
            // Into the sequence shape the transformer stage works on.
            file(30, "h = x.flatten(2).transpose(1, 2)");
            x = stmt(fresh("view"), seq, "torch.ops.aten.view.default(" + x + ", [2, 128, 256])");
        } else if (s > 0) {
            file(31, "x = x.transpose(1, 2).reshape(2, 64, 28, 28)");
            x = stmt(fresh("view"), act, "torch.ops.aten.view.default(" + x + ", [2, 64, 28, 28])");
        }
        std::vector<std::string> features{x};
        if (layers) layers->push_back(0);
        while (nodes < stageEnd) {
            if (layers) ++layers->back();
            if (cnn) {
                file(48, "concated_features = torch.cat(inputs, 1)");
                std::string list;
                const size_t from = features.size() > 4 ? features.size() - 4 : 0;
                for (size_t k = from; k < features.size(); ++k) list += (k > from ? ", " : "") + features[k];
                const int c = 64 * static_cast<int>(features.size() - from);
                const std::string wide =
                    "f32[2, " + std::to_string(c) + ", 28, 28][" + std::to_string(c * 784) + ", 784, 28, 1]cuda:0";
                const std::string cat = stmt(fresh("cat"), wide, "torch.ops.aten.cat.default([" + list + "], 1)");
                file(49, "bottleneck_output = self.conv1(self.relu1(self.norm1(concated_features)))");
                const std::string ch = "f32[" + std::to_string(c) + "][1]cuda:0";
                const std::string w = primal(ch), b = primal(ch), m = primal(ch), v = primal(ch);
                const std::string bn = stmt(fresh("_native_batch_norm_legit_no_training"), "",
                                            "torch.ops.aten._native_batch_norm_legit_no_training.default(" + cat +
                                                ", " + w + ", " + b + ", " + m + ", " + v + ", 0.1, 1e-05)");
                const std::string g = stmt(fresh("getitem"), wide, bn + "[0]");
                const std::string r = stmt(fresh("relu"), wide, "torch.ops.aten.relu.default(" + g + ")");
                const std::string k1 =
                    primal("f32[64, " + std::to_string(c) + ", 1, 1][" + std::to_string(c) + ", 1, 1, 1]cuda:0");
                const std::string c1 = stmt(fresh("convolution"), act,
                                            "torch.ops.aten.convolution.default(" + r + ", " + k1 +
                                                ", None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)");
                file(90, "new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))");
                const std::string r2 = stmt(fresh("relu"), act, "torch.ops.aten.relu.default(" + c1 + ")");
                const std::string k2 = primal(kernel);
                const std::string c2 = stmt(fresh("convolution"), act,
                                            "torch.ops.aten.convolution.default(" + r2 + ", " + k2 +
                                                ", None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)");
                features.push_back(c2);
                x = c2;
            } else {
                file(80, "hidden_states = self.input_layernorm(hidden_states)");
                const std::string lw = primal(vec), lb = primal(vec);
                const std::string ln =
                    stmt(fresh("native_layer_norm"), "",
                         "torch.ops.aten.native_layer_norm.default(" + x + ", [256], " + lw + ", " + lb + ", 1e-05)");
                const std::string h = stmt(fresh("getitem"), seq, ln + "[0]");
                file(81, "query_states = self.q_proj(hidden_states)");
                const std::string hv = stmt(fresh("view"), flat, "torch.ops.aten.view.default(" + h + ", [256, 256])");
                std::string qkv[3];
                for (std::string& p : qkv) {
                    const std::string w = primal(mat);
                    const std::string t = stmt(fresh("t"), matT, "torch.ops.aten.t.default(" + w + ")");
                    const std::string mm = stmt(fresh("mm"), flat, "torch.ops.aten.mm.default(" + hv + ", " + t + ")");
                    p = stmt(fresh("view"), seq, "torch.ops.aten.view.default(" + mm + ", [2, 128, 256])");
                }
                file(85, "attn_weights = torch.matmul(query, key.transpose(2, 3)) * self.scaling");
                const std::string kt = stmt(fresh("transpose"), "f32[2, 256, 128][32768, 1, 256]cuda:0",
                                            "torch.ops.aten.transpose.int(" + qkv[1] + ", 1, 2)");
                const std::string sc = stmt(fresh("bmm"), "f32[2, 128, 128][16384, 128, 1]cuda:0",
                                            "torch.ops.aten.bmm.default(" + qkv[0] + ", " + kt + ")");
                const std::string sm = stmt(fresh("_softmax"), "f32[2, 128, 128][16384, 128, 1]cuda:0",
                                            "torch.ops.aten._softmax.default(" + sc + ", -1, False)");
                const std::string at =
                    stmt(fresh("bmm"), seq, "torch.ops.aten.bmm.default(" + sm + ", " + qkv[2] + ")");
                file(88, "hidden_states = residual + self.o_proj(attn_output)");
                const std::string av = stmt(fresh("view"), flat, "torch.ops.aten.view.default(" + at + ", [256, 256])");
                const std::string wo = primal(mat);
                const std::string to = stmt(fresh("t"), matT, "torch.ops.aten.t.default(" + wo + ")");
                const std::string o = stmt(fresh("mm"), flat, "torch.ops.aten.mm.default(" + av + ", " + to + ")");
                const std::string ov =
                    stmt(fresh("view"), seq, "torch.ops.aten.view.default(" + o + ", [2, 128, 256])");
                const std::string res = stmt(fresh("add"), seq, "torch.ops.aten.add.Tensor(" + x + ", " + ov + ")");
                file(92, "hidden_states = residual + self.mlp(self.post_attention_layernorm(hidden_states))");
                const std::string mv =
                    stmt(fresh("view"), flat, "torch.ops.aten.view.default(" + res + ", [256, 256])");
                const std::string w1 = primal(mat), b1 = primal(vec);
                const std::string a1 =
                    stmt(fresh("addmm"), flat, "torch.ops.aten.addmm.default(" + b1 + ", " + mv + ", " + w1 + ")");
                const std::string ge = stmt(fresh("gelu"), flat, "torch.ops.aten.gelu.default(" + a1 + ")");
                const std::string w2 = primal(mat), b2 = primal(vec);
                const std::string a2 =
                    stmt(fresh("addmm"), flat, "torch.ops.aten.addmm.default(" + b2 + ", " + ge + ", " + w2 + ")");
                const std::string v2 =
                    stmt(fresh("view"), seq, "torch.ops.aten.view.default(" + a2 + ", [2, 128, 256])");
                x = stmt(fresh("add"), seq, "torch.ops.aten.add.Tensor(" + res + ", " + v2 + ")");
            }
        }
    }
    file(120, "return self.head(x.mean(1))");
    const bool seqOut = shape.stages % 2 == 0;
    x = stmt(fresh("mean"), seqOut ? "f32[2, 256][256, 1]cuda:0" : "f32[2, 64][64, 1]cuda:0",
             "torch.ops.aten.mean.dim(" + x + ", [1])");
    return "class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):" + body + "        return (" +
           x + ",)\n";
}

}  // namespace fxtest
