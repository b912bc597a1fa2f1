/**
 * @file em_nn_conv2d.h
 * @brief Internal: what the files of em_conv2d_s8() share. The kernel's contract is in
 *        em_nn_functions.h; each tier has its own file with its own entry point:
 *
 * - Helium (MVE): em_conv2d_s8_mve.c walks the pixels in blocks and finds each one's column,
 *   em_conv2d_pack_mve.c packs a column into the scratch, em_conv2d_block_mve.c computes a
 *   block's output channels (and a pixel's taps without scratch), em_conv2d_dot2x3_mve.c is
 *   its two-column dot-product leaf in assembly; em_nn_conv2d_mve.h holds what they share.
 * - Scalar and DSP: em_conv2d_s8_scalar_dsp.c, one pixel at a time (a DSP pair of pixels when
 *   the scratch holds two columns), its DSP dot-product leaves in em_nn_conv2d_dsp.h.
 *
 * Every path computes the int32 sums exactly (wrapping like the reference) and requantizes with
 * em_nn_requantize_s8() (em_nn_dot_s8.h) or the bit-exact 4-lane em_nn_requantize_mve(), so they
 * match compiler/reference.py:conv2d_s8 byte for byte. Padded cells are input_zero_point: the
 * bias has b − zp·Σw folded in, so a padded tap contributes zp·w exactly as the reference's np.pad.
 *
 * Every output pixel's receptive field, per group, is one "column" of K = KH·KW·Cg int8
 * (Cg = C_IN / groups) in the weights' own [KH, KW, Cg] order, so each output channel is a
 * K-long dot product with its weight row. The column is
 *   - the input itself when it is contiguous there (1xKW kernels, dilation_w 1, groups 1, the
 *     window inside the input): 1x1 convolutions read the input in place;
 *   - else packed into the caller's scratch (im2col), padded cells written as the zero point;
 *   - else, with no or too little scratch, read tap by tap from the input: same bytes, fewer
 *     MACs per instruction.
 * The scratch's size is em_conv2d_s8_get_buffer_size(), a column's em_nn_conv_col_bytes()
 * (em_nn_buffer_sizes.c).
 */
#ifndef EM_NN_CONV2D_H
#define EM_NN_CONV2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_conv_window.h"
#include "em_nn_dot_s8.h"
#include "em_nn_functions.h"

/* The MVE loops keep their own register allocation: inlined into the pixel loop, GCC 12 spills
 * their pointers to the stack (runtime/kernels/README.md). */
#if defined(__GNUC__)
#define EM_NN_NOINLINE __attribute__((noinline))
#else
#define EM_NN_NOINLINE
#endif

/** Requantizes one accumulator (bias already added) and clamps it to int8. */
static inline int8_t em_nn_conv_output(uint32_t acc, const em_conv_params *p, int32_t multiplier,
                                       int32_t shift)
{
    return em_nn_requantize_s8((int32_t)acc, multiplier, shift, p->output_offset, p->activation_min,
                               p->activation_max);
}

#endif /* EM_NN_CONV2D_H */
