"""eliminate_common_subexpressions: an op computed twice on the same inputs (`F.elu(fc(x)) +
F.selu(fc(x))`, `torch.where(fc(x) > 0, fc(x), …)`) is computed once, its users all reading it,
by torch.fx's own CSE pass (random ops excluded). One computation also makes one tensor of
`fc(x)`, so what is a function of it is recognized as one (compiler/pointwise.py)."""
from __future__ import annotations

from torch.fx import GraphModule
from torch.fx.passes.dialect.common.cse_pass import CSEPass


def eliminate_common_subexpressions(gm: GraphModule) -> GraphModule:
    result = CSEPass()(gm)
    return result.graph_module if result.modified else gm
