/**
 * @file em_nn_variants.h
 * @brief Which specialised kernel paths (variants) a build links: selective build below the op.
 *
 * A kernel's public entry point chooses a variant from the tier, the shapes, the options and the
 * weights. Each EM_NN_VARIANT_<NAME> below is 1 when that variant is built and 0 when not; a
 * dispatch reaches a variant only through `if (EM_NN_VARIANT_<NAME> && ...)`, so a 0 leaves the
 * variant's static function unreferenced and the compiler drops it.
 *
 * - Built with EM_NN_VARIANTS_SELECTED defined (a program's firmware): the generated
 *   em_nn_variants_selected.h (compiler/emit_c.py variants_h(), from compiler/kernel_variants.py,
 *   which mirrors each dispatch) defines every name: 1 exactly for the variants the program runs.
 * - Otherwise (the runtime library, em_run, the kernel tests): every variant is built.
 *
 * A program that reaches a variant its build left out fails with EM_NN_ERR_VARIANT_NOT_LINKED (the
 * generic depthwise, conv2d and avg_pool entry points) or falls back to a linked general path (the
 * depthwise M = 1 fast path declines): never undefined behaviour. Only the MVE tier's variants
 * are selectable; the DSP and scalar paths are small and always built.
 */
#ifndef EM_NN_VARIANTS_H
#define EM_NN_VARIANTS_H

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

#endif
