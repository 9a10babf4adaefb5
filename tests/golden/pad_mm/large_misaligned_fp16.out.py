class GraphModule(torch.nn.Module):
    def forward(self, x: "f16[8191, 8193][8193, 1]cuda:0", w: "f16[8193, 4095][4095, 1]cuda:0"):
        constant_pad_nd_default: "f16[8192, 8200][8200, 1]cuda:0" = torch.ops.aten.constant_pad_nd.default(x, [0, 7, 0, 1]);  x = None
        constant_pad_nd_default_1: "f16[8200, 4096][4096, 1]cuda:0" = torch.ops.aten.constant_pad_nd.default(w, [0, 1, 0, 7]);  w = None
        mm_default: "f16[8192, 4096][4096, 1]cuda:0" = torch.ops.aten.mm.default(constant_pad_nd_default, constant_pad_nd_default_1);  constant_pad_nd_default = constant_pad_nd_default_1 = None
        slice_tensor: "f16[8191, 4096][4096, 1]cuda:0" = torch.ops.aten.slice.Tensor(mm_default, 0, 0, -1);  mm_default = None
        slice_tensor_1: "f16[8191, 4095][4096, 1]cuda:0" = torch.ops.aten.slice.Tensor(slice_tensor, 1, 0, -1);  slice_tensor = None
        relu: "f16[8191, 4095][4095, 1]cuda:0" = torch.ops.aten.relu.default(slice_tensor_1);  slice_tensor_1 = None
        return (relu,)
