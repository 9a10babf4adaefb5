class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4][12, 4, 1]cpu"):
        view: "f32[2, 3, 4][12, 4, 1]cpu" = torch.ops.aten.view.default(x, [2, 3, -1])
        view_1: "f32[6, 4][4, 1]cpu" = torch.ops.aten.view.default(view, [6, 4]);  view = None
        view_2: "f32[2, 3, 4][12, 4, 1]cpu" = torch.ops.aten.view.default(view_1, [2, 3, 4]);  view_1 = None
        permute: "f32[4, 2, 3][1, 12, 4]cpu" = torch.ops.aten.permute.default(view_2, [2, 0, 1]);  view_2 = None
        permute_1: "f32[2, 3, 4][12, 4, 1]cpu" = torch.ops.aten.permute.default(permute, [1, 2, 0]);  permute = None
        permute_2: "f32[3, 2, 4][4, 12, 1]cpu" = torch.ops.aten.permute.default(x, [1, 0, 2]);  x = None
        add: "f32[2, 3, 4][12, 4, 1]cpu" = torch.ops.aten.add.Tensor(permute_1, 1);  permute_1 = None
        return (add, permute_2)
