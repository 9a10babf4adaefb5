class GraphModule(torch.nn.Module):
    def forward(self, q: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu", k: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu", v: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu"):
        _scaled_dot_product_efficient_attention_default = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, None, False, 0.0, scale = 0.5);  q = k = v = None
        getitem: "f32[1, 2, 4, 8][64, 8, 16, 1]cpu" = _scaled_dot_product_efficient_attention_default[0];  _scaled_dot_product_efficient_attention_default = None
        inductor_force_stride_order_default: "f32[1, 2, 4, 8][64, 32, 8, 1]cpu" = torch.ops.prims.inductor_force_stride_order.default(getitem, [64, 32, 8, 1]);  getitem = None
        return (inductor_force_stride_order_default,)
