"""lstm: one unidirectional LSTM layer over all time steps, int8 in and out, int16 inside
(compiler/reference.py lstm_s8; what it shares with the other recurrent layer, its import,
calibration and lowering: compiler/ops/recurrent.py).

aten.lstm.input (kept whole by the importer; a 2-layer module is split into two calls by
compiler/decompositions.py) → one `lstm` op whose weights are stored once: inputs x, w_ih, w_hh,
b_ih, b_hh[, initial state], outputs y, h_n, c_n, the state explicit so that a program may bind it to
persistent tensors. Scratch: the gate buffers (em_lstm_s8_get_buffer_size).
"""
from __future__ import annotations

import torch

from compiler.ops import recurrent
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten

LSTM = OpSpec(
    kind="lstm",
    opcode=fb.OpCode.LSTM,
    options_type=fb.OpOptions.RecurrentOptions,
    reference=recurrent.reference_of("lstm"),
    write_options=recurrent.write,
    read_options=recurrent.read_options("lstm"),
    registration="em_op_lstm",
    imports=(Import((aten.lstm.input,), recurrent.read("lstm"), "recurrent", calibrate=recurrent.calibrate("lstm"),
                    fixed_batch=True),),
    lowerings=(Lowering(("aten.lstm",), recurrent.lower("lstm")),),
    macs=recurrent.macs,
    scratch=recurrent.scratch("lstm"),
    shape_note=recurrent.shape_note,
    path={"mve": "MVE gate rows (VMLADAV)", "dsp": "DSP 4 gate rows (SMLAD)", "scalar": "scalar 4 gate rows"},
    weighted=True,
)
