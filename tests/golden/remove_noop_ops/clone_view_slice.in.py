class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu", y: "f32[3, 2][1, 3]cpu"):
        clone: "f32[2, 3][3, 1]cpu" = torch.ops.aten.clone.default(x)
        relu: "f32[2, 3][3, 1]cpu" = torch.ops.aten.relu.default(clone);  clone = None
        view: "f32[2, 3][3, 1]cpu" = torch.ops.aten.view.default(relu, [2, 3]);  relu = None
        clone_1: "f32[3, 2][2, 1]cpu" = torch.ops.aten.clone.default(y, memory_format = torch.contiguous_format);  y = None
        slice_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.slice.Tensor(view, 0, 0, 9223372036854775807);  view = None
        mul: "f32[2, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(slice_1, x);  slice_1 = x = None
        return (mul, clone_1)
