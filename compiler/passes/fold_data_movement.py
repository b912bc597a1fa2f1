"""fold_data_movement: removes the copies that layout conversion, slicing and padding made
redundant, by the data-movement ops' own folds (OpSpec.fold: a slice of a slice is one slice,
transposes compose, vanish or become reshapes, reshapes of reshapes are one, a zero pad becomes
the padding of the convolution or average pool that reads it), run until none changes the graph
(a transpose turned reshape may then join the reshapes around it)."""
from __future__ import annotations

from compiler.ir import Graph
from compiler.ops import OP_TABLE
from compiler.options import LoweringOptions
from compiler.passes.remove_dead_tensors import remove_dead_tensors


def fold_data_movement(graph: Graph, options: LoweringOptions) -> Graph:
    graph = remove_dead_tensors(graph, options)  # the lowered ops' dequantizes still read their outputs
    folds = [spec.fold for spec in OP_TABLE.values() if spec.fold is not None]
    while any([fold(graph) for fold in folds]):  # a list: every fold runs each round
        pass
    return graph
