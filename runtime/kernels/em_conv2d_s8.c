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

#include "em_nn_dot_s8.h"
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
    return em_nn_requantize_s8((int32_t)acc, multiplier, shift, p->output_offset, p->activation_min,
                               p->activation_max);
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

/** Pixels per block: their columns share each channel group's requantization constants. */
#define EM_NN_CONV_BLOCK 4

/** Patch bytes of one pixel and group, rounded up to 16 (vector stores). */
static int32_t em_nn_conv_col_bytes(const em_conv_params *p, const em_conv_dims *d)
{
    const int32_t k = d->kernel_h * d->kernel_w * (d->input_c / p->groups);
    return (k + 15) & ~15;
}

/** dst[0..n) = src[0..n), n >= 1: a tail-predicated loop (DLSTP / LETP) of 16-byte steps,
 *  three instructions each (GCC 12 builds a VCTP, VMRS / VMSR and two VPST per step). */
static inline void em_nn_copy_s8_mve(int8_t *dst, const int8_t *src, int32_t n)
{
#if defined(__GNUC__)
    __asm__ volatile("dlstp.8 lr, %[n]\n"
                     "1:\n\t"
                     "vldrb.8 q0, [%[s]], #16\n\t"
                     "vstrb.8 q0, [%[d]], #16\n\t"
                     "letp    lr, 1b"
                     : [s] "+r"(src), [d] "+r"(dst)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
#else
    for (int32_t i = 0; i < n; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(n - i));
        vstrbq_p_s8(dst + i, vldrbq_z_s8(src + i, pr), pr);
    }
#endif
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
 * Σ_{i<k} col[i]·w[r·k + i] for the four weight rows r = 0..3 (k >= 1): one 16-byte column load
 * feeds four VMLADAVA. A tail-predicated loop (DLSTP / LETP): the last step's loads and sums
 * cover only the k % 16 bytes left, so nothing past the column or the rows is read. In
 * assembly: GCC 12 neither emits DLSTP here nor keeps the four row pointers in registers
 * (11 instructions per step and ~20 per call of pointer set-up; by hand 10 and 5).
 */
static inline void em_nn_dot4_mve(const int8_t *col, const int8_t *w, int32_t k, int32_t *s0,
                                  int32_t *s1, int32_t *s2, int32_t *s3)
{
#if defined(__GNUC__)
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int8_t *w0 = w, *w1 = w + k, *w2 = w1 + k, *w3 = w2 + k;
    __asm__("dlstp.8 lr, %[k]\n"
            "1:\n\t"
            "vldrb.8     q0, [%[x]], #16\n\t"
            "vldrb.8     q1, [%[w0]], #16\n\t"
            "vmladava.s8 %[a0], q0, q1\n\t"
            "vldrb.8     q1, [%[w1]], #16\n\t"
            "vmladava.s8 %[a1], q0, q1\n\t"
            "vldrb.8     q1, [%[w2]], #16\n\t"
            "vmladava.s8 %[a2], q0, q1\n\t"
            "vldrb.8     q1, [%[w3]], #16\n\t"
            "vmladava.s8 %[a3], q0, q1\n\t"
            "letp        lr, 1b"
            : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+r"(col),
              [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
            : [k] "r"(k)
            : "q0", "q1", "lr", "memory");
#else
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < k; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t xv = vldrbq_z_s8(col + i, pr);
        a0 = vmladavaq_p_s8(a0, xv, vldrbq_z_s8(w + i, pr), pr);
        a1 = vmladavaq_p_s8(a1, xv, vldrbq_z_s8(w + k + i, pr), pr);
        a2 = vmladavaq_p_s8(a2, xv, vldrbq_z_s8(w + 2 * k + i, pr), pr);
        a3 = vmladavaq_p_s8(a3, xv, vldrbq_z_s8(w + 3 * k + i, pr), pr);
    }
#endif
    *s0 = a0, *s1 = a1, *s2 = a2, *s3 = a3;
}

/** One pixel's column and its four sums (em_nn_dot4_cols_mve); a NULL column ends a list. */
typedef struct {
    const int8_t *col;
    int32_t sum[4];
} em_nn_conv_col;

/**
 * For each column of the NULL-terminated list @p c (K = k >= 1 int8 each): c->sum[r] =
 * Σ_{i<k} col[i]·w[r·k + i] for the four weight rows r = 0..3, by the loop of em_nn_dot4_mve;
 * the loop over the columns is in the same assembly so that the rows' pointers are set up
 * from registers (12 registers; GCC 12 spilled them around each column).
 */
static inline void em_nn_dot4_cols_mve(em_nn_conv_col *c, const int8_t *w, int32_t k)
{
#if defined(__GNUC__)
    const int8_t *x, *p0, *p1, *p2, *p3;
    int32_t a0, a1, a2, a3;
    __asm__ volatile("ldr     %[x], [%[c]]\n\t"
                     "cbz     %[x], 3f\n"
                     "2:\n\t"
                     "mov     %[p0], %[w]\n\t"
                     "add     %[p1], %[w], %[k]\n\t"
                     "add     %[p2], %[p1], %[k]\n\t"
                     "add     %[p3], %[p2], %[k]\n\t"
                     "movs    %[a0], #0\n\t"
                     "movs    %[a1], #0\n\t"
                     "movs    %[a2], #0\n\t"
                     "movs    %[a3], #0\n\t"
                     "dlstp.8 lr, %[k]\n"
                     "1:\n\t"
                     "vldrb.8     q0, [%[x]], #16\n\t"
                     "vldrb.8     q1, [%[p0]], #16\n\t"
                     "vmladava.s8 %[a0], q0, q1\n\t"
                     "vldrb.8     q1, [%[p1]], #16\n\t"
                     "vmladava.s8 %[a1], q0, q1\n\t"
                     "vldrb.8     q1, [%[p2]], #16\n\t"
                     "vmladava.s8 %[a2], q0, q1\n\t"
                     "vldrb.8     q1, [%[p3]], #16\n\t"
                     "vmladava.s8 %[a3], q0, q1\n\t"
                     "letp        lr, 1b\n\t"
                     "strd    %[a0], %[a1], [%[c], #4]\n\t"
                     "strd    %[a2], %[a3], [%[c], #12]\n\t"
                     "ldr     %[x], [%[c], #20]!\n\t"
                     "cmp     %[x], #0\n\t"
                     "bne     2b\n"
                     "3:"
                     : [c] "+r"(c), [x] "=&r"(x), [p0] "=&r"(p0), [p1] "=&r"(p1), [p2] "=&r"(p2),
                       [p3] "=&r"(p3), [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2),
                       [a3] "=&Te"(a3)
                     : [w] "r"(w), [k] "r"(k)
                     : "q0", "q1", "lr", "cc", "memory");
#else
    for (; c->col != NULL; c++) {
        em_nn_dot4_mve(c->col, w, k, &c->sum[0], &c->sum[1], &c->sum[2], &c->sum[3]);
    }
#endif
}

/** Requantization constants of one convolution, copied out of the parameters (int8 stores may
 *  alias them, so GCC would re-read them after every store). */
typedef struct {
    const int32_t *multiplier, *shift, *bias; /**< [C_OUT]; bias may be NULL */
    int32_t offset, lo, hi;                    /**< output zero point and clamp */
} em_nn_conv_requant;

/**
 * Output channels [o_begin, o_end) of @p n_cols (1..EM_NN_CONV_BLOCK) pixels whose columns
 * (K int8 each) are contiguous at cols[j].col (cols has room for n_cols + 1 entries: the NULL
 * end is written here); pixel j's outputs at out + j·out_stride. Per group of
 * four channels the bias, multiplier and shift vectors (and the shifts' derived vectors) are
 * loaded once for all the pixels; per pixel four weight rows share each 16-byte column load
 * (VMLADAVA into four sums), unpredicated steps then one zeroing tail step, and the four sums
 * are requantized as one vector. 1..3 channels left run one by one.
 */
EM_NN_NOINLINE static void em_nn_conv_block_mve(const em_nn_conv_requant *q, em_nn_conv_col *cols,
                                                 int32_t n_cols, int32_t k, int32_t o_begin,
                                                 int32_t o_end, const int8_t *weights, int8_t *out,
                                                 int32_t out_stride)
{
    const int32x4_t offset = vdupq_n_s32(q->offset);
    const int32x4_t lo = vdupq_n_s32(q->lo), hi = vdupq_n_s32(q->hi);
    const int32_t *bias = q->bias, *multiplier = q->multiplier, *shift = q->shift;
    cols[n_cols].col = NULL;
    int32_t o = o_begin;
    for (; o + 4 <= o_end; o += 4) {
        em_nn_dot4_cols_mve(cols, weights + (int32_t)o * k, k);
        const int32x4_t b = bias != NULL ? vld1q_s32(bias + o) : vdupq_n_s32(0);
        const int32x4_t m = vld1q_s32(multiplier + o);
        const int32x4_t sh = vld1q_s32(shift + o);
        const int32x4_t left = vmaxq_s32(vaddq_n_s32(sh, 2), vdupq_n_s32(0));
        const int32x4_t right = vaddq_n_s32(vsubq_s32(sh, left), 1); /* em_nn_requantize_mve */
        int8_t *y = out + o;
        for (int32_t j = 0; j < n_cols; j++, y += out_stride) {
            int32x4_t v = vaddq_s32(vld1q_s32(cols[j].sum), b); /* wraps, as the reference */
            v = vrshlq_s32(vmulhq_s32(vqshlq_s32(v, left), m), right);
            v = vqaddq_s32(v, offset); /* saturates past the clamp */
            v = vminq_s32(vmaxq_s32(v, lo), hi);
            vstrbq_s32(y, v);
        }
    }
    for (; o < o_end; o++) { /* 1..3 channels left */
        const uint32_t b = bias != NULL ? (uint32_t)bias[o] : 0u;
        for (int32_t j = 0; j < n_cols; j++) {
            const int32_t dot = em_nn_conv_dot_mve(cols[j].col, weights + (int32_t)o * k, k);
            out[j * out_stride + o] = em_nn_requantize_s8((int32_t)((uint32_t)dot + b), multiplier[o],
                                                          shift[o], q->offset, q->lo, q->hi);
        }
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

static void em_nn_conv2d_mve(const em_nn_context *ctx, const em_conv_params *p,
                             const em_per_channel_quant *quant, const em_conv_dims *d,
                             const int8_t *input, const int8_t *weights, const int32_t *bias,
                             int8_t *output)
{
    const int32_t col_bytes = em_nn_conv_col_bytes(p, d);
    int32_t packable = 0; /* columns the scratch holds */
    if (ctx != NULL && ctx->buf != NULL) {
        packable = ctx->size / col_bytes;
        packable = packable > EM_NN_CONV_BLOCK ? EM_NN_CONV_BLOCK : packable;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t og = d->output_c / p->groups;
    const int32_t pixels = d->output_h * d->output_w;
    const em_nn_conv_requant q = {quant->multiplier, quant->shift, bias, p->output_offset,
                                  p->activation_min, p->activation_max};
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        int8_t *out_image = output + (int32_t)n * pixels * d->output_c;
        for (int32_t first = 0; first < pixels; first += EM_NN_CONV_BLOCK) {
            const int32_t block = pixels - first < EM_NN_CONV_BLOCK ? pixels - first : EM_NN_CONV_BLOCK;
            for (int32_t g = 0; g < p->groups; g++) {
                /* Pixels first.. in runs of columns (in place, or packed while the scratch
                 * has room); without scratch a pixel that needs packing runs tap by tap. */
                em_nn_conv_col cols[EM_NN_CONV_BLOCK + 1]; /* + the NULL end */
                int32_t n_cols = 0, packed = 0, start = first;
                for (int32_t px = first; px < first + block; px++) {
                    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
                    const int32_t iy0 = oy * p->stride_h - p->pad_top;
                    const int32_t ix0 = ox * p->stride_w - p->pad_left;
                    const bool in_place = em_nn_conv_in_place(p, d, iy0, ix0);
                    if (!in_place && packed == packable && n_cols > 0) { /* scratch full: flush */
                        em_nn_conv_block_mve(&q, cols, n_cols, k, g * og, (g + 1) * og, weights,
                                             out_image + start * d->output_c, d->output_c);
                        n_cols = 0, packed = 0, start = px;
                    }
                    if (in_place) {
                        cols[n_cols++].col = x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
                    } else if (packed < packable) {
                        int8_t *col = (int8_t *)ctx->buf + packed++ * col_bytes;
                        em_nn_conv_pack_mve(p, d, x_image + g * cg, iy0, ix0, col);
                        cols[n_cols++].col = col;
                    } else { /* no scratch: this pixel's taps in place */
                        em_nn_conv_taps_mve(p, quant, d, x_image + g * cg, iy0, ix0, g * og, (g + 1) * og,
                                            weights, bias, out_image + px * d->output_c);
                        start = px + 1;
                    }
                }
                if (n_cols > 0) {
                    em_nn_conv_block_mve(&q, cols, n_cols, k, g * og, (g + 1) * og, weights,
                                         out_image + start * d->output_c, d->output_c);
                }
            }
        }
    }
}

#else /* DSP and scalar: the same columns, each tier its own dot products */

/** Patch bytes of one pixel and group (the int8 column, rounded up to 4). */
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

#if EM_NN_TIER_DSP
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

#else /* scalar */

/** One pixel and group without scratch: each output channel tap by tap (padded taps: zp·w). */
static void em_nn_conv_taps_scalar(const em_conv_params *p, const em_per_channel_quant *quant,
                                   const em_conv_dims *d, const int8_t *x_group, int32_t iy0,
                                   int32_t ix0, int32_t o_begin, int32_t o_end,
                                   const int8_t *weights, const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int32_t zp = p->input_zero_point;
    for (int32_t o = o_begin; o < o_end; o++) {
        const int8_t *w = weights + (int32_t)o * k;
        uint32_t acc = bias != NULL ? (uint32_t)bias[o] : 0u;
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            const bool row_ok = iy >= 0 && iy < d->input_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cg) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                if (row_ok && ix >= 0 && ix < d->input_w) {
                    const int8_t *x = x_group + ((int32_t)iy * d->input_w + ix) * d->input_c;
                    acc = (uint32_t)em_nn_dot_s8_scalar(x, w, cg, (int32_t)acc);
                } else { /* padded tap: every cell holds the zero point */
                    for (int32_t i = 0; i < cg; i++) {
                        acc += (uint32_t)(zp * (int32_t)w[i]);
                    }
                }
            }
        }
        out[o] = em_nn_requantize_s8((int32_t)acc, quant->multiplier[o], quant->shift[o],
                                     p->output_offset, p->activation_min, p->activation_max);
    }
}

#endif

#if EM_NN_TIER_DSP
#define EM_NN_CONV_TAPS em_nn_conv_taps_dsp
#else
#define EM_NN_CONV_TAPS em_nn_conv_taps_scalar
#endif

/* One driver for DSP and scalar: per pixel and group, the column in place (1x1 ...), packed
 * into the scratch, or (no scratch) tap by tap. */
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
                        em_nn_dot_rows_s8(col, weights, k, g * og, (g + 1) * og, bias, quant->multiplier,
                                          quant->shift, p->output_offset, p->activation_min,
                                          p->activation_max, out);
                    } else {
                        EM_NN_CONV_TAPS(p, quant, d, x_group, iy0, ix0, g * og, (g + 1) * og,
                                            weights, bias, out);
                    }
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
    /* A block of columns; contiguous columns (1x1 kernels ...) need scratch only at padded
     * borders. The kernel packs as many columns as ctx->size holds. */
    return EM_NN_CONV_BLOCK * em_nn_conv_col_bytes(params, dims);
#else
    if (params == NULL || dims == NULL || params->groups < 1 || dims->input_c < 1
        || dims->kernel_h < 1 || dims->kernel_w < 1) {
        return 0;
    }
    return em_nn_conv_col_bytes_dsp(params, dims);
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
#else
    em_nn_conv2d_dsp(ctx, params, quant, dims, input, weights, bias, output);
#endif
    return EM_OK;
}
