class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]cuda:0", w: "f32[8, 4][4, 1]cuda:0", z: "f32[6, 8][8, 1]cuda:0"):
        sum_1: "f32[][]cuda:0" = torch.ops.aten.sum.default(x)
        gt: "b8[][]cuda:0" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        permute: "f32[4, 8][1, 4]cuda:0" = torch.ops.aten.permute.default(w, [1, 0]);  w = None
        slice_1: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.slice.Tensor(z, 0, 1, 5);  z = None
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (x, permute, slice_1));  gt = true_graph_0 = false_graph_0 = x = permute = slice_1 = None
        getitem: "f32[4, 8][8, 1]cuda:0" = cond[0]
        getitem_1: "f32[4][1]cuda:0" = cond[1];  cond = None
        return (getitem, getitem_1)

    class true_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4, 8][8, 1]cuda:0", arg1_1: "f32[4, 8][1, 4]cuda:0", arg2_1: "f32[4, 8][8, 1]cuda:0"):
            sum_1: "f32[][]cuda:0" = torch.ops.aten.sum.default(arg1_1)
            gt: "b8[][]cuda:0" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
            true_graph_0 = self.true_graph_0
            false_graph_0 = self.false_graph_0
            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (arg0_1, arg1_1));  gt = true_graph_0 = false_graph_0 = None
            getitem: "f32[4, 8][8, 1]cuda:0" = cond[0];  cond = None
            mul: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.mul.Tensor(getitem, arg2_1);  getitem = None
            sum_2: "f32[4][1]cuda:0" = torch.ops.aten.sum.dim_IntList(arg2_1, [1]);  arg2_1 = None
            return (mul, sum_2)

        class true_graph_0(torch.nn.Module):
            def forward(self, arg0_1: "f32[4, 8][8, 1]cuda:0", arg1_1: "f32[4, 8][1, 4]cuda:0"):
                add: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
                return (add,)

        class false_graph_0(torch.nn.Module):
            def forward(self, arg0_1: "f32[4, 8][8, 1]cuda:0", arg1_1: "f32[4, 8][1, 4]cuda:0"):
                sub: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.sub.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
                exp: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.exp.default(sub);  sub = None
                return (exp,)

    class false_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4, 8][8, 1]cuda:0", arg1_1: "f32[4, 8][1, 4]cuda:0", arg2_1: "f32[4, 8][8, 1]cuda:0"):
            tanh: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.tanh.default(arg0_1);  arg0_1 = None
            clone: "f32[4, 8][1, 4]cuda:0" = torch.ops.aten.clone.default(arg1_1);  arg1_1 = None
            amax: "f32[4][1]cuda:0" = torch.ops.aten.amax.default(arg2_1, [1]);  arg2_1 = None
            return (clone, amax)
