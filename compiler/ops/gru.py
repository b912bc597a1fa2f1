"""gru: one unidirectional GRU layer over all time steps, int8 in and out, int16 inside
(compiler/reference.py gru_s8; what it shares with the other recurrent layer, its import,
calibration and lowering: compiler/ops/recurrent.py).

aten.gru.input (kept whole by the importer; a 2-layer module is split into two calls by
compiler/decompositions.py) → one `gru` op whose weights are stored once: inputs x, w_ih, w_hh,
b_ih, b_hh[, initial state], outputs y, h_n, the state explicit so that a program may bind it to
persistent tensors. Scratch: the gate buffers (em_gru_s8_get_buffer_size).
"""
from __future__ import annotations

import torch

from compiler.ops import recurrent
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten

GRU = OpSpec(
    kind="gru",
    opcode=fb.OpCode.GRU,
    options_type=fb.OpOptions.RecurrentOptions,
    reference=recurrent.reference_of("gru"),
    write_options=recurrent.write,
    read_options=recurrent.read_options("gru"),
    registration="em_op_gru",
    imports=(Import((aten.gru.input,), recurrent.read("gru"), "recurrent", calibrate=recurrent.calibrate("gru"),
                    fixed_batch=True),),
    lowerings=(Lowering(("aten.gru",), recurrent.lower("gru")),),
    macs=recurrent.macs,
    scratch=recurrent.scratch("gru"),
    shape_note=recurrent.shape_note,
    path={"mve": "MVE gate rows (VMLADAV)", "dsp": "DSP 4 gate rows (SMLAD)", "scalar": "scalar 4 gate rows"},
    weighted=True,
)
