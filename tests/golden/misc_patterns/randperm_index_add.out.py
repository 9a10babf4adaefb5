class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 4][4, 1]cpu", y: "f32[3, 4][4, 1]cpu"):
        randperm: "i64[8][1]cpu" = torch.ops.aten.randperm.default(8, device = device(type='cpu'), pin_memory = False)
        slice_1: "i64[3][1]cpu" = torch.ops.aten.slice.Tensor(randperm, 0, 0, 3);  randperm = None
        _unsafe_index_tensor: "f32[3, 4][4, 1]cpu" = torch.ops.aten._unsafe_index.Tensor(x, [slice_1])
        add_tensor: "f32[3, 4][4, 1]cpu" = torch.ops.aten.add.Tensor(_unsafe_index_tensor, y);  _unsafe_index_tensor = y = None
        index_put_default: "f32[8, 4][4, 1]cpu" = torch.ops.aten.index_put.default(x, [slice_1], add_tensor);  x = slice_1 = add_tensor = None
        return (index_put_default,)
