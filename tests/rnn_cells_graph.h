#pragma once
// A graph with every form of the fused LSTM / GRU cell ops (with and without biases, a missing
// grad_cy) and the activation backwards that had no kernels (leaky_relu_backward, elu,
// elu_backward), for the compiled backends' tests against the reference executor
// (tst_cpu_rnn_cells, tst_cuda_exec_ops). B = 3 rows, H = 5.
#include <string>
#include <utility>
#include <vector>

namespace fxtest {

/// (params, body) for parseForward on `device` ("cpu" or "cuda:0").
inline std::pair<std::string, std::string> rnnCellsGraph(const std::string& device) {
    auto ann = [&](std::vector<int> s) {
        std::string sh, st;
        int stride = 1;
        std::vector<int> strides(s.size());
        for (size_t i = s.size(); i-- > 0;) strides[i] = stride, stride *= s[i];
        for (size_t i = 0; i < s.size(); ++i)
            sh += (i ? ", " : "") + std::to_string(s[i]), st += (i ? ", " : "") + std::to_string(strides[i]);
        return "\"f32[" + sh + "][" + st + "]" + device + "\"";
    };
    const std::string BH = ann({3, 5});
    std::string params = "ig4: " + ann({3, 20}) + ", hg4: " + ann({3, 20}) + ", cx: " + BH + ", bi4: " + ann({20}) +
                         ", bh4: " + ann({20}) + ", ig3: " + ann({3, 15}) + ", hg3: " + ann({3, 15}) + ", hx: " + BH +
                         ", bi3: " + ann({15}) + ", bh3: " + ann({15}) + ", ghy: " + BH + ", gcy: " + BH + ", x: " + BH;
    std::string body;
    auto line = [&](const std::string& name, const std::string& a, const std::string& rhs) {
        body += "        " + name + (a.empty() ? "" : ": " + a) + " = " + rhs + "\n";
    };
    auto items = [&](const std::string& tuple, const std::vector<std::pair<std::string, std::string>>& outs) {
        for (size_t i = 0; i < outs.size(); ++i)
            line(outs[i].first, outs[i].second, tuple + "[" + std::to_string(i) + "]");
    };
    const std::string G4 = ann({3, 20}), G3 = ann({3, 15}), W5 = ann({3, 25});
    line("lstm", "", "torch.ops.aten._thnn_fused_lstm_cell.default(ig4, hg4, cx, bi4, bh4)");
    items("lstm", {{"hy", BH}, {"cy", BH}, {"ws", G4}});
    line("lstm_nb", "", "torch.ops.aten._thnn_fused_lstm_cell.default(ig4, hg4, cx)");
    items("lstm_nb", {{"hy2", BH}, {"cy2", BH}, {"ws2", G4}});
    line("lb", "", "torch.ops.aten._thnn_fused_lstm_cell_backward_impl.default(ghy, gcy, cx, cy, ws, True)");
    items("lb", {{"gg", G4}, {"gcx", BH}, {"lgb", ann({20})}});
    line("lb2", "", "torch.ops.aten._thnn_fused_lstm_cell_backward_impl.default(ghy, None, cx, cy2, ws2, False)");
    items("lb2", {{"gg2", G4}, {"gcx2", BH}});
    line("gru", "", "torch.ops.aten._thnn_fused_gru_cell.default(ig3, hg3, hx, bi3, bh3)");
    items("gru", {{"ghy_", BH}, {"gws", W5}});
    line("gru_nb", "", "torch.ops.aten._thnn_fused_gru_cell.default(ig3, hg3, hx)");
    items("gru_nb", {{"ghy2", BH}, {"gws2", W5}});
    line("gb", "", "torch.ops.aten._thnn_fused_gru_cell_backward.default(ghy, gws, True)");
    items("gb", {{"gi", G3}, {"gh", G3}, {"ghx", BH}, {"gbi", ann({15})}, {"gbh", ann({15})}});
    line("gb2", "", "torch.ops.aten._thnn_fused_gru_cell_backward.default(gcy, gws2, False)");
    items("gb2", {{"gi2", G3}, {"gh2", G3}, {"ghx2", BH}});
    line("lrb", BH, "torch.ops.aten.leaky_relu_backward.default(ghy, x, 0.2, False)");
    line("elu", BH, "torch.ops.aten.elu.default(x, 1.5, 1.25, 0.5)");
    line("eb", BH, "torch.ops.aten.elu_backward.default(ghy, 1.5, 1.25, 0.5, False, x)");
    line("eb2", BH, "torch.ops.aten.elu_backward.default(ghy, 1.5, 1.25, 0.5, True, elu)");
    body +=
        "        return (hy, cy, ws, hy2, cy2, ws2, gg, gcx, lgb, gg2, gcx2, ghy_, gws, ghy2, gws2, gi, gh, ghx, gbi, "
        "gbh, gi2, gh2, ghx2, lrb, elu, eb, eb2)\n";
    return {params, body};
}

}  // namespace fxtest
