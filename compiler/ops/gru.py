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
from compiler.schema import program_generated as fb

GRU = recurrent.spec("gru", fb.OpCode.GRU, torch.ops.aten.gru.input)
