"""ctypes bindings of libember_kernels.so (runtime/kernels/include/em_nn_functions.h)."""
from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np

STATUS_HEADER = Path(__file__).resolve().parents[2] / "runtime" / "kernels" / "include" / "em_nn_status.h"


def kernel_statuses(header: Path = STATUS_HEADER) -> dict[str, int]:
    """em_nn_status's names and numbers, as the kernels' own header defines them."""
    return {name: int(value) for name, value in re.findall(r"^\s*(EM_NN_\w+)\s*=\s*(\d+)", header.read_text(), re.M)}


_STATUSES = kernel_statuses()
EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT = _STATUSES["EM_NN_OK"], _STATUSES["EM_NN_ERR_BAD_ARGUMENT"]


class FcParams(ctypes.Structure):
    _fields_ = [("output_offset", ctypes.c_int32), ("activation_min", ctypes.c_int32),
                ("activation_max", ctypes.c_int32), ("paths", ctypes.c_uint32)]


class PerChannelQuant(ctypes.Structure):
    _fields_ = [("multiplier", ctypes.POINTER(ctypes.c_int32)),
                ("shift", ctypes.POINTER(ctypes.c_int32))]


class FcDims(ctypes.Structure):
    _fields_ = [("batches", ctypes.c_int32), ("input_features", ctypes.c_int32),
                ("output_features", ctypes.c_int32)]


def _ptr(a: np.ndarray, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


class Kernels:
    def __init__(self, path: Path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.em_fully_connected_s8.restype = ctypes.c_int
        self.lib.em_fully_connected_s8_get_buffer_size.restype = ctypes.c_int32
        self.lib.em_quantize_f32_s8.restype = ctypes.c_int
        self.lib.em_quantize_f32_s8.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int32,
                                                ctypes.c_float, ctypes.c_int32,
                                                ctypes.POINTER(ctypes.c_int8)]
        self.lib.em_dequantize_s8_f32.restype = ctypes.c_int
        self.lib.em_dequantize_s8_f32.argtypes = [ctypes.POINTER(ctypes.c_int8), ctypes.c_int32,
                                                  ctypes.c_float, ctypes.c_int32,
                                                  ctypes.POINTER(ctypes.c_float)]

    def fully_connected_s8(self, x, w, bias, mult, shift, out_offset, act_min, act_max):
        x = np.ascontiguousarray(x, dtype=np.int8)
        w = np.ascontiguousarray(w, dtype=np.int8)
        bias = np.ascontiguousarray(bias, dtype=np.int32)
        mult = np.ascontiguousarray(mult, dtype=np.int32)
        shift = np.ascontiguousarray(shift, dtype=np.int32)
        batches, n_in = x.shape
        n_out = w.shape[0]
        out = np.full((batches, n_out), 0x55, dtype=np.int8)
        params = FcParams(out_offset, act_min, act_max)
        quant = PerChannelQuant(_ptr(mult, ctypes.c_int32), _ptr(shift, ctypes.c_int32))
        dims = FcDims(batches, n_in, n_out)
        status = self.lib.em_fully_connected_s8(
            ctypes.byref(params), ctypes.byref(quant), ctypes.byref(dims),
            _ptr(x, ctypes.c_int8), _ptr(w, ctypes.c_int8), _ptr(bias, ctypes.c_int32),
            _ptr(out, ctypes.c_int8))
        return status, out

    def quantize_f32_s8(self, x, inv_scale, zero_point):
        x = np.ascontiguousarray(x, dtype=np.float32)
        out = np.zeros(x.shape, dtype=np.int8)
        status = self.lib.em_quantize_f32_s8(_ptr(x, ctypes.c_float), x.size,
                                             float(np.float32(inv_scale)), zero_point,
                                             _ptr(out, ctypes.c_int8))
        return status, out

    def dequantize_s8_f32(self, q, scale, zero_point):
        q = np.ascontiguousarray(q, dtype=np.int8)
        out = np.zeros(q.shape, dtype=np.float32)
        status = self.lib.em_dequantize_s8_f32(_ptr(q, ctypes.c_int8), q.size,
                                               float(np.float32(scale)), zero_point,
                                               _ptr(out, ctypes.c_float))
        return status, out
