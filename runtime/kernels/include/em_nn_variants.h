/**
 * @file em_nn_variants.h
 * @brief The specialised kernel paths (variants) a program may choose, and which ones a build links.
 *
 * The compiler chooses, for each op, the variants its kernel runs (compiler/kernel_variants.py,
 * from the op's record in compiler/ops/) and writes them into the program as a bit set of the
 * EM_NN_PATH_<NAME> below (Conv2DOptions.paths, FullyConnectedOptions.paths); the adapter passes
 * it in em_conv_params.paths / em_fc_params.paths. A kernel runs what the bits say and decides
 * nothing itself; the adapter's check() asks the kernel's *_paths_ok() at load whether the bits
 * are linked and cover the op's shapes, weights and scratch. compiler/kernel_variants.py reads
 * the bit of each name from this file: it is their one definition.
 *
 * Each EM_NN_VARIANT_<NAME> is 1 when that variant is built and 0 when not; a kernel reaches a
 * variant only through EM_NN_TAKES(paths, NAME), so a 0 leaves its static function unreferenced
 * and the compiler drops it.
 * - Built with EM_NN_VARIANTS_SELECTED defined (a program's firmware): the generated
 *   em_nn_variants_selected.h (compiler/emit_c.py variants_h(), from the bits the program
 *   records) defines every name: 1 exactly for the variants the program runs.
 * - Otherwise (the runtime library, em_run, the kernel tests): every variant is built.
 *
 * A program whose bits name a variant its build left out is refused at load with
 * EM_NN_ERR_VARIANT_NOT_LINKED, one whose bits do not cover its shapes with
 * EM_NN_ERR_BAD_ARGUMENT: never undefined behaviour. Only the MVE tier's paths are chosen this
 * way; below it a program's bits are 0 and the DSP and scalar paths, small, are always built.
 */
#ifndef EM_NN_VARIANTS_H
#define EM_NN_VARIANTS_H

#include <stdint.h>

#include "em_nn_status.h"
#include "em_nn_tier.h"

#ifdef EM_NN_VARIANTS_SELECTED
#include "em_nn_variants_selected.h"
#endif

/* em_depthwise_conv2d_s8_mve.c, the general path: 4-channel blocks of M = 1 with KW = 3
 * unrolled, of M = 1 with any KW, M = 1's last partial block (C % 4 != 0), and M > 1. */
#ifndef EM_NN_VARIANT_DW_MVE_FULL_KW3
#define EM_NN_VARIANT_DW_MVE_FULL_KW3 1
#endif
#ifndef EM_NN_VARIANT_DW_MVE_FULL
#define EM_NN_VARIANT_DW_MVE_FULL 1
#endif
#ifndef EM_NN_VARIANT_DW_MVE_TAIL
#define EM_NN_VARIANT_DW_MVE_TAIL 1
#endif
#ifndef EM_NN_VARIANT_DW_MVE_STRIDED
#define EM_NN_VARIANT_DW_MVE_STRIDED 1
#endif
/* em_depthwise_conv2d_m1_s8.c (MVE): the tap-table pixel (and its form for a shift > −2), the
 * 3x3 stride-1 4-pixel block, and the walk over staged padded rows (any stride and kernel). */
#ifndef EM_NN_VARIANT_DWF_MVE_PIXEL
#define EM_NN_VARIANT_DWF_MVE_PIXEL 1
#endif
#ifndef EM_NN_VARIANT_DWF_MVE_PIXEL_LEFT
#define EM_NN_VARIANT_DWF_MVE_PIXEL_LEFT 1
#endif
#ifndef EM_NN_VARIANT_DWF_MVE_BLOCK4
#define EM_NN_VARIANT_DWF_MVE_BLOCK4 1
#endif
#ifndef EM_NN_VARIANT_DWF_MVE_ROWS
#define EM_NN_VARIANT_DWF_MVE_ROWS 1
#endif
/* ... and its walk over the input itself with tap tables (every layer not on staged rows). */
#ifndef EM_NN_VARIANT_DWF_MVE_TAPS
#define EM_NN_VARIANT_DWF_MVE_TAPS 1
#endif
/* em_conv2d_s8_mve.c: packing a column into scratch (im2col), and tap by tap without scratch. */
#ifndef EM_NN_VARIANT_CONV_MVE_PACK
#define EM_NN_VARIANT_CONV_MVE_PACK 1
#endif
#ifndef EM_NN_VARIANT_CONV_MVE_TAPS
#define EM_NN_VARIANT_CONV_MVE_TAPS 1
#endif
/* em_fully_connected_s8.c (MVE): four weight rows per input load. Left out, every row runs the
 * one-row loop (no shape needs the four-row pass). */
#ifndef EM_NN_VARIANT_FC_MVE_ROWS4
#define EM_NN_VARIANT_FC_MVE_ROWS4 1
#endif

/* The int16 (A16W8) kernel of an op kind, EM_NN_VARIANT_<KIND>_S16 (compiler/ops/spec.py
 * int16_kernel): a firmware builds it only where its program has an op of that kind with an int16
 * input or output. There is no program bit: the adapter asks EM_NN_S16_LINKED(KIND) of an int16
 * op at load and refuses it with EM_NN_ERR_VARIANT_NOT_LINKED when the build left it out. */
/* ... of the weighted kernels (conv2d, depthwise_conv2d, fully_connected) */
#ifndef EM_NN_VARIANT_CONV2D_S16
#define EM_NN_VARIANT_CONV2D_S16 1
#endif
#ifndef EM_NN_VARIANT_DEPTHWISE_CONV2D_S16
#define EM_NN_VARIANT_DEPTHWISE_CONV2D_S16 1
#endif
#ifndef EM_NN_VARIANT_FULLY_CONNECTED_S16
#define EM_NN_VARIANT_FULLY_CONNECTED_S16 1
#endif
/* ... of the others (quantize, dequantize, requantize, pools, add, pad, mul, lut) */
#ifndef EM_NN_VARIANT_QUANTIZE_S16
#define EM_NN_VARIANT_QUANTIZE_S16 1
#endif
#ifndef EM_NN_VARIANT_DEQUANTIZE_S16
#define EM_NN_VARIANT_DEQUANTIZE_S16 1
#endif
#ifndef EM_NN_VARIANT_REQUANTIZE_S16
#define EM_NN_VARIANT_REQUANTIZE_S16 1
#endif
#ifndef EM_NN_VARIANT_MAX_POOL2D_S16
#define EM_NN_VARIANT_MAX_POOL2D_S16 1
#endif
#ifndef EM_NN_VARIANT_AVG_POOL2D_S16
#define EM_NN_VARIANT_AVG_POOL2D_S16 1
#endif
#ifndef EM_NN_VARIANT_ADD_S16
#define EM_NN_VARIANT_ADD_S16 1
#endif
#ifndef EM_NN_VARIANT_PAD_S16
#define EM_NN_VARIANT_PAD_S16 1
#endif
#ifndef EM_NN_VARIANT_MUL_S16
#define EM_NN_VARIANT_MUL_S16 1
#endif
#ifndef EM_NN_VARIANT_LUT_S16
#define EM_NN_VARIANT_LUT_S16 1
#endif

/** Whether this build links op kind KIND's int16 kernel (KIND as in EM_NN_VARIANT_<KIND>_S16). */
#define EM_NN_S16_LINKED(KIND) (EM_NN_VARIANT_##KIND##_S16 != 0)

/* The bit of each variant in a program's paths; compiler/kernel_variants.py reads them from these
 * lines, written as (1u << n). Bits are stable: programs record them. */
#define EM_NN_PATH_DW_MVE_FULL_KW3 (1u << 0)
#define EM_NN_PATH_DW_MVE_FULL (1u << 1)
#define EM_NN_PATH_DW_MVE_TAIL (1u << 2)
#define EM_NN_PATH_DW_MVE_STRIDED (1u << 3)
#define EM_NN_PATH_DWF_MVE_PIXEL (1u << 4)
#define EM_NN_PATH_DWF_MVE_PIXEL_LEFT (1u << 5)
#define EM_NN_PATH_DWF_MVE_BLOCK4 (1u << 6)
#define EM_NN_PATH_DWF_MVE_ROWS (1u << 7)
#define EM_NN_PATH_DWF_MVE_TAPS (1u << 8)
#define EM_NN_PATH_CONV_MVE_PACK (1u << 9)
#define EM_NN_PATH_CONV_MVE_TAPS (1u << 10)
#define EM_NN_PATH_FC_MVE_ROWS4 (1u << 11)

/** Whether a kernel takes variant NAME: chosen in @p paths and built (a constant 0 when not). */
#define EM_NN_TAKES(paths, NAME) (EM_NN_VARIANT_##NAME && ((paths) & EM_NN_PATH_##NAME) != 0u)

/** NAME's bit where this build links the variant, else 0; EM_NN_PATHS_LINKED: every linked bit
 *  (none below MVE, whose kernels have no selectable variant). */
#define EM_NN_LINKED_BIT(NAME) (EM_NN_TIER_MVE && EM_NN_VARIANT_##NAME ? EM_NN_PATH_##NAME : 0u)
#define EM_NN_PATHS_LINKED                                                                         \
    (EM_NN_LINKED_BIT(DW_MVE_FULL_KW3) | EM_NN_LINKED_BIT(DW_MVE_FULL) | EM_NN_LINKED_BIT(DW_MVE_TAIL) | \
     EM_NN_LINKED_BIT(DW_MVE_STRIDED) | EM_NN_LINKED_BIT(DWF_MVE_PIXEL) |                            \
     EM_NN_LINKED_BIT(DWF_MVE_PIXEL_LEFT) | EM_NN_LINKED_BIT(DWF_MVE_BLOCK4) |                       \
     EM_NN_LINKED_BIT(DWF_MVE_ROWS) | EM_NN_LINKED_BIT(DWF_MVE_TAPS) |                               \
     EM_NN_LINKED_BIT(CONV_MVE_PACK) | EM_NN_LINKED_BIT(CONV_MVE_TAPS) | EM_NN_LINKED_BIT(FC_MVE_ROWS4))

/** The variants of each kernel: a program's bits for an op name no other. */
#define EM_NN_PATHS_DEPTHWISE                                                                      \
    (EM_NN_PATH_DW_MVE_FULL_KW3 | EM_NN_PATH_DW_MVE_FULL | EM_NN_PATH_DW_MVE_TAIL |                 \
     EM_NN_PATH_DW_MVE_STRIDED | EM_NN_PATH_DWF_MVE_PIXEL | EM_NN_PATH_DWF_MVE_PIXEL_LEFT |         \
     EM_NN_PATH_DWF_MVE_BLOCK4 | EM_NN_PATH_DWF_MVE_ROWS | EM_NN_PATH_DWF_MVE_TAPS)
/* ... of which the depthwise M = 1 fast path's (em_depthwise_conv2d_m1_s8.c) */
#define EM_NN_PATHS_DWF                                                                            \
    (EM_NN_PATH_DWF_MVE_PIXEL | EM_NN_PATH_DWF_MVE_PIXEL_LEFT | EM_NN_PATH_DWF_MVE_BLOCK4 |        \
     EM_NN_PATH_DWF_MVE_ROWS | EM_NN_PATH_DWF_MVE_TAPS)
#define EM_NN_PATHS_CONV (EM_NN_PATH_CONV_MVE_PACK | EM_NN_PATH_CONV_MVE_TAPS)
#define EM_NN_PATHS_FC EM_NN_PATH_FC_MVE_ROWS4

/* A kernel's *_paths_ok() runs once, at load: compiled for size (GCC optimises cold functions so). */
#if defined(__GNUC__)
#define EM_NN_LOAD_TIME __attribute__((cold))
#else
#define EM_NN_LOAD_TIME
#endif

/**
 * The first test of a kernel's *_paths_ok(): @p paths names only variants of @p kernel_paths
 * (one of EM_NN_PATHS_*), each linked in this build.
 * @return EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT for a bit of another kernel or none, or
 *         EM_NN_ERR_VARIANT_NOT_LINKED for a variant this build left out.
 */
static inline em_nn_status em_nn_paths_linked(uint32_t paths, uint32_t kernel_paths)
{
    if ((paths & ~kernel_paths) != 0u) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return (paths & ~(uint32_t)EM_NN_PATHS_LINKED) != 0u ? EM_NN_ERR_VARIANT_NOT_LINKED : EM_NN_OK;
}

#endif
