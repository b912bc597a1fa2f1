/**
 * @file em_conv2d_s8.c
 * @brief int8 grouped 2-D convolution (NHWC), per-channel requantization. Scalar, DSP and
 *        Helium (MVE) paths behind em_nn_tier.h.
 *
 * Both paths compute the int32 sums exactly (wrapping like the reference) and requantize with
 * em_nn_requantize() or its bit-exact 4-lane form em_nn_requantize_mve(), so they match
 * compiler/reference.py:conv2d_s8 byte for byte. Padded cells are input_zero_point: the bias
 * has b − zp·Σw folded in, so a padded tap contributes zp·w exactly as the reference's np.pad.
 *
 * MVE: every output pixel's receptive field, per group, is one "column" of K = KH·KW·Cg int8
 * (Cg = C_IN / groups) in the weights' own [KH, KW, Cg] order, so each output channel is a
 * K-long dot product (VMLADAVA over 16 lanes, predicated tail). Four output channels share each
 * column load, then their four lanes are requantized at once. The column is
 *   - the input itself when it is contiguous there (1xKW kernels, dilation_w 1, groups 1, the
 *     window inside the input): 1x1 convolutions read the input in place;
 *   - else packed into the caller's scratch (im2col; em_conv2d_s8_get_buffer_size() bytes),
 *     padded cells written as the zero point;
 *   - else, with no or too little scratch, read tap by tap from the input (padded taps use a
 *     zero-point vector): same bytes, fewer MACs per instruction when Cg is small.
 *
 * DSP: the same columns (in place, packed int8 into the scratch, or tap by tap), each dot
 * product by SMLAD on SXTB16-split words, four output channels sharing each column word
 * (em_nn_dot4_s8_dsp); requantization by em_nn_requantize() per channel.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/* The MVE loops keep their own register allocation: inlined into the pixel loop, GCC 12 spills
 * their pointers to the stack (measured: 3x the instructions). */
#if defined(__GNUC__)
#define EM_NN_NOINLINE __attribute__((noinline))
#else
#define EM_NN_NOINLINE
#endif

/** True when @p out equals the output size formula of reference.output_size (>= 1). */
static bool em_nn_conv_out_ok(int32_t out, int32_t size, int32_t kernel, int32_t stride,
                              int32_t dilation, int32_t pad_before, int32_t pad_after)
{
    const int64_t span = (int64_t)size + pad_before + pad_after - (int64_t)dilation * (kernel - 1) - 1;
    return span >= 0 && out == span / stride + 1;
}

/** Validates what em_conv2d_s8() relies on (see em_conv_params / em_conv_dims). */
static bool em_nn_conv2d_args_ok(const em_conv_params *p, const em_per_channel_quant *quant,
                                 const em_conv_dims *d)
{
    if (p == NULL || quant == NULL || d == NULL || quant->multiplier == NULL || quant->shift == NULL) {
        return false;
    }
    if (d->batches < 1 || d->input_h < 1 || d->input_w < 1 || d->input_c < 1 || d->kernel_h < 1
        || d->kernel_w < 1 || d->output_c < 1 || p->stride_h < 1 || p->stride_w < 1
        || p->dilation_h < 1 || p->dilation_w < 1 || p->pad_top < 0 || p->pad_bottom < 0
        || p->pad_left < 0 || p->pad_right < 0 || p->groups < 1 || d->input_c % p->groups != 0
        || d->output_c % p->groups != 0 || p->input_zero_point < -128 || p->input_zero_point > 127
        || p->activation_min < -128 || p->activation_max > 127
        || p->activation_min > p->activation_max) {
        return false;
    }
    return em_nn_conv_out_ok(d->output_h, d->input_h, d->kernel_h, p->stride_h, p->dilation_h,
                             p->pad_top, p->pad_bottom)
           && em_nn_conv_out_ok(d->output_w, d->input_w, d->kernel_w, p->stride_w, p->dilation_w,
                                p->pad_left, p->pad_right);
}

/** Requantizes one accumulator (bias already added) and clamps it to int8. */
static inline int8_t em_nn_conv_output(uint32_t acc, const em_conv_params *p, int32_t multiplier,
                                       int32_t shift)
{
    const int64_t scaled = (int64_t)em_nn_requantize((int32_t)acc, multiplier, shift) + p->output_offset;
    const int64_t lo = p->activation_min;
    const int64_t hi = p->activation_max;
    return (int8_t)(scaled < lo ? lo : (scaled > hi ? hi : scaled));
}

/** True when the column of output pixel (column of the input x0) is contiguous in the input:
 *  one kernel row, taps adjacent (dilation_w 1 or KW 1), one group, window inside the input. */
static inline bool em_nn_conv_in_place(const em_conv_params *p, const em_conv_dims *d, int32_t iy0,
                                       int32_t ix0)
{
    return d->kernel_h == 1 && (d->kernel_w == 1 || p->dilation_w == 1) && p->groups == 1
           && iy0 >= 0 && iy0 < d->input_h && ix0 >= 0 && ix0 + d->kernel_w - 1 < d->input_w;
}

#if EM_NN_TIER_MVE

/** Patch bytes of one pixel and group, rounded up to 16 (vector stores). */
static int32_t em_nn_conv_col_bytes(const em_conv_params *p, const em_conv_dims *d)
{
    const int32_t k = d->kernel_h * d->kernel_w * (d->input_c / p->groups);
    return (k + 15) & ~15;
}

/** dst[0..n) = src[0..n), 16 bytes per step, predicated tail. */
static inline void em_nn_copy_s8_mve(int8_t *dst, const int8_t *src, int32_t n)
{
    for (int32_t i = 0; i < n; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(n - i));
        vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, pr), pr);
    }
}

/** dst[0..n) = v. */
static inline void em_nn_fill_s8_mve(int8_t *dst, int8x16_t v, int32_t n)
{
    for (int32_t i = 0; i < n; i += 16) {
        vstrbq_p_s8(dst + i, v, vctp8q((uint32_t)(n - i)));
    }
}

/** Packs the column of one pixel (window origin iy0, ix0) and group (input channels from
 *  @p x_group, a pointer to channel g·Cg of image n) into @p col, zero point in padded cells. */
EM_NN_NOINLINE static void em_nn_conv_pack_mve(const em_conv_params *p, const em_conv_dims *d,
                                const int8_t *x_group, int32_t iy0, int32_t ix0, int8_t *col)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t row_bytes = d->kernel_w * cg;
    const int8x16_t zp = vdupq_n_s8((int8_t)p->input_zero_point);
    const bool row_contiguous = p->groups == 1 && (p->dilation_w == 1 || d->kernel_w == 1)
                                && ix0 >= 0 && ix0 + d->kernel_w - 1 < d->input_w;
    for (int32_t ky = 0; ky < d->kernel_h; ky++, col += row_bytes) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        if (iy < 0 || iy >= d->input_h) {
            em_nn_fill_s8_mve(col, zp, row_bytes);
            continue;
        }
        const int8_t *x_row = x_group + (int32_t)iy * d->input_w * d->input_c;
        if (row_contiguous) {
            em_nn_copy_s8_mve(col, x_row + ix0 * d->input_c, row_bytes);
            continue;
        }
        for (int32_t kx = 0; kx < d->kernel_w; kx++) {
            const int32_t ix = ix0 + kx * p->dilation_w;
            if (ix < 0 || ix >= d->input_w) {
                em_nn_fill_s8_mve(col + kx * cg, zp, cg);
            } else {
                em_nn_copy_s8_mve(col + kx * cg, x_row + ix * d->input_c, cg);
            }
        }
    }
}

/** Requantizes four accumulators of channels o..o+3 and stores them (bias added here). */
static inline void em_nn_conv_store4_mve(int32x4_t acc, const em_conv_params *p,
                                         const em_per_channel_quant *quant, const int32_t *bias,
                                         int32_t o, int8_t *out)
{
    if (bias != NULL) {
        acc = vaddq_s32(acc, vld1q_s32(bias + o)); /* wraps, as the reference's int32 */
    }
    int32x4_t v = em_nn_requantize_mve(acc, vld1q_s32(quant->multiplier + o), vld1q_s32(quant->shift + o));
    v = vqaddq_s32(v, vdupq_n_s32(p->output_offset)); /* saturates past the clamp */
    v = vmaxq_s32(v, vdupq_n_s32(p->activation_min));
    v = vminq_s32(v, vdupq_n_s32(p->activation_max));
    vstrbq_s32(out + o, v);
}

static inline int32x4_t em_nn_lanes4(int32_t a0, int32_t a1, int32_t a2, int32_t a3)
{
    int32x4_t v = vdupq_n_s32(a0);
    v = vsetq_lane_s32(a1, v, 1);
    v = vsetq_lane_s32(a2, v, 2);
    return vsetq_lane_s32(a3, v, 3);
}

/** Σ_i col[i]·w[i] over @p k int8 pairs: full 16-lane steps, then one predicated tail step. */
static inline int32_t em_nn_conv_dot_mve(const int8_t *col, const int8_t *w, int32_t k)
{
    int32_t acc = 0;
    int32_t i = 0;
    for (; i + 16 <= k; i += 16) {
        acc = vmladavaq_s8(acc, vld1q_s8(col + i), vld1q_s8(w + i));
    }
    if (i < k) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        acc = vmladavaq_s8(acc, vldrbq_z_s8(col + i, pr), vldrbq_z_s8(w + i, pr));
    }
    return acc;
}

/**
 * Output channels [o_begin, o_end) of one group for one pixel whose column (K int8) is
 * contiguous at @p col; weight rows w[o] at weights + o·K. Four channels share each column
 * load: unpredicated 16-lane steps, then one predicated (zeroing) tail step that reads nothing
 * past the column or the rows.
 */
EM_NN_NOINLINE static void em_nn_conv_col_mve(const em_conv_params *p, const em_per_channel_quant *quant,
                               int32_t k, int32_t o_begin, int32_t o_end, const int8_t *col,
                               const int8_t *weights, const int32_t *bias, int8_t *out)
{
    int32_t o = o_begin;
    for (; o + 4 <= o_end; o += 4) {
        const int8_t *w0 = weights + (int32_t)o * k;
        const int8_t *w1 = w0 + k;
        const int8_t *w2 = w1 + k;
        const int8_t *w3 = w2 + k;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        int32_t i = 0;
        for (; i + 16 <= k; i += 16) {
            const int8x16_t xv = vld1q_s8(col + i);
            a0 = vmladavaq_s8(a0, xv, vld1q_s8(w0 + i));
            a1 = vmladavaq_s8(a1, xv, vld1q_s8(w1 + i));
            a2 = vmladavaq_s8(a2, xv, vld1q_s8(w2 + i));
            a3 = vmladavaq_s8(a3, xv, vld1q_s8(w3 + i));
        }
        if (i < k) {
            const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
            const int8x16_t xv = vldrbq_z_s8(col + i, pr);
            a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0 + i, pr));
            a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + i, pr));
            a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + i, pr));
            a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + i, pr));
        }
        em_nn_conv_store4_mve(em_nn_lanes4(a0, a1, a2, a3), p, quant, bias, o, out);
    }
    for (; o < o_end; o++) { /* 1..3 channels left */
        const uint32_t b = bias != NULL ? (uint32_t)bias[o] : 0u;
        const int32_t dot = em_nn_conv_dot_mve(col, weights + (int32_t)o * k, k);
        out[o] = em_nn_conv_output((uint32_t)dot + b, p, quant->multiplier[o], quant->shift[o]);
    }
}

/** Σ over one tap's Cg channels of x·w for four weight rows (x NULL: the padded tap, x = zp). */
static inline void em_nn_conv_tap4_mve(const int8_t *x, int8_t zp, const int8_t *w0, int32_t k,
                                       int32_t cg, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int32_t i = 0; i < cg; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(cg - i));
        const int8x16_t xv = x != NULL ? vldrbq_z_s8(x + i, pr) : vdupq_n_s8(zp);
        const int8_t *w = w0 + i;
        a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w, pr)); /* zeroed weight lanes end the tail */
        a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w + k, pr));
        a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w + 2 * k, pr));
        a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w + 3 * k, pr));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/** One pixel and group without scratch: taps read in place (padded taps: zero-point vectors). */
EM_NN_NOINLINE static void em_nn_conv_taps_mve(const em_conv_params *p, const em_per_channel_quant *quant,
                                const em_conv_dims *d, const int8_t *x_group, int32_t iy0,
                                int32_t ix0, int32_t o_begin, int32_t o_end, const int8_t *weights,
                                const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int8_t zp = (int8_t)p->input_zero_point;
    int32_t o = o_begin;
    for (; o < o_end; o += 4) {
        const int32_t rows = o_end - o < 4 ? o_end - o : 4;
        int32_t acc[4] = {0, 0, 0, 0};
        const int8_t *w_o = weights + (int32_t)o * k;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                const int8_t *x = row_ok && ix >= 0 && ix < d->input_w
                                      ? x_group + ((int32_t)iy * d->input_w + ix) * d->input_c
                                      : NULL;
                const int8_t *w = w_o + (ky * d->kernel_w + kx) * cg;
                if (rows == 4) {
                    em_nn_conv_tap4_mve(x, zp, w, k, cg, acc);
                    continue;
                }
                for (int32_t r = 0; r < rows; r++) { /* 1..3 channels left */
                    for (int32_t i = 0; i < cg; i += 16) {
                        const mve_pred16_t pr = vctp8q((uint32_t)(cg - i));
                        const int8x16_t xv = x != NULL ? vldrbq_z_s8(x + i, pr) : vdupq_n_s8(zp);
                        acc[r] = vmladavaq_s8(acc[r], xv, vldrbq_z_s8(w + r * k + i, pr));
                    }
                }
            }
        }
        if (rows == 4) {
            em_nn_conv_store4_mve(em_nn_lanes4(acc[0], acc[1], acc[2], acc[3]), p, quant, bias, o, out);
        } else {
            for (int32_t r = 0; r < rows; r++) {
                const uint32_t b = bias != NULL ? (uint32_t)bias[o + r] : 0u;
                out[o + r] = em_nn_conv_output((uint32_t)acc[r] + b, p, quant->multiplier[o + r],
                                               quant->shift[o + r]);
            }
        }
    }
}

/** The column of pixel (iy0, ix0) for group @p g: in place, packed into @p scratch, or NULL
 *  (no scratch: the caller reads taps). */
static inline const int8_t *em_nn_conv_column_mve(const em_conv_params *p, const em_conv_dims *d,
                                                  const int8_t *x_image, int32_t g, int32_t iy0,
                                                  int32_t ix0, int8_t *scratch)
{
    if (em_nn_conv_in_place(p, d, iy0, ix0)) {
        return x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
    }
    if (scratch == NULL) {
        return NULL;
    }
    em_nn_conv_pack_mve(p, d, x_image + g * (d->input_c / p->groups), iy0, ix0, scratch);
    return scratch;
}

static void em_nn_conv2d_mve(const em_nn_context *ctx, const em_conv_params *p,
                             const em_per_channel_quant *quant, const em_conv_dims *d,
                             const int8_t *input, const int8_t *weights, const int32_t *bias,
                             int8_t *output)
{
    int8_t *scratch = NULL;
    if (ctx != NULL && ctx->buf != NULL && ctx->size >= em_nn_conv_col_bytes(p, d)) {
        scratch = (int8_t *)ctx->buf;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t og = d->output_c / p->groups;
    int8_t *out = output;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < d->output_w; ox++, out += d->output_c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                for (int32_t g = 0; g < p->groups; g++) {
                    const int8_t *col = em_nn_conv_column_mve(p, d, x_image, g, iy0, ix0, scratch);
                    if (col != NULL) {
                        em_nn_conv_col_mve(p, quant, k, g * og, (g + 1) * og, col, weights, bias, out);
                    } else {
                        em_nn_conv_taps_mve(p, quant, d, x_image + g * cg, iy0, ix0, g * og,
                                            (g + 1) * og, weights, bias, out);
                    }
                }
            }
        }
    }
}

#elif EM_NN_TIER_DSP

/** Patch bytes of one pixel and group (DSP: the int8 column, rounded up to 4). */
static int32_t em_nn_conv_col_bytes_dsp(const em_conv_params *p, const em_conv_dims *d)
{
    const int32_t k = d->kernel_h * d->kernel_w * (d->input_c / p->groups);
    return (k + 3) & ~3;
}

/** Packs the column of one pixel (window origin iy0, ix0) and group (input channels from
 *  @p x_group) into @p col, zero point in padded cells. */
EM_NN_NOINLINE static void em_nn_conv_pack_dsp(const em_conv_params *p, const em_conv_dims *d,
                                                const int8_t *x_group, int32_t iy0, int32_t ix0,
                                                int8_t *col)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t row_bytes = d->kernel_w * cg;
    const int zp = (int)(int8_t)p->input_zero_point;
    const bool row_contiguous = p->groups == 1 && (p->dilation_w == 1 || d->kernel_w == 1)
                                && ix0 >= 0 && ix0 + d->kernel_w - 1 < d->input_w;
    for (int32_t ky = 0; ky < d->kernel_h; ky++, col += row_bytes) {
        const int32_t iy = iy0 + ky * p->dilation_h;
        if (iy < 0 || iy >= d->input_h) {
            memset(col, zp, (size_t)row_bytes);
            continue;
        }
        const int8_t *x_row = x_group + (int32_t)iy * d->input_w * d->input_c;
        if (row_contiguous) {
            memcpy(col, x_row + ix0 * d->input_c, (size_t)row_bytes);
            continue;
        }
        for (int32_t kx = 0; kx < d->kernel_w; kx++) {
            const int32_t ix = ix0 + kx * p->dilation_w;
            if (ix < 0 || ix >= d->input_w) {
                memset(col + kx * cg, zp, (size_t)cg);
            } else {
                memcpy(col + kx * cg, x_row + ix * d->input_c, (size_t)cg);
            }
        }
    }
}

/** Requantizes @p rows (1..4) accumulators of channels o.. and stores them (bias added here). */
static inline void em_nn_conv_store_dsp(const int32_t acc[4], int32_t rows, const em_conv_params *p,
                                        const em_per_channel_quant *quant, const int32_t *bias,
                                        int32_t o, int8_t *out)
{
    for (int32_t r = 0; r < rows; r++) {
        const uint32_t b = bias != NULL ? (uint32_t)bias[o + r] : 0u;
        out[o + r] = em_nn_conv_output((uint32_t)acc[r] + b, p, quant->multiplier[o + r],
                                       quant->shift[o + r]);
    }
}

/** Output channels [o_begin, o_end) of one pixel whose column (K int8) is contiguous at @p col:
 *  four weight rows share each column word (em_nn_dot4_s8_dsp), 1..3 left one by one. */
EM_NN_NOINLINE static void em_nn_conv_col_dsp(const em_conv_params *p, const em_per_channel_quant *quant,
                                               int32_t k, int32_t o_begin, int32_t o_end,
                                               const int8_t *col, const int8_t *weights,
                                               const int32_t *bias, int8_t *out)
{
    int32_t o = o_begin;
    for (; o + 4 <= o_end; o += 4) {
        int32_t acc[4] = {0, 0, 0, 0};
        em_nn_dot4_s8_dsp(col, weights + (int32_t)o * k, k, k, acc);
        em_nn_conv_store_dsp(acc, 4, p, quant, bias, o, out);
    }
    for (; o < o_end; o++) {
        const int32_t acc[4] = {em_nn_dot_s8_dsp(col, weights + (int32_t)o * k, k, 0), 0, 0, 0};
        em_nn_conv_store_dsp(acc, 1, p, quant, bias, o, out);
    }
}

/** One pixel and group without scratch: each tap's Cg channels read in place; a padded tap
 *  adds zp·w. */
EM_NN_NOINLINE static void em_nn_conv_taps_dsp(const em_conv_params *p, const em_per_channel_quant *quant,
                                                const em_conv_dims *d, const int8_t *x_group,
                                                int32_t iy0, int32_t ix0, int32_t o_begin,
                                                int32_t o_end, const int8_t *weights,
                                                const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t zp = p->input_zero_point;
    for (int32_t o = o_begin; o < o_end; o += 4) {
        const int32_t rows = o_end - o < 4 ? o_end - o : 4;
        int32_t acc[4] = {0, 0, 0, 0};
        const int8_t *w_o = weights + (int32_t)o * k;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                const int8_t *w = w_o + (ky * d->kernel_w + kx) * cg;
                if (!row_ok || ix < 0 || ix >= d->input_w) { /* padded tap */
                    for (int32_t r = 0; r < rows; r++) {
                        uint32_t a = (uint32_t)acc[r];
                        for (int32_t i = 0; i < cg; i++) {
                            a += (uint32_t)(zp * (int32_t)w[r * k + i]);
                        }
                        acc[r] = (int32_t)a;
                    }
                    continue;
                }
                const int8_t *x = x_group + ((int32_t)iy * d->input_w + ix) * d->input_c;
                if (rows == 4) {
                    em_nn_dot4_s8_dsp(x, w, k, cg, acc);
                } else {
                    for (int32_t r = 0; r < rows; r++) {
                        acc[r] = em_nn_dot_s8_dsp(x, w + r * k, cg, acc[r]);
                    }
                }
            }
        }
        em_nn_conv_store_dsp(acc, rows, p, quant, bias, o, out);
    }
}

static void em_nn_conv2d_dsp(const em_nn_context *ctx, const em_conv_params *p,
                             const em_per_channel_quant *quant, const em_conv_dims *d,
                             const int8_t *input, const int8_t *weights, const int32_t *bias,
                             int8_t *output)
{
    int8_t *scratch = NULL;
    if (ctx != NULL && ctx->buf != NULL && ctx->size >= em_nn_conv_col_bytes_dsp(p, d)) {
        scratch = (int8_t *)ctx->buf;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t og = d->output_c / p->groups;
    int8_t *out = output;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < d->output_w; ox++, out += d->output_c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                for (int32_t g = 0; g < p->groups; g++) {
                    const int8_t *x_group = x_image + g * cg;
                    const int8_t *col = NULL;
                    if (em_nn_conv_in_place(p, d, iy0, ix0)) {
                        col = x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
                    } else if (scratch != NULL) {
                        em_nn_conv_pack_dsp(p, d, x_group, iy0, ix0, scratch);
                        col = scratch;
                    }
                    if (col != NULL) {
                        em_nn_conv_col_dsp(p, quant, k, g * og, (g + 1) * og, col, weights, bias, out);
                    } else {
                        em_nn_conv_taps_dsp(p, quant, d, x_group, iy0, ix0, g * og, (g + 1) * og,
                                            weights, bias, out);
                    }
                }
            }
        }
    }
}

#else /* scalar */

static void em_nn_conv2d_scalar(const em_conv_params *p, const em_per_channel_quant *quant,
                                const em_conv_dims *d, const int8_t *input, const int8_t *weights,
                                const int32_t *bias, int8_t *output)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t og = d->output_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t zp = p->input_zero_point;
    int8_t *out = output;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            const int32_t iy0 = oy * p->stride_h - p->pad_top;
            for (int32_t ox = 0; ox < d->output_w; ox++, out += d->output_c) {
                const int32_t ix0 = ox * p->stride_w - p->pad_left;
                for (int32_t o = 0; o < d->output_c; o++) {
                    const int8_t *x_group = x_image + (o / og) * cg;
                    const int8_t *w = weights + (int32_t)o * k;
                    uint32_t acc = bias != NULL ? (uint32_t)bias[o] : 0u;
                    for (int32_t ky = 0; ky < d->kernel_h; ky++) {
                        const int32_t iy = iy0 + ky * p->dilation_h;
                        const bool row_ok = iy >= 0 && iy < d->input_h;
                        for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cg) {
                            const int32_t ix = ix0 + kx * p->dilation_w;
                            if (row_ok && ix >= 0 && ix < d->input_w) {
                                const int8_t *x = x_group + ((int32_t)iy * d->input_w + ix) * d->input_c;
                                for (int32_t i = 0; i < cg; i++) {
                                    acc += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
                                }
                            } else { /* padded tap: every cell holds the zero point */
                                for (int32_t i = 0; i < cg; i++) {
                                    acc += (uint32_t)(zp * (int32_t)w[i]);
                                }
                            }
                        }
                    }
                    out[o] = em_nn_conv_output(acc, p, quant->multiplier[o], quant->shift[o]);
                }
            }
        }
    }
}

#endif

int32_t em_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims)
{
#if EM_NN_TIER_MVE
    if (params == NULL || dims == NULL || params->groups < 1 || dims->input_c < 1
        || dims->kernel_h < 1 || dims->kernel_w < 1) {
        return 0;
    }
    /* Contiguous columns (1x1 kernels ...) need scratch only at padded borders. */
    return em_nn_conv_col_bytes(params, dims);
#elif EM_NN_TIER_DSP
    if (params == NULL || dims == NULL || params->groups < 1 || dims->input_c < 1
        || dims->kernel_h < 1 || dims->kernel_w < 1) {
        return 0;
    }
    return em_nn_conv_col_bytes_dsp(params, dims);
#else
    (void)params;
    (void)dims;
    return 0;
#endif
}

em_status em_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                       const em_per_channel_quant *quant, const em_conv_dims *dims,
                       const int8_t *input, const int8_t *weights, const int32_t *bias,
                       int8_t *output)
{
    if (input == NULL || weights == NULL || output == NULL
        || !em_nn_conv2d_args_ok(params, quant, dims)) {
        return EM_ERR_BAD_ARGUMENT;
    }
#if EM_NN_TIER_MVE
    em_nn_conv2d_mve(ctx, params, quant, dims, input, weights, bias, output);
#elif EM_NN_TIER_DSP
    em_nn_conv2d_dsp(ctx, params, quant, dims, input, weights, bias, output);
#else
    (void)ctx;
    em_nn_conv2d_scalar(params, quant, dims, input, weights, bias, output);
#endif
    return EM_OK;
}
