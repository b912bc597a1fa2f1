"""eliminate_common_subexpressions: an op computed twice on the same inputs (`F.elu(fc(x)) +
F.selu(fc(x))`, `torch.where(fc(x) > 0, fc(x), …)`) is computed once, its users all reading it,
by torch.fx's own CSE pass (random ops excluded). One computation also makes one tensor of
`fc(x)`, so what is a function of it is recognized as one (compiler/pointwise.py)."""
from __future__ import annotations

from torch.fx import GraphModule
from torch.fx.passes.dialect.common.cse_pass import CSEPass


def eliminate_common_subexpressions(gm: GraphModule) -> GraphModule:
    result = CSEPass()(gm)
    if not result.modified:
        return gm
    # The pass builds a new graph: it keeps the export's pytree code generation, so the module
    # still takes and returns what the model does (not flat tuples).
    result.graph_module.graph._codegen = gm.graph._codegen
    result.graph_module.recompile()
    return result.graph_module
