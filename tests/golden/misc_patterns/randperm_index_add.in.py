class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 4][4, 1]cpu", y: "f32[3, 4][4, 1]cpu"):
        randperm: "i64[8][1]cpu" = torch.ops.aten.randperm.default(8, device = device(type='cpu'), pin_memory = False)
        slice_1: "i64[3][1]cpu" = torch.ops.aten.slice.Tensor(randperm, 0, 0, 3);  randperm = None
        index_add: "f32[8, 4][4, 1]cpu" = torch.ops.aten.index_add.default(x, 0, slice_1, y);  x = slice_1 = y = None
        return (index_add,)
