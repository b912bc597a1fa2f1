/**
 * @file em_depthwise_conv2d_s8_mve.c
 * @brief em_depthwise_conv2d_s8() on Helium (MVE): int8 depthwise 2-D convolution (NHWC, weights
 *        [KH, KW, C·M]), per-channel requantization; the scalar and DSP tiers:
 *        em_depthwise_conv2d_s8_scalar_dsp.c.
 *
 * Both tiers' files compute the int32 sums exactly (wrapping like the reference) and requantize
 * with em_nn_requantize() or its bit-exact 4-lane form em_nn_requantize_mve(), so they match
 * compiler/reference.py:depthwise_conv2d_s8 byte for byte. Padded cells are input_zero_point
 * (the bias has b − zp·Σw folded in): a padded tap adds zp·w. Depth multiplier 1 first tries the
 * fast path (em_nn_depthwise_m1_s8(), em_depthwise_conv2d_m1_s8.c); what it declines runs here.
 *
 * MVE: vectorised across channels, four int32 lanes = four output channels o = (c + j)·M + m
 * (j = 0..3) that read input channels c..c+3; lanes past the last channel are predicated off
 * (vctp32q), so nothing is read or written beyond the tensors. With M = 1 every load and store
 * is contiguous; with M > 1 weights, bias, quantization and outputs are gathered / scattered with
 * stride M. Each channel block runs over the whole output in one call (em_nn_dw_block): its
 * requantization constants are derived once, the zp·w of kernel rows outside the input once per
 * output row, and the zp·w of each border column's padded taps once per block, so that border
 * pixels run only their valid taps. Interior pixels run in groups of four (then one group of
 * 1..3) that share each weight load. Parameters are copied to locals first: the int8 stores
 * would otherwise make GCC re-read them. No scratch, no im2col copy.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>

#if defined(__GNUC__)
#define EM_NN_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define EM_NN_ALWAYS_INLINE static inline
#endif

/** Loads of four output channels' values: contiguous when @p unit (M = 1), else with the
 *  stride M given by @p off (lane offsets 0, M, 2M, 3M). */
EM_NN_ALWAYS_INLINE int32x4_t em_nn_dw_ld_s8(const int8_t *p, uint32x4_t off, mve_pred16_t pr, bool unit,
                                             bool tail)
{
    if (unit) {
        return tail ? vldrbq_z_s32(p, pr) : vldrbq_s32(p);
    }
    return vldrbq_gather_offset_z_s32(p, off, pr);
}

/** Input loads of four channels: predicated (zeroing) only in the last, partial block. */
EM_NN_ALWAYS_INLINE int32x4_t em_nn_dw_ld_x(const int8_t *p, mve_pred16_t pr, bool tail)
{
    return tail ? vldrbq_z_s32(p, pr) : vldrbq_s32(p);
}

EM_NN_ALWAYS_INLINE int32x4_t em_nn_dw_ld_s32(const int32_t *p, uint32x4_t off, mve_pred16_t pr, bool unit)
{
    return unit ? vldrwq_z_s32(p, pr) : vldrwq_gather_shifted_offset_z_s32(p, off, pr);
}

/** Constants of one channel block in one output row, derived once and reused for every pixel
 *  of the row: the requantization's multiplier and shifts (em_nn_requantize_mve split), and
 *  the accumulator's start, bias + zp·w of the kernel rows that lie outside the input. */
typedef struct {
    int32x4_t multiplier, left, right, base;
} em_nn_dw_consts;

/** Requantizes (bias already in @p acc), clamps and stores four channels of one pixel. */
EM_NN_ALWAYS_INLINE void em_nn_dw_store(int32x4_t acc, const em_nn_dw_consts *q,
                                        const em_conv_params *p, int8_t *out, uint32x4_t off,
                                        mve_pred16_t pr, bool unit, bool tail)
{
    int32x4_t v = vrshlq_s32(vmulhq_s32(vqshlq_s32(acc, q->left), q->multiplier), q->right);
    v = vqaddq_n_s32(v, p->output_offset); /* saturates past the clamp */
    v = vmaxq_s32(v, vdupq_n_s32(p->activation_min));
    v = vminq_s32(v, vdupq_n_s32(p->activation_max));
    if (unit && !tail) {
        vstrbq_s32(out, v);
    } else if (unit) {
        vstrbq_p_s32(out, v, pr);
    } else {
        vstrbq_scatter_offset_p_s32(out, off, v, pr);
    }
}

/** Geometry of one call, derived once. */
typedef struct {
    int32_t c, cm, m;          /**< input channels, output channels, depth multiplier */
    int32_t row_stride;        /**< bytes per input row (W·C) */
    int32_t px_step;           /**< input bytes between adjacent output pixels (stride_w·C) */
    int32_t tap_step;          /**< input bytes between adjacent kx taps (dilation_w·C) */
    int32_t ox_lo, ox_hi;      /**< output columns [ox_lo, ox_hi) have their window inside the
                                    input horizontally (ox_hi <= ox_lo: none) */
} em_nn_dw_geom;

/**
 * NPX (1..4) adjacent output pixels, kernel rows [ky_lo, ky_hi) inside the input (@p rows of
 * them) and taps [kx_lo, kx_lo + kxn) of each row inside it too; the other taps are already in
 * @p base. @p x points at the first pixel's tap (ky_lo, kx_lo), @p w at that weight.
 */
EM_NN_ALWAYS_INLINE void em_nn_dw_run(const em_conv_params *p, const em_conv_dims *d,
                                      const em_nn_dw_geom *g, const em_nn_dw_consts *q,
                                      int32x4_t base, const int8_t *x, const int8_t *w, int32_t rows,
                                      int32_t kxn, int8_t *out, int npx, uint32x4_t off,
                                      mve_pred16_t pr, bool unit, bool tail)
{
    const int32_t px_step = g->px_step, tap_step = g->tap_step, cm = g->cm;
    const int32_t row_step = p->dilation_h * g->row_stride - kxn * tap_step;
    const int32_t w_row_step = (d->kernel_w - kxn) * cm;
    int32x4_t a0 = base, a1 = base, a2 = base, a3 = base;
    for (int32_t ky = 0; ky < rows; ky++, x += row_step, w += w_row_step) {
        for (int32_t kx = 0; kx < kxn; kx++, x += tap_step, w += cm) {
            const int32x4_t wv = em_nn_dw_ld_s8(w, off, pr, unit, tail);
            a0 = vaddq_s32(a0, vmulq_s32(em_nn_dw_ld_x(x, pr, tail), wv));
            if (npx > 1) a1 = vaddq_s32(a1, vmulq_s32(em_nn_dw_ld_x(x + px_step, pr, tail), wv));
            if (npx > 2) a2 = vaddq_s32(a2, vmulq_s32(em_nn_dw_ld_x(x + 2 * px_step, pr, tail), wv));
            if (npx > 3) a3 = vaddq_s32(a3, vmulq_s32(em_nn_dw_ld_x(x + 3 * px_step, pr, tail), wv));
        }
    }
    em_nn_dw_store(a0, q, p, out, off, pr, unit, tail);
    if (npx > 1) em_nn_dw_store(a1, q, p, out + cm, off, pr, unit, tail);
    if (npx > 2) em_nn_dw_store(a2, q, p, out + 2 * cm, off, pr, unit, tail);
    if (npx > 3) em_nn_dw_store(a3, q, p, out + 3 * cm, off, pr, unit, tail);
}

/** Taps [*kx_lo, *kx_hi) of a kernel row that lie inside the input for window column ix0. */
EM_NN_ALWAYS_INLINE void em_nn_dw_kx_range(const em_conv_params *p, const em_conv_dims *d, int32_t ix0,
                                           int32_t *kx_lo, int32_t *kx_hi)
{
    const int32_t kw = d->kernel_w, dw = p->dilation_w;
    int32_t lo = ix0 >= 0 ? 0 : (-ix0 + dw - 1) / dw;
    int32_t hi = ix0 < d->input_w ? (d->input_w - 1 - ix0) / dw + 1 : 0;
    lo = lo < kw ? lo : kw;
    hi = hi < kw ? hi : kw;
    *kx_lo = lo;
    *kx_hi = hi > lo ? hi : lo;
}

/** One output pixel whose window crosses the left or right border (origin column ix0): the
 *  valid taps of each row form one range [kx_lo, kx_hi), the others add zp·w. Kernel rows
 *  [ky_lo, ky_hi) lie inside the input; @p x_row points at channel c of row ky_lo, column 0. */
EM_NN_ALWAYS_INLINE void em_nn_dw_border(const em_conv_params *p, const em_conv_dims *d,
                                         const em_nn_dw_geom *g, const em_nn_dw_consts *q,
                                         const int8_t *x_row, const int8_t *w, int32_t rows,
                                         int32_t ix0, int8_t *out, uint32x4_t off, mve_pred16_t pr,
                                         bool unit, bool tail)
{
    const int32_t zp = p->input_zero_point;
    const int32_t kw = d->kernel_w, cm = g->cm, dw = p->dilation_w;
    const int32_t row_step = p->dilation_h * g->row_stride;
    int32_t kx_lo, kx_hi;
    em_nn_dw_kx_range(p, d, ix0, &kx_lo, &kx_hi);
    int32x4_t acc = q->base;
    for (int32_t ky = 0; ky < rows; ky++, x_row += row_step, w += kw * cm) {
        for (int32_t kx = 0; kx < kx_lo; kx++) {
            acc = vmlaq_n_s32(acc, em_nn_dw_ld_s8(w + kx * cm, off, pr, unit, tail), zp);
        }
        const int8_t *x = x_row + (ix0 + kx_lo * dw) * g->c;
        for (int32_t kx = kx_lo; kx < kx_hi; kx++, x += g->tap_step) {
            const int32x4_t wv = em_nn_dw_ld_s8(w + kx * cm, off, pr, unit, tail);
            acc = vaddq_s32(acc, vmulq_s32(em_nn_dw_ld_x(x, pr, tail), wv));
        }
        for (int32_t kx = kx_hi; kx < kw; kx++) {
            acc = vmlaq_n_s32(acc, em_nn_dw_ld_s8(w + kx * cm, off, pr, unit, tail), zp);
        }
    }
    em_nn_dw_store(acc, q, p, out, off, pr, unit, tail);
}

/** Border pixels (left and right together) whose padded taps em_nn_dw_block() sums once per
 *  block; with more, every border pixel takes em_nn_dw_border(). */
#define EM_NN_DW_MAX_BORDER 8

/**
 * One channel block (input channels c..c+3, output channels (c + j)·M + m) over the whole
 * output. Once per block: the requantization constants, and for each border column ox its valid
 * taps [kx_lo, kx_hi) and the sum zp·w of its padded taps over all kernel rows. Once per output
 * row: the accumulator start (bias + zp·w of the kernel rows outside the input). Then each row
 * runs its border pixels as runs of one pixel over their valid taps (rows with every kernel row
 * inside the input) or tap by tap (em_nn_dw_border), its interior in runs of four and one run
 * of the 1..3 left.
 */
EM_NN_ALWAYS_INLINE void em_nn_dw_block(const em_conv_params *p_arg, const em_per_channel_quant *quant,
                                        const em_conv_dims *d_arg, const em_nn_dw_geom *g_arg,
                                        const int8_t *input, const int8_t *weights,
                                        const int32_t *bias, int8_t *output, int32_t c, bool unit,
                                        bool tail, int32_t kw_fixed)
{
    /* Local copies: the int8 output stores may alias anything reached through a pointer, so
     * GCC would re-read every parameter after each store. */
    const em_conv_params p_local = *p_arg;
    em_conv_dims d_local = *d_arg;
    if (kw_fixed > 0) {
        d_local.kernel_w = kw_fixed; /* a compile-time trip count for the tap loops */
    }
    const em_nn_dw_geom g_local = *g_arg;
    const em_conv_params *const p = &p_local;
    const em_conv_dims *const d = &d_local;
    const em_nn_dw_geom *const g = &g_local;
    const uint32x4_t off = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)g->m);
    const mve_pred16_t pr = tail ? vctp32q((uint32_t)(g->c - c)) : 0xFFFF;
    const int32_t zp = p->input_zero_point;
    const int32_t kw = kw_fixed > 0 ? kw_fixed : d->kernel_w, kh = d->kernel_h, cm = g->cm;
    const int32_t ow = d->output_w, sw = p->stride_w, pl = p->pad_left, dw = p->dilation_w;
    const int32_t ox_lo = g->ox_lo < ow ? g->ox_lo : ow;
    const int32_t ox_hi = g->ox_hi > ox_lo ? g->ox_hi : ox_lo;
    const int32_t n_border = ox_lo + (ow - ox_hi);
    const bool fast_border = n_border <= EM_NN_DW_MAX_BORDER;
    int32x4_t corr[EM_NN_DW_MAX_BORDER];
    int32_t kx_lo[EM_NN_DW_MAX_BORDER], kx_hi[EM_NN_DW_MAX_BORDER];
    for (int32_t m = 0; m < g->m; m++) {
        const int32_t o = c * g->m + m;
        em_nn_dw_consts q;
        const int32x4_t b = bias != NULL ? em_nn_dw_ld_s32(bias + o, off, pr, unit) : vdupq_n_s32(0);
        const int32x4_t shift = em_nn_dw_ld_s32(quant->shift + o, off, pr, unit);
        q.multiplier = em_nn_dw_ld_s32(quant->multiplier + o, off, pr, unit);
        q.left = vmaxq_s32(vaddq_n_s32(shift, 2), vdupq_n_s32(0));
        q.right = vaddq_n_s32(vsubq_s32(shift, q.left), 1); /* -(E - 32) */
        if (fast_border) {
            for (int32_t i = 0; i < n_border; i++) {
                const int32_t ox = i < ox_lo ? i : ox_hi + (i - ox_lo);
                em_nn_dw_kx_range(p, d, ox * sw - pl, &kx_lo[i], &kx_hi[i]);
                int32x4_t sum = vdupq_n_s32(0);
                const int8_t *w = weights + o;
                for (int32_t ky = 0; ky < kh; ky++, w += kw * cm) {
                    for (int32_t kx = 0; kx < kw; kx++) {
                        if (kx < kx_lo[i] || kx >= kx_hi[i]) {
                            sum = vmlaq_n_s32(sum, em_nn_dw_ld_s8(w + kx * cm, off, pr, unit, tail), zp);
                        }
                    }
                }
                corr[i] = sum;
            }
        }
        int8_t *out_row = output + o;
        for (int32_t n = 0; n < d->batches; n++) {
            const int8_t *x_image = input + (int32_t)n * d->input_h * g->row_stride + c;
            for (int32_t oy = 0; oy < d->output_h; oy++, out_row += ow * cm) {
                const int32_t iy0 = oy * p->stride_h - p->pad_top;
                int32_t ky_lo = 0, ky_hi = kh;
                while (ky_lo < ky_hi && iy0 + ky_lo * p->dilation_h < 0) ky_lo++;
                while (ky_hi > ky_lo && iy0 + (ky_hi - 1) * p->dilation_h >= d->input_h) ky_hi--;
                const int32_t rows = ky_hi - ky_lo;
                q.base = b;
                if (zp != 0 && rows < kh) { /* padded rows: zp·w, the same for every pixel */
                    for (int32_t ky = 0; ky < kh; ky++) {
                        if (ky >= ky_lo && ky < ky_hi) {
                            continue;
                        }
                        const int8_t *w = weights + ky * kw * cm + o;
                        for (int32_t kx = 0; kx < kw; kx++, w += cm) {
                            q.base = vmlaq_n_s32(q.base, em_nn_dw_ld_s8(w, off, pr, unit, tail), zp);
                        }
                    }
                }
                const int8_t *w = weights + ky_lo * kw * cm + o;
                const int8_t *x_c = rows > 0 ? x_image + (iy0 + ky_lo * p->dilation_h) * g->row_stride
                                             : x_image;
                const bool rows_full = rows == kh && fast_border;
                int8_t *y = out_row;
                int32_t ox = 0;
                for (; ox < ox_lo; ox++, y += cm) {
                    const int32_t ix0 = ox * sw - pl;
                    if (rows_full) {
                        const int32_t lo = kx_lo[ox];
                        em_nn_dw_run(p, d, g, &q, vaddq_s32(q.base, corr[ox]), x_c + (ix0 + lo * dw) * g->c,
                                     w + lo * cm, rows, kx_hi[ox] - lo, y, 1, off, pr, unit, tail);
                    } else {
                        em_nn_dw_border(p, d, g, &q, x_c, w, rows, ix0, y, off, pr, unit, tail);
                    }
                }
                for (; ox + 4 <= ox_hi; ox += 4, y += 4 * cm) {
                    em_nn_dw_run(p, d, g, &q, q.base, x_c + (ox * sw - pl) * g->c, w, rows, kw, y, 4, off,
                                 pr, unit, tail);
                }
                if (ox < ox_hi) {
                    const int32_t left = ox_hi - ox;
                    const int8_t *x = x_c + (ox * sw - pl) * g->c;
                    if (left == 3) {
                        em_nn_dw_run(p, d, g, &q, q.base, x, w, rows, kw, y, 3, off, pr, unit, tail);
                    } else if (left == 2) {
                        em_nn_dw_run(p, d, g, &q, q.base, x, w, rows, kw, y, 2, off, pr, unit, tail);
                    } else {
                        em_nn_dw_run(p, d, g, &q, q.base, x, w, rows, kw, y, 1, off, pr, unit, tail);
                    }
                    ox = ox_hi;
                    y += left * cm;
                }
                for (int32_t i = ox_lo; ox < ow; ox++, i++, y += cm) {
                    const int32_t ix0 = ox * sw - pl;
                    if (rows_full) {
                        const int32_t lo = kx_lo[i];
                        em_nn_dw_run(p, d, g, &q, vaddq_s32(q.base, corr[i]), x_c + (ix0 + lo * dw) * g->c,
                                     w + lo * cm, rows, kx_hi[i] - lo, y, 1, off, pr, unit, tail);
                    } else {
                        em_nn_dw_border(p, d, g, &q, x_c, w, rows, ix0, y, off, pr, unit, tail);
                    }
                }
            }
        }
    }
}

/* One out-of-line instance per kind. */
#define EM_NN_DW_BLOCK(name, unit, tail, kw_fixed)                                                 \
    static __attribute__((noinline)) void name(                                                   \
        const em_conv_params *p, const em_per_channel_quant *quant, const em_conv_dims *d,          \
        const em_nn_dw_geom *g, const int8_t *input, const int8_t *weights, const int32_t *bias,  \
        int8_t *output, int32_t c)                                                                 \
    {                                                                                              \
        em_nn_dw_block(p, quant, d, g, input, weights, bias, output, c, unit, tail, kw_fixed);     \
    }
/* M = 1, full blocks (the common case); M = 1, the last partial block; M > 1 (predicated). */
EM_NN_DW_BLOCK(em_nn_dw_block_full, true, false, 0)
EM_NN_DW_BLOCK(em_nn_dw_block_full_kw3, true, false, 3) /* KW = 3 taps unrolled */
EM_NN_DW_BLOCK(em_nn_dw_block_tail, true, true, 0)
EM_NN_DW_BLOCK(em_nn_dw_block_strided, false, true, 0)

EM_NN_ALWAYS_INLINE void em_nn_dw_mve(uint32_t paths, const em_conv_params *p, const em_per_channel_quant *quant,
                                      const em_conv_dims *d, const int8_t *input,
                                      const int8_t *weights, const int32_t *bias, int8_t *output,
                                      bool unit)
{
    em_nn_dw_geom g;
    g.c = d->input_c;
    g.cm = d->output_c;
    g.m = p->depth_multiplier;
    g.row_stride = d->input_w * d->input_c;
    g.px_step = p->stride_w * d->input_c;
    g.tap_step = p->dilation_w * d->input_c;
    const int32_t span_w = (d->kernel_w - 1) * p->dilation_w;
    /* Interior columns: ox·sw − pl >= 0 and ox·sw − pl + span_w <= W − 1. */
    g.ox_lo = (p->pad_left + p->stride_w - 1) / p->stride_w;
    const int32_t last = d->input_w - 1 - span_w + p->pad_left;
    g.ox_hi = last >= 0 ? last / p->stride_w + 1 : 0;
    g.ox_hi = g.ox_hi < d->output_w ? g.ox_hi : d->output_w;
    const int32_t c_full = unit ? (g.c & ~3) : 0; /* channels of the unpredicated blocks */
    int32_t c = 0;
    /* the blocks the program's paths name (em_nn_variants.h), which cover the layer: em_nn_dw_mve_covered() */
    for (; c < c_full; c += 4) {
        if (EM_NN_TAKES(paths, DW_MVE_FULL_KW3) && d->kernel_w == 3) {
            em_nn_dw_block_full_kw3(p, quant, d, &g, input, weights, bias, output, c);
        } else if (EM_NN_TAKES(paths, DW_MVE_FULL)) {
            em_nn_dw_block_full(p, quant, d, &g, input, weights, bias, output, c);
        }
    }
    for (; c < g.c; c += 4) {
        if (unit) {
            if (EM_NN_TAKES(paths, DW_MVE_TAIL)) {
                em_nn_dw_block_tail(p, quant, d, &g, input, weights, bias, output, c);
            }
        } else if (EM_NN_TAKES(paths, DW_MVE_STRIDED)) {
            em_nn_dw_block_strided(p, quant, d, &g, input, weights, bias, output, c);
        }
    }
}

static void em_nn_dw_mve_unit(uint32_t paths, const em_conv_params *p, const em_per_channel_quant *quant,
                              const em_conv_dims *d, const int8_t *input, const int8_t *weights,
                              const int32_t *bias, int8_t *output)
{
    em_nn_dw_mve(paths, p, quant, d, input, weights, bias, output, true);
}

static void em_nn_dw_mve_strided(uint32_t paths, const em_conv_params *p, const em_per_channel_quant *quant,
                                 const em_conv_dims *d, const int8_t *input, const int8_t *weights,
                                 const int32_t *bias, int8_t *output)
{
    em_nn_dw_mve(paths, p, quant, d, input, weights, bias, output, false);
}

/* a build without any of them (em_nn_variants.h) drops the general path's code */
#define EM_NN_DW_MVE_ANY                                                                           \
    (EM_NN_VARIANT_DW_MVE_FULL_KW3 || EM_NN_VARIANT_DW_MVE_FULL || EM_NN_VARIANT_DW_MVE_TAIL ||   \
     EM_NN_VARIANT_DW_MVE_STRIDED)

/* em_depthwise_conv2d_s8_paths_ok(): em_conv_validate_s8.c (the verifier's, built for the host too) */

/* em_depthwise_conv2d_s8_get_buffer_size(): em_nn_buffer_sizes.c */

em_nn_status em_depthwise_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                            const em_per_channel_quant *quant, const em_conv_dims *dims,
                                            const int8_t *input, const int8_t *weights, const int32_t *bias,
                                            int8_t *output)
{
    if (em_nn_depthwise_m1_s8(ctx, params, quant, dims, input, weights, bias, output)) {
        return EM_NN_OK; /* em_depthwise_conv2d_m1_s8.c */
    }
    if (!EM_NN_DW_MVE_ANY) {
        return EM_NN_ERR_VARIANT_NOT_LINKED; /* em_depthwise_conv2d_s8_paths_ok() refuses it at load */
    }
    const uint32_t paths = ctx != NULL ? ctx->paths : 0u;
    if (params->depth_multiplier == 1) {
        em_nn_dw_mve_unit(paths, params, quant, dims, input, weights, bias, output);
    } else {
        em_nn_dw_mve_strided(paths, params, quant, dims, input, weights, bias, output);
    }
    return EM_NN_OK;
}

#endif /* EM_NN_TIER_MVE */
