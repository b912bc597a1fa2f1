"""concatenation: every axis of 4-D NHWC and of 2-D tensors, 1 to 8 inputs (the adapter's
maximum), odd sizes, one input constant, the same tensor twice; int16 (raw audio: a streamed front
end's history joined to its new samples)."""
from __future__ import annotations

from conformance import Case, edge_int8, edge_values, int8_tensor, rng_for, single_op, typed_tensor

# shapes of the inputs, axis, which input (if any) is constant
CASES = [([(1, 3, 5, 7), (1, 3, 5, 9)], 3, None), ([(2, 3, 5, 7), (2, 1, 5, 7), (2, 4, 5, 7)], 1, 1),
         ([(1, 3, 5, 7), (1, 3, 2, 7)], 2, None), ([(1, 2, 3, 4), (2, 2, 3, 4)], 0, None),
         ([(3, 17)] * 3, 1, 2), ([(3, 1), (5, 1)], 0, None), ([(1, 1, 1, 1)] * 8, 3, None),
         ([(1, 4, 4, 1), (1, 4, 4, 3), (1, 4, 4, 16), (1, 4, 4, 2)], 3, None), ([(1, 2, 2, 5)], 3, None)]



def random_cases(count: int = 10) -> list:
    """Seeded random ranks 1..4, axes, 1..8 inputs, sizes 1..9; some with a constant input."""
    found = []
    for i in range(count):
        rng = rng_for("concatenation", "random", i)
        base = [int(d) for d in rng.integers(1, 10, size=int(rng.integers(1, 5)))]
        axis = int(rng.integers(0, len(base)))
        shapes = []
        for _ in range(int(rng.integers(1, 9))):
            shape = list(base)
            shape[axis] = int(rng.integers(1, 10))
            shapes.append(tuple(shape))
        found.append((shapes, axis, int(rng.integers(0, len(shapes))) if i % 3 == 0 else None))
    return found


CASES += random_cases()


def cases() -> list[Case]:
    out = []
    for k, (shapes, axis, constant) in enumerate(CASES):
        rng = rng_for("concatenation", k)
        values = [edge_int8(rng, s) for s in shapes]
        operands = [int8_tensor(f"x{i}", s, 3, 0.1, data=values[i] if i == constant else None) for i, s in enumerate(shapes)]
        y_shape = list(shapes[0])
        y_shape[axis] = sum(s[axis] for s in shapes)
        inputs = [v for i, v in enumerate(values) if i != constant]
        out.append(single_op("concatenation", operands, int8_tensor("y", y_shape, 3, 0.1), {"axis": axis}, inputs,
                             name=f"{len(shapes)}_inputs_axis{axis}_{'x'.join(map(str, y_shape))}",
                             params={"inputs": shapes, "axis": axis, "constant_input": constant}))
    rng = rng_for("concatenation", "twice")
    x = edge_int8(rng, (1, 3, 3, 5))
    out.append(single_op("concatenation", [int8_tensor("x", x.shape, 3, 0.1)] * 2, int8_tensor("y", (1, 3, 3, 10), 3, 0.1),
                         {"axis": 3}, [x], name="x_twice_axis3", params={"inputs": "x, x", "axis": 3}))
    for k, (shapes, axis) in enumerate([([(1, 512), (1, 512)], 1), ([(2, 3, 5), (2, 1, 5), (2, 4, 5)], 1),
                                        ([(3, 7), (2, 7)], 0)]):
        values = [edge_values(rng_for("concatenation", "int16", k, i), "int16", s) for i, s in enumerate(shapes)]
        y_shape = list(shapes[0])
        y_shape[axis] = sum(s[axis] for s in shapes)
        out.append(single_op("concatenation", [typed_tensor(f"x{i}", "int16", s) for i, s in enumerate(shapes)],
                             typed_tensor("y", "int16", y_shape), {"axis": axis}, values,
                             name=f"int16_{len(shapes)}_inputs_axis{axis}_{'x'.join(map(str, y_shape))}",
                             params={"inputs": shapes, "axis": axis, "dtype": "int16"}))
    return out
