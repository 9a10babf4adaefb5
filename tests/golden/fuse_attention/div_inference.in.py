class GraphModule(torch.nn.Module):
    def forward(self, q: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu", k: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu", v: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu"):
        transpose: "f32[1, 2, 8, 4][64, 32, 1, 8]cpu" = torch.ops.aten.transpose.int(k, -2, -1);  k = None
        expand: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu" = torch.ops.aten.expand.default(q, [1, 2, 4, 8]);  q = None
        view: "f32[2, 4, 8][32, 8, 1]cpu" = torch.ops.aten.view.default(expand, [2, 4, 8]);  expand = None
        expand_1: "f32[1, 2, 8, 4][64, 32, 1, 8]cpu" = torch.ops.aten.expand.default(transpose, [1, 2, 8, 4]);  transpose = None
        view_1: "f32[2, 8, 4][32, 1, 8]cpu" = torch.ops.aten.view.default(expand_1, [2, 8, 4]);  expand_1 = None
        bmm: "f32[2, 4, 4][16, 4, 1]cpu" = torch.ops.aten.bmm.default(view, view_1);  view = view_1 = None
        view_2: "f32[1, 2, 4, 4][32, 16, 4, 1]cpu" = torch.ops.aten.view.default(bmm, [1, 2, 4, 4]);  bmm = None
        div: "f32[1, 2, 4, 4][32, 16, 4, 1]cpu" = torch.ops.aten.div.Tensor(view_2, 2.0);  view_2 = None
        _softmax: "f32[1, 2, 4, 4][32, 16, 4, 1]cpu" = torch.ops.aten._softmax.default(div, -1, False);  div = None
        expand_2: "f32[1, 2, 4, 4][32, 16, 4, 1]cpu" = torch.ops.aten.expand.default(_softmax, [1, 2, 4, 4]);  _softmax = None
        view_3: "f32[2, 4, 4][16, 4, 1]cpu" = torch.ops.aten.view.default(expand_2, [2, 4, 4]);  expand_2 = None
        expand_3: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu" = torch.ops.aten.expand.default(v, [1, 2, 4, 8]);  v = None
        view_4: "f32[2, 4, 8][32, 8, 1]cpu" = torch.ops.aten.view.default(expand_3, [2, 4, 8]);  expand_3 = None
        bmm_1: "f32[2, 4, 8][32, 8, 1]cpu" = torch.ops.aten.bmm.default(view_3, view_4);  view_3 = view_4 = None
        view_5: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu" = torch.ops.aten.view.default(bmm_1, [1, 2, 4, 8]);  bmm_1 = None
        return (view_5,)
