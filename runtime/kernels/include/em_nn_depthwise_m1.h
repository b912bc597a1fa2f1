/**
 * @file em_nn_depthwise_m1.h
 * @brief Internal: what the files of the depthwise fast path share, em_nn_depthwise_m1_s8() for
 *        depth multiplier 1 on every tier: pixel by pixel, channels innermost, taps from a table.
 *
 * Each output pixel reads its taps through a table of addresses: kernel row ky, column kx of a
 * window sits at tap[t] + add (t = ky·KW + kx). Inside the input, tap[t] points at the tap's
 * input pixel; a padded tap points at a row of C bytes that hold input_zero_point (the value of
 * a padded cell), so that every tap adds x·w and the border needs no per-tap branch. Rows whose
 * kernel rows all lie inside the input share one table per output row (add = the pixel's
 * column offset); the other pixels build their own.
 *
 * Sums are exact int32 (wrapping like the reference, which never wraps for 3x3 int8 anyway) and
 * the requantization is em_nn_requantize() (scalar, DSP) or its bit-exact vector form, so the
 * bytes equal compiler/reference.py:depthwise_conv2d_s8.
 *
 * em_depthwise_conv2d_m1_s8.c chooses a pixel function (and on Helium a 4-pixel block) for the
 * layer and walks the output: em_depthwise_m1_pixel_mve.c holds the Helium pixels (16 channels a
 * step), em_depthwise_m1_block_mve.c the Helium 4-pixel block, em_depthwise_m1_pixel_scalar_dsp.c
 * the scalar and DSP pixels (4 channels a step).
 */
#ifndef EM_NN_DEPTHWISE_M1_H
#define EM_NN_DEPTHWISE_M1_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if defined(__GNUC__)
#define EM_NN_DWF_INLINE static inline __attribute__((always_inline))
#else
#define EM_NN_DWF_INLINE static inline
#endif

/* EM_NN_DWF_MAX_TAPS, EM_NN_DWF_MAX_CHANNELS: em_nn_functions.h (the sizing shares them) */

/** What every pixel of one call shares. */
typedef struct {
    int32_t c;                /**< channels (input = output) */
    int32_t taps;             /**< KH·KW */
    int32_t out_offset, act_min, act_max;
    const int8_t *w;          /**< [KH·KW, C] */
    const int32_t *bias;      /**< [C] or NULL */
    const int32_t *mult, *shift;
} em_nn_dwf;

/** One out-of-line instance of a pixel function @p impl(k, tap, add, out, @p flag, @p taps):
 *  a variant flag and a tap count fixed at compile time (9: the 3x3 loop unrolled). */
#define EM_NN_DWF_PIXEL(name, impl, flag, taps)                                                     \
    __attribute__((noinline)) void name(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out) \
    {                                                                                               \
        impl(k, tap, add, out, flag, taps);                                                         \
    }

/** A pixel function: one output pixel at @p out, its taps at tap[t] + @p add. */
typedef void (*em_nn_dwf_pixel_fn)(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);

#if EM_NN_TIER_MVE
typedef void (*em_nn_dwf_block_fn)(const em_nn_dwf *, const int8_t *, int32_t, int32_t, int32_t, int32_t,
                                   int32_t, int8_t *);

/* em_depthwise_m1_pixel_mve.c: the 16-lane pixel, and its form for a shift > −2 */
void em_nn_dwf_pixel(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);
void em_nn_dwf_pixel_left(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);
/* em_depthwise_m1_block_mve.c: 4 pixels of a 3x3 stride-1 row */
void em_nn_dwf_block4_3x3_unit(const em_nn_dwf *k, const int8_t *x, int32_t step, int32_t rs, int32_t dc, int32_t kh,
                               int32_t kw, int8_t *out);
#else
/* em_depthwise_m1_pixel_scalar_dsp.c: any requantization; every shift <= −2 and an int8 clamp;
 * that one for 3x3 (DSP; the scalar tier takes the any-taps one) */
void em_nn_dwf_pixel_any(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);
void em_nn_dwf_pixel_simple(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);
#if EM_NN_TIER_DSP
void em_nn_dwf_pixel_simple_9(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int8_t *out);
#define EM_NN_DWF_PIXEL_SIMPLE_9 em_nn_dwf_pixel_simple_9
#else
#define EM_NN_DWF_PIXEL_SIMPLE_9 em_nn_dwf_pixel_simple
#endif
#endif

#endif /* EM_NN_DEPTHWISE_M1_H */
