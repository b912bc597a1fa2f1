/**
 * @file em_conv2d_block_mve.c
 * @brief em_conv2d_s8() on Helium (MVE): the output channels of a block of up to
 *        EM_NN_CONV_BLOCK columns (em_nn_conv_block_mve), and of one pixel read tap by tap when
 *        there is no scratch (em_nn_conv_taps_mve). em_nn_conv2d_mve.h: the chunks and leaves.
 */
#include <stddef.h>
#include <stdint.h>

#include "em_nn_conv2d_mve.h"
#include "em_nn_dot_s8.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE

/**
 * For each column of the NULL-terminated list @p c (K = k >= 1 int8 each): c->sum[r] =
 * Σ_{i<k} col[i]·w[r·k + i] for the four weight rows r = 0..3: one 16-byte column load feeds
 * four VMLADAVA, in a tail-predicated loop (DLSTP / LETP: the last step's loads and sums cover
 * only the k % 16 bytes left, so nothing past a column or a row is read). In assembly, the
 * loop over the columns too: GCC 12 neither emits DLSTP here nor keeps the rows' pointers in
 * registers (what that costs: runtime/kernels/README.md).
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
                     : [c] "+r"(c), [x] "=&l"(x) /* CBZ: a low register */, [p0] "=&r"(p0), [p1] "=&r"(p1), [p2] "=&r"(p2),
                       [p3] "=&r"(p3), [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2),
                       [a3] "=&Te"(a3)
                     : [w] "r"(w), [k] "r"(k)
                     : "q0", "q1", "lr", "cc", "memory");
#else
    for (; c->col != NULL; c++) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int32_t i = 0; i < k; i += 16) { /* the same tail predication by VCTP */
            const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
            const int8x16_t xv = vldrbq_z_s8(c->col + i, pr);
            a0 = vmladavaq_p_s8(a0, xv, vldrbq_z_s8(w + i, pr), pr);
            a1 = vmladavaq_p_s8(a1, xv, vldrbq_z_s8(w + k + i, pr), pr);
            a2 = vmladavaq_p_s8(a2, xv, vldrbq_z_s8(w + 2 * k + i, pr), pr);
            a3 = vmladavaq_p_s8(a3, xv, vldrbq_z_s8(w + 3 * k + i, pr), pr);
        }
        c->sum[0] = a0, c->sum[1] = a1, c->sum[2] = a2, c->sum[3] = a3;
    }
#endif
}

/**
 * Output channels [o_begin, o_end) of @p n_cols (1..EM_NN_CONV_BLOCK) pixels whose columns
 * (K int8 each) are contiguous at cols[j].col (cols has room for n_cols + 1 entries: the NULL
 * end is written here); pixel j's outputs at out + j·out_stride. Channels in chunks: up to
 * EM_NN_CONV_CHUNK (a multiple of 12) while 12 are left, pairs of columns running three rows
 * at a time (em_nn_dot2x3_rows_mve; an odd last column pairs with itself, its twin's sums land
 * in row j + 1); then the 4..8 left four rows per column load (em_nn_dot4_cols_mve). Per
 * vector of four channels of a chunk the bias, multiplier and shift vectors (and the shifts'
 * derived vectors) are loaded once for all the pixels, and each pixel's four sums are
 * requantized as one vector. 1..3 channels left run one by one.
 */
EM_NN_NOINLINE void em_nn_conv_block_mve(const em_nn_conv_requant *q, em_nn_conv_col *cols, int32_t n_cols,
                                         int32_t k, int32_t o_begin, int32_t o_end, const int8_t *weights,
                                         int8_t *out, int32_t out_stride)
{
    const int32x4_t offset = vdupq_n_s32(q->offset);
    const int32x4_t lo = vdupq_n_s32(q->lo), hi = vdupq_n_s32(q->hi);
    const int32_t *bias = q->bias, *multiplier = q->multiplier, *shift = q->shift;
    cols[n_cols].col = NULL;
    int32_t o = o_begin;
    int32_t sums[EM_NN_CONV_BLOCK][EM_NN_CONV_CHUNK];
    for (int32_t rows; (rows = o_end - o >= EM_NN_CONV_CHUNK ? EM_NN_CONV_CHUNK
                                : o_end - o >= 12   ? (o_end - o) / 12 * 12
                                                    : (o_end - o) & ~3) > 0;
         o += rows) {
        const int8_t *w = weights + (int32_t)o * k;
        if (rows % 12 == 0) {
            for (int32_t j = 0; j < n_cols; j += 2) {
                const int8_t *ca = cols[j].col, *cb = j + 1 < n_cols ? cols[j + 1].col : ca;
                em_nn_dot2x3_rows_mve(ca, cb, w, k, &sums[j][0], rows / 3);
            }
        } else {
            for (int32_t r = 0; r < rows; r += 4) {
                em_nn_dot4_cols_mve(cols, w + r * k, k);
                for (int32_t j = 0; j < n_cols; j++) {
                    vst1q_s32(&sums[j][r], vld1q_s32(cols[j].sum));
                }
            }
        }
        for (int32_t r = 0; r < rows; r += 4) {
            const int32x4_t b = bias != NULL ? vld1q_s32(bias + o + r) : vdupq_n_s32(0);
            const int32x4_t m = vld1q_s32(multiplier + o + r);
            const int32x4_t sh = vld1q_s32(shift + o + r);
            const int32x4_t left = vmaxq_s32(vaddq_n_s32(sh, 2), vdupq_n_s32(0));
            const int32x4_t right = vaddq_n_s32(vsubq_s32(sh, left), 1); /* em_nn_requantize_mve */
            int8_t *y = out + o + r;
            for (int32_t j = 0; j < n_cols; j++, y += out_stride) {
                int32x4_t v = vaddq_s32(vld1q_s32(&sums[j][r]), b); /* wraps, as the reference */
                v = vrshlq_s32(vmulhq_s32(vqshlq_s32(v, left), m), right);
                v = vqaddq_s32(v, offset); /* saturates past the clamp */
                v = vminq_s32(vmaxq_s32(v, lo), hi);
                vstrbq_s32(y, v);
            }
        }
    }
    for (; o < o_end; o++) { /* 1..3 channels left */
        const uint32_t b = bias != NULL ? (uint32_t)bias[o] : 0u;
        for (int32_t j = 0; j < n_cols; j++) {
            const int32_t dot = em_nn_dot_s8_mve(cols[j].col, weights + (int32_t)o * k, k, 0);
            out[j * out_stride + o] = em_nn_requantize_s8((int32_t)((uint32_t)dot + b), multiplier[o],
                                                          shift[o], q->offset, q->lo, q->hi);
        }
    }
}

/* Built only where the variant is (em_nn_variants.h): left out, the block is the only caller of
 * the requantization helpers here, which -Os then inlines into it instead of keeping them out
 * of line for both (this file is compiled again for each program's variants, as the dispatch is). */
#if EM_NN_VARIANT_CONV_MVE_TAPS
/** One pixel and group without scratch (only then: the caller gave too little), so kept
 *  small: per output channel, tap by tap, each tap's Cg inputs read in place in tail-predicated
 *  16-byte steps (a padded tap: zero-point vectors; zeroed weight lanes end a tail). */
EM_NN_NOINLINE void em_nn_conv_taps_mve(const em_conv_params *p, const em_per_channel_quant *quant,
                                        const em_conv_dims *d, const int8_t *x_group, int32_t iy0, int32_t ix0,
                                        int32_t o_begin, int32_t o_end, const int8_t *weights,
                                        const int32_t *bias, int8_t *out)
{
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
    const int8x16_t zp = vdupq_n_s8((int8_t)p->input_zero_point);
    for (int32_t o = o_begin; o < o_end; o++) {
        const int8_t *w = weights + (int32_t)o * k;
        int32_t acc = bias != NULL ? bias[o] : 0; /* VMLADAVA wraps, as the reference */
        for (int32_t ky = 0; ky < d->kernel_h; ky++) {
            const int32_t iy = iy0 + ky * p->dilation_h;
            for (int32_t kx = 0; kx < d->kernel_w; kx++, w += cg) {
                const int32_t ix = ix0 + kx * p->dilation_w;
                const int8_t *x = iy >= 0 && iy < d->input_h && ix >= 0 && ix < d->input_w
                                      ? x_group + ((int32_t)iy * d->input_w + ix) * d->input_c
                                      : NULL;
                for (int32_t i = 0; i < cg; i += 16) {
                    const mve_pred16_t pr = vctp8q((uint32_t)(cg - i));
                    const int8x16_t xv = x != NULL ? vldrbq_z_s8(x + i, pr) : zp;
                    acc = vmladavaq_s8(acc, xv, vldrbq_z_s8(w + i, pr));
                }
            }
        }
        out[o] = em_nn_conv_output((uint32_t)acc, p, quant->multiplier[o], quant->shift[o]);
    }
}
#endif /* EM_NN_VARIANT_CONV_MVE_TAPS */

#endif /* EM_NN_TIER_MVE */
