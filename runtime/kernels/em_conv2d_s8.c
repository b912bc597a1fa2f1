/**
 * @file em_conv2d_s8.c
 * @brief int8 grouped 2-D convolution (NHWC), per-channel requantization. Scalar, DSP and
 *        Helium (MVE) paths behind em_nn_tier.h.
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
 *
 * MVE: pixels in blocks of up to 4 columns. A window inside the input packs as KH runs of KW·Cg
 * bytes in one assembly loop (em_nn_copy_rows_mve); a border pixel's row as one fill, copy and
 * fill. Channels in chunks of up to 60 (multiples of 12): an assembly leaf runs two columns by
 * three weight rows per 16-byte step (two column loads and three weight loads feed six
 * VMLADAVA; tail-predicated DLSTP / WLSTP / LETP, the first step unpredicated when K >= 16),
 * from triple to triple without leaving registers (em_nn_dot2x3_rows_mve); 4..8 channels left
 * take four rows per column load (em_nn_dot4_cols_mve), 1..3 one by one. Per vector of four
 * channels the requantization constants are loaded once for the block, the sums requantized as
 * one vector.
 * DSP: pixels in pairs (K >= 32, scratch for two columns and their word-interleaved copy): each
 * weight word's two SXTB16 serve both pixels, two rows per pass (em_nn_dot2x2_s8_dsp); when both
 * columns are read in place (1x1 ...) and K / 4 is a multiple of 4 they are sign-extended once
 * into the scratch for all the row pairs (em_nn_dot2x2x_s8_dsp: 16 instructions per 16 MACs,
 * 19 otherwise); a single pixel runs four rows per column word (em_nn_dot4_s8_dsp, via
 * em_nn_dot_rows_s8).
 * Scalar: six, then four, rows per column byte (em_nn_dot_rows_s8: LDRSB + MLA per row).
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "em_nn_dot_s8.h"
#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

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

/** Most output channels per chunk of the two-column path (a multiple of 12: row triples of
 *  em_nn_dot2x3_rows_mve, requantized as vectors of four); its sums live on the stack
 *  (EM_NN_CONV_BLOCK x 60 int32: 960 bytes). 60 takes a 64-channel layer in one leaf call per
 *  column pair (measured on corstone300: DS-CNN 1,252,920 instructions with 24, 1,237,975 with
 *  36, 1,223,665 with 60; the bench's whole-firmware stack peak stays 2,360 bytes). */
#define EM_NN_CONV_CHUNK 60
#define EM_NN_STR_(x) #x
#define EM_NN_STR(x) EM_NN_STR_(x)

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

/** dst[0..n) = v, n >= 1: the same tail-predicated loop, two instructions per 16 bytes. */
static inline void em_nn_fill_s8_mve(int8_t *dst, int8x16_t v, int32_t n)
{
#if defined(__GNUC__)
    __asm__ volatile("dlstp.8 lr, %[n]\n"
                     "1:\n\t"
                     "vstrb.8 %q[v], [%[d]], #16\n\t"
                     "letp    lr, 1b"
                     : [d] "+r"(dst)
                     : [n] "r"(n), [v] "w"(v)
                     : "lr", "memory");
#else
    for (int32_t i = 0; i < n; i += 16) {
        vstrbq_p_s8(dst + i, v, vctp8q((uint32_t)(n - i)));
    }
#endif
}

/** dst = @p rows runs of @p n >= 1 bytes, run r from src + r·@p step (a window inside the
 *  input, one group, adjacent taps: each kernel row is one run of the input row). One
 *  tail-predicated copy loop per run and five instructions around it, in assembly: GCC 12
 *  spills the loop's pointers around the DLSTP loops (measured: ~50 instructions per row). */
static inline void em_nn_copy_rows_mve(int8_t *dst, const int8_t *src, int32_t n, int32_t step,
                                       int32_t rows)
{
#if defined(__GNUC__)
    const int8_t *s;
    int8_t *t;
    __asm__ volatile("1:\n\t"
                     "mov     %[s], %[src]\n\t"
                     "mov     %[t], %[dst]\n\t"
                     "dlstp.8 lr, %[n]\n"
                     "2:\n\t"
                     "vldrb.8 q0, [%[s]], #16\n\t"
                     "vstrb.8 q0, [%[t]], #16\n\t"
                     "letp    lr, 2b\n\t"
                     "add     %[src], %[src], %[step]\n\t"
                     "add     %[dst], %[dst], %[n]\n\t"
                     "subs    %[rows], %[rows], #1\n\t"
                     "bne     1b"
                     : [src] "+r"(src), [dst] "+r"(dst), [rows] "+r"(rows), [s] "=&r"(s),
                       [t] "=&r"(t)
                     : [n] "r"(n), [step] "r"(step)
                     : "q0", "lr", "cc", "memory");
#else
    for (; rows > 0; rows--, src += step, dst += n) {
        em_nn_copy_s8_mve(dst, src, n);
    }
#endif
}

/**
 * Packs the column of one pixel (window origin iy0, ix0) and group (input channels from
 * @p x_group, a pointer to channel g·Cg of image n) into @p col, zero point in padded cells.
 * The taps of a kernel row that lie inside the input, [kx_lo, kx_hi), are found once; with one
 * group and adjacent taps (dilation_w 1 or KW 1) they are one contiguous run of the input row,
 * so each row is at most a fill, one copy and a fill (a window inside the input: one copy per
 * row), whatever the channel count.
 */
EM_NN_NOINLINE static void em_nn_conv_pack_mve(const em_conv_params *p, const em_conv_dims *d,
                                const int8_t *x_group, int32_t iy0, int32_t ix0, int8_t *col)
{
    const int32_t c = d->input_c, cg = c / p->groups;
    const int32_t kh = d->kernel_h, kw = d->kernel_w, h = d->input_h, w_in = d->input_w;
    const int32_t dh = p->dilation_h, dw = p->dilation_w;
    const int32_t row_bytes = kw * cg;
    const int32_t row_stride = w_in * c;
    const int8x16_t zp = vdupq_n_s8((int8_t)p->input_zero_point);
    const bool contiguous = p->groups == 1 && (dw == 1 || kw == 1);
    int32_t kx_lo = ix0 >= 0 ? 0 : (-ix0 + dw - 1) / dw; /* taps [kx_lo, kx_hi) inside the row */
    int32_t kx_hi = ix0 < w_in ? (w_in - 1 - ix0) / dw + 1 : 0;
    kx_lo = kx_lo < kw ? kx_lo : kw;
    kx_hi = kx_hi < kw ? kx_hi : kw;
    kx_hi = kx_hi > kx_lo ? kx_hi : kx_lo;
    const int32_t lo_bytes = kx_lo * cg, mid_bytes = (kx_hi - kx_lo) * cg;
    const int32_t hi_bytes = row_bytes - lo_bytes - mid_bytes;
    const int8_t *x_row = x_group + (int32_t)iy0 * row_stride + (ix0 + kx_lo * dw) * c;
    const int32_t x_step = dh * row_stride;
    for (int32_t ky = 0, iy = iy0; ky < kh; ky++, iy += dh, col += row_bytes, x_row += x_step) {
        if (iy < 0 || iy >= h) {
            em_nn_fill_s8_mve(col, zp, row_bytes);
            continue;
        }
        if (contiguous) {
            if (lo_bytes > 0) {
                em_nn_fill_s8_mve(col, zp, lo_bytes);
            }
            if (mid_bytes > 0) {
                em_nn_copy_s8_mve(col + lo_bytes, x_row, mid_bytes);
            }
            if (hi_bytes > 0) {
                em_nn_fill_s8_mve(col + lo_bytes + mid_bytes, zp, hi_bytes);
            }
            continue;
        }
        for (int32_t kx = 0; kx < kw; kx++) {
            const int32_t ix = ix0 + kx * dw;
            if (ix < 0 || ix >= w_in) {
                em_nn_fill_s8_mve(col + kx * cg, zp, cg);
            } else {
                em_nn_copy_s8_mve(col + kx * cg, x_group + (int32_t)iy * row_stride + ix * c, cg);
            }
        }
    }
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

/** One pixel's column and its four sums (em_nn_dot4_cols_mve); a NULL column ends a list. */
typedef struct {
    const int8_t *col;
    int32_t sum[4];
} em_nn_conv_col;

/**
 * For each column of the NULL-terminated list @p c (K = k >= 1 int8 each): c->sum[r] =
 * Σ_{i<k} col[i]·w[r·k + i] for the four weight rows r = 0..3: one 16-byte column load feeds
 * four VMLADAVA, in a tail-predicated loop (DLSTP / LETP: the last step's loads and sums cover
 * only the k % 16 bytes left, so nothing past a column or a row is read). In assembly, the
 * loop over the columns too: GCC 12 neither emits DLSTP here nor keeps the rows' pointers in
 * registers (11 instructions per step and ~20 per column of pointer set-up; by hand 10 and 8).
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

#if !defined(__GNUC__)
/** sums[r] = Σ_{i<k} a[i]·w[r·k + i] and sums[r + EM_NN_CONV_CHUNK] = Σ_{i<k} b[i]·w[r·k + i]
 *  for the three weight rows r = 0..2 and two columns @p a and @p b (k >= 1 int8 each), one
 *  triple of em_nn_dot2x3_rows_mve(), tail-predicated by VCTP. */
static inline void em_nn_dot2x3_mve(const int8_t *a, const int8_t *b, const int8_t *w, int32_t k,
                                    int32_t *sums)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, b0 = 0, b1 = 0, b2 = 0;
    for (int32_t i = 0; i < k; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t av = vldrbq_z_s8(a + i, pr), bv = vldrbq_z_s8(b + i, pr);
        int8x16_t wv = vldrbq_z_s8(w + i, pr);
        a0 = vmladavaq_s8(a0, av, wv), b0 = vmladavaq_s8(b0, bv, wv);
        wv = vldrbq_z_s8(w + k + i, pr);
        a1 = vmladavaq_s8(a1, av, wv), b1 = vmladavaq_s8(b1, bv, wv);
        wv = vldrbq_z_s8(w + 2 * k + i, pr);
        a2 = vmladavaq_s8(a2, av, wv), b2 = vmladavaq_s8(b2, bv, wv);
    }
    sums[0] = a0, sums[1] = a1, sums[2] = a2;
    sums[EM_NN_CONV_CHUNK] = b0, sums[EM_NN_CONV_CHUNK + 1] = b1, sums[EM_NN_CONV_CHUNK + 2] = b2;
}
#endif

/* One 16-byte step of em_nn_dot2x3_rows_mve: columns at r5, r1; rows at r7, r9, r11; sums of
 * column a in r0, r2, r4 and of column b in r6, r8, r10. */
#define EM_NN_DOT2X3_STEP                 \
    "vldrb.8     q0, [r5], #16\n\t"       \
    "vldrb.8     q1, [r1], #16\n\t"       \
    "vldrb.8     q2, [r7], #16\n\t"       \
    "vmladava.s8 r0, q0, q2\n\t"          \
    "vmladava.s8 r6, q1, q2\n\t"          \
    "vldrb.8     q2, [r9], #16\n\t"       \
    "vmladava.s8 r2, q0, q2\n\t"          \
    "vmladava.s8 r8, q1, q2\n\t"          \
    "vldrb.8     q2, [r11], #16\n\t"      \
    "vmladava.s8 r4, q0, q2\n\t"          \
    "vmladava.s8 r10, q1, q2\n\t"
/* After a triple: store its sums, rewind the columns, step to the next triple (label @p top)
 * or return. */
#define EM_NN_DOT2X3_END(top)                                                      \
    "stmia   r12!, {r0, r2, r4}\n\t"                                               \
    "add     lr, r12, #(4 * " EM_NN_STR(EM_NN_CONV_CHUNK) " - 12)\n\t"            \
    "stm     lr, {r6, r8, r10}\n\t"                                                \
    "add     r9, r3, #15\n\t" /* the bytes the loop advanced */                   \
    "bic     r9, r9, #15\n\t"                                                      \
    "sub     r5, r5, r9\n\t"                                                       \
    "sub     r1, r1, r9\n\t"                                                       \
    "sub     r7, r11, r9\n\t"                                                      \
    "add     r7, r7, r3\n\t" /* row 3: the next triple */                         \
    "ldr     lr, [sp, #40]\n\t"                                                    \
    "cmp     r12, lr\n\t"                                                          \
    "bne     " top "\n\t"                                                          \
    "pop     {r4-r11, pc}\n"

#if defined(__GNUC__)
/**
 * em_nn_dot2x3_mve() for @p triples >= 1 consecutive groups of three weight rows (w, then
 * w + 3k, ...): triple t's sums of column a at sums[3t..3t+2] and of column b at
 * sums[EM_NN_CONV_CHUNK + 3t..], for two columns a and b of k >= 1 int8 (K = k). Per 16
 * inputs two column loads and three weight loads feed six VMLADAVA (12 instructions per 96 MACs;
 * em_nn_dot4_cols_mve: 10 per 64), tail-predicated (DLSTP / WLSTP / LETP: nothing past a
 * column or a row is read); with k >= 16 the first step is unpredicated and sets the sums
 * (VMLADAV), so they need no zeroing. A leaf in assembly: six even accumulators and five
 * pointers fill the register file, and C around an inline loop reloads its state from the stack
 * (measured ~30 instructions per triple; here 15 and the 12-instruction steps). AAPCS: r0 = a,
 * r1 = b, r2 = w, r3 = k, stack: sums, triples (its slot then holds the sums' end); q0-q2 only,
 * r4-r11 saved.
 */
#define EM_NN_ARG __attribute__((unused)) /* read by the assembly through r0-r3 and the stack */
__attribute__((naked, noinline)) static void em_nn_dot2x3_rows_mve(EM_NN_ARG const int8_t *a,
                                                                   EM_NN_ARG const int8_t *b,
                                                                   EM_NN_ARG const int8_t *w,
                                                                   EM_NN_ARG int32_t k,
                                                                   EM_NN_ARG int32_t *sums,
                                                                   EM_NN_ARG int32_t triples)
{
    __asm__ volatile("push    {r4-r11, lr}\n\t"
                     "ldr     r12, [sp, #36]\n\t"       /* sums */
                     "ldr     r4, [sp, #40]\n\t"        /* triples */
                     "add     r4, r4, r4, lsl #1\n\t"
                     "add     r4, r12, r4, lsl #2\n\t"  /* end of column a's sums */
                     "str     r4, [sp, #40]\n\t"
                     "mov     r5, r0\n\t"               /* column a */
                     "mov     r7, r2\n\t"               /* row 0 of the triple */
                     "cmp     r3, #16\n\t"
                     "blt     4f\n"
                     /* k >= 16: the first step sets the sums (VMLADAV), then WLSTP runs the
                      * k − 16 left (none: no step) */
                     "1:\n\t"
                     "add     r9, r7, r3\n\t"           /* row 1 */
                     "add     r11, r9, r3\n\t"          /* row 2 */
                     "vldrb.8     q0, [r5], #16\n\t"
                     "vldrb.8     q1, [r1], #16\n\t"
                     "vldrb.8     q2, [r7], #16\n\t"
                     "vmladav.s8  r0, q0, q2\n\t"
                     "vmladav.s8  r6, q1, q2\n\t"
                     "vldrb.8     q2, [r9], #16\n\t"
                     "vmladav.s8  r2, q0, q2\n\t"
                     "vmladav.s8  r8, q1, q2\n\t"
                     "vldrb.8     q2, [r11], #16\n\t"
                     "vmladav.s8  r4, q0, q2\n\t"
                     "vmladav.s8  r10, q1, q2\n\t"
                     "sub     lr, r3, #16\n\t"
                     "wlstp.8 lr, lr, 3f\n"
                     "2:\n\t"
                     EM_NN_DOT2X3_STEP
                     "letp        lr, 2b\n"
                     "3:\n\t"
                     EM_NN_DOT2X3_END("1b")
                     /* k < 16: one predicated step from zeroed sums */
                     "4:\n\t"
                     "add     r9, r7, r3\n\t"
                     "add     r11, r9, r3\n\t"
                     "movs    r0, #0\n\t"
                     "movs    r2, #0\n\t"
                     "movs    r4, #0\n\t"
                     "movs    r6, #0\n\t"
                     "mov     r8, #0\n\t"
                     "mov     r10, #0\n\t"
                     "dlstp.8 lr, r3\n"
                     "5:\n\t"
                     EM_NN_DOT2X3_STEP
                     "letp        lr, 5b\n\t"
                     EM_NN_DOT2X3_END("4b"));
}
#else
static void em_nn_dot2x3_rows_mve(const int8_t *a, const int8_t *b, const int8_t *w, int32_t k,
                                  int32_t *sums, int32_t triples)
{
    for (int32_t t = 0; t < triples; t++) {
        em_nn_dot2x3_mve(a, b, w + 3 * t * k, k, sums + 3 * t);
    }
}
#endif

/** Requantization constants of one convolution, copied out of the parameters (int8 stores may
 *  alias them, so GCC would re-read them after every store). */
typedef struct {
    const int32_t *multiplier, *shift, *bias; /**< [C_OUT]; bias may be NULL */
    int32_t offset, lo, hi;                    /**< output zero point and clamp */
} em_nn_conv_requant;

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
            const int32_t dot = em_nn_conv_dot_mve(cols[j].col, weights + (int32_t)o * k, k);
            out[j * out_stride + o] = em_nn_requantize_s8((int32_t)((uint32_t)dot + b), multiplier[o],
                                                          shift[o], q->offset, q->lo, q->hi);
        }
    }
}

/** One pixel and group without scratch (only then: the caller gave too little), so kept
 *  small: per output channel, tap by tap, each tap's Cg inputs read in place in tail-predicated
 *  16-byte steps (a padded tap: zero-point vectors; zeroed weight lanes end a tail). */
EM_NN_NOINLINE static void em_nn_conv_taps_mve(const em_conv_params *p, const em_per_channel_quant *quant,
                                const em_conv_dims *d, const int8_t *x_group, int32_t iy0,
                                int32_t ix0, int32_t o_begin, int32_t o_end, const int8_t *weights,
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
    /* A window inside the input (origin iy0 in [0, iy_max], ix0 in [0, ix_max]) with one group
     * and adjacent taps packs as KH runs of KW·C bytes (em_nn_copy_rows_mve). */
    const bool rows_fast = p->groups == 1 && (p->dilation_w == 1 || d->kernel_w == 1);
    const int32_t iy_max = d->input_h - 1 - (d->kernel_h - 1) * p->dilation_h;
    const int32_t ix_max = d->input_w - 1 - (d->kernel_w - 1) * p->dilation_w;
    const int32_t row_bytes = d->kernel_w * d->input_c;
    const int32_t row_step = p->dilation_h * d->input_w * d->input_c;
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
                    } else if (EM_NN_VARIANT_CONV_MVE_PACK && packed < packable) {
                        int8_t *col = (int8_t *)ctx->buf + packed++ * col_bytes;
                        if (rows_fast && iy0 >= 0 && iy0 <= iy_max && ix0 >= 0 && ix0 <= ix_max) {
                            em_nn_copy_rows_mve(col, x_image + (iy0 * d->input_w + ix0) * d->input_c,
                                                row_bytes, row_step, d->kernel_h);
                        } else {
                            em_nn_conv_pack_mve(p, d, x_image + g * cg, iy0, ix0, col);
                        }
                        cols[n_cols++].col = col;
                    } else if (EM_NN_VARIANT_CONV_MVE_TAPS) { /* no scratch: this pixel's taps in place */
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

/** Whether this build holds the paths em_nn_conv2d_mve() takes (em_nn_variants.h): none when
 *  every pixel's column is in place (em_nn_conv_in_place() of the first and the last pixel, as
 *  the window's corner only grows with the pixel), else packing when a column fits the scratch,
 *  else taps. */
static bool em_nn_conv_mve_linked(const em_nn_context *ctx, const em_conv_params *p, const em_conv_dims *d)
{
    if (em_nn_conv_in_place(p, d, -p->pad_top, -p->pad_left)
        && em_nn_conv_in_place(p, d, (d->output_h - 1) * p->stride_h - p->pad_top,
                               (d->output_w - 1) * p->stride_w - p->pad_left)) {
        return true;
    }
    const bool packs = ctx != NULL && ctx->buf != NULL && ctx->size >= em_nn_conv_col_bytes(p, d);
    return packs ? EM_NN_VARIANT_CONV_MVE_PACK : EM_NN_VARIANT_CONV_MVE_TAPS;
}

#else /* DSP and scalar: the same columns, each tier its own dot products */

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
#if EM_NN_TIER_DSP
/** dst = the columns @p a and @p b (k int8 each) word by word: a's word i at dst[2i], b's at
 *  dst[2i + 1], i < k / 4 (the tail of k % 4 bytes is not copied). */
static void em_nn_conv_interleave_dsp(uint32_t *dst, const int8_t *a, const int8_t *b, int32_t k)
{
    for (int32_t i = 0; i + 4 <= k; i += 4, dst += 2) {
        dst[0] = em_nn_read_s8x4(a + i);
        dst[1] = em_nn_read_s8x4(b + i);
    }
}

/**
 * sums[2c + r] = Σ_{i<4n} col_c[i]·w_r[i] for two columns c (word-interleaved at @p x, see
 * em_nn_conv_interleave_dsp) and two weight rows r (w_1 = w_0 + stride): each weight word's two
 * SXTB16 serve both columns. Per four inputs: one LDRD, four SXTB16 of the columns, per row one
 * LDR, two SXTB16 and four SMLAD: 19 instructions per 16 MACs and the loop's SUBS + BNE per
 * 16 inputs (em_nn_dot4_s8_dsp: 23).
 */
static inline void em_nn_dot2x2_s8_dsp(const uint32_t *x, const int8_t *w, int32_t stride, int32_t n,
                                       int32_t sums[4])
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
#if defined(__GNUC__) && !defined(__NO_INLINE__) /* -O0 (__NO_INLINE__): too few registers, C */
    /* Four steps per SUBS + BNE while 16 inputs are left, then one per SUBS + BNE. */
#define EM_NN_DOT2X2_DSP_STEP \
    "ldrd   %[t], %[u], [%[x]], #8\n\t" \
    "sxtb16 %[x0a], %[t]\n\t" \
    "sxtb16 %[x0b], %[t], ror #8\n\t" \
    "sxtb16 %[x1a], %[u]\n\t" \
    "sxtb16 %[x1b], %[u], ror #8\n\t" \
    "ldr    %[t], [%[w], %[s]]\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a01], %[x0a], %[u], %[a01]\n\t" \
    "smlad  %[a11], %[x1a], %[u], %[a11]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a01], %[x0b], %[t], %[a01]\n\t" \
    "smlad  %[a11], %[x1b], %[t], %[a11]\n\t" \
    "ldr    %[t], [%[w]], #4\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a00], %[x0a], %[u], %[a00]\n\t" \
    "smlad  %[a10], %[x1a], %[u], %[a10]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a00], %[x0b], %[t], %[a00]\n\t" \
    "smlad  %[a10], %[x1b], %[t], %[a10]\n\t"
    int32_t quads = n >> 2;
    n &= 3;
    if (quads > 0) {
        int32_t x0a, x0b, x1a, x1b, t, u;
        __asm__("1:\n\t" EM_NN_DOT2X2_DSP_STEP EM_NN_DOT2X2_DSP_STEP EM_NN_DOT2X2_DSP_STEP
                EM_NN_DOT2X2_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(quads), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b), [x1a] "=&r"(x1a),
                  [x1b] "=&r"(x1b), [t] "=&r"(t), [u] "=&r"(u)
                : [s] "r"(stride)
                : "cc", "memory");
    }
    if (n > 0) {
        int32_t x0a, x0b, x1a, x1b, t, u;
        __asm__("1:\n\t" EM_NN_DOT2X2_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(n), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b), [x1a] "=&r"(x1a),
                  [x1b] "=&r"(x1b), [t] "=&r"(t), [u] "=&r"(u)
                : [s] "r"(stride)
                : "cc", "memory");
    }
#undef EM_NN_DOT2X2_DSP_STEP
#else
    for (; n > 0; n--, x += 2, w += 4) {
        const int32_t x0a = em_nn_sxtb16_02(x[0]), x0b = em_nn_sxtb16_13(x[0]);
        const int32_t x1a = em_nn_sxtb16_02(x[1]), x1b = em_nn_sxtb16_13(x[1]);
        uint32_t wv = em_nn_read_s8x4(w);
        a00 = __smlad(x0b, em_nn_sxtb16_13(wv), __smlad(x0a, em_nn_sxtb16_02(wv), a00));
        a10 = __smlad(x1b, em_nn_sxtb16_13(wv), __smlad(x1a, em_nn_sxtb16_02(wv), a10));
        wv = em_nn_read_s8x4(w + stride);
        a01 = __smlad(x0b, em_nn_sxtb16_13(wv), __smlad(x0a, em_nn_sxtb16_02(wv), a01));
        a11 = __smlad(x1b, em_nn_sxtb16_13(wv), __smlad(x1a, em_nn_sxtb16_02(wv), a11));
    }
#endif
    sums[0] = a00, sums[1] = a01, sums[2] = a10, sums[3] = a11;
}

/** dst = the columns @p a and @p b (k int8 each) sign-extended once for every row pair: per
 *  four inputs i..i+3 the words SXTB16(a), SXTB16(a, ROR 8), SXTB16(b), SXTB16(b, ROR 8)
 *  ((a_i, a_i+2), (a_i+1, a_i+3) as int16 pairs, then b's); the tail of k % 4 bytes is not
 *  copied. 4·(k & ~3) bytes. */
static void em_nn_conv_extend_dsp(uint32_t *dst, const int8_t *a, const int8_t *b, int32_t k)
{
    for (int32_t i = 0; i + 4 <= k; i += 4, dst += 4) {
        const uint32_t wa = em_nn_read_s8x4(a + i), wb = em_nn_read_s8x4(b + i);
        dst[0] = (uint32_t)em_nn_sxtb16_02(wa), dst[1] = (uint32_t)em_nn_sxtb16_13(wa);
        dst[2] = (uint32_t)em_nn_sxtb16_02(wb), dst[3] = (uint32_t)em_nn_sxtb16_13(wb);
    }
}

/**
 * em_nn_dot2x2_s8_dsp() with the columns already sign-extended (em_nn_conv_extend_dsp at
 * @p x): per four inputs two LDRD of the four column words, per row one LDR, two SXTB16 and
 * four SMLAD: 16 instructions per 16 MACs (19 when the columns are extended per row pair).
 * @p n (words per column) a multiple of 4: four steps per loop pass, no remainder loop.
 */
static inline void em_nn_dot2x2x_s8_dsp(const uint32_t *x, const int8_t *w, int32_t stride, int32_t n,
                                        int32_t sums[4])
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
#if defined(__GNUC__) && !defined(__NO_INLINE__) /* as em_nn_dot2x2_s8_dsp */
#define EM_NN_DOT2X2X_DSP_STEP \
    "ldrd   %[x0a], %[x0b], [%[x]], #8\n\t" \
    "ldrd   %[x1a], %[x1b], [%[x]], #8\n\t" \
    "ldr    %[t], [%[w], %[s]]\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a01], %[x0a], %[u], %[a01]\n\t" \
    "smlad  %[a11], %[x1a], %[u], %[a11]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a01], %[x0b], %[t], %[a01]\n\t" \
    "smlad  %[a11], %[x1b], %[t], %[a11]\n\t" \
    "ldr    %[t], [%[w]], #4\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a00], %[x0a], %[u], %[a00]\n\t" \
    "smlad  %[a10], %[x1a], %[u], %[a10]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a00], %[x0b], %[t], %[a00]\n\t" \
    "smlad  %[a10], %[x1b], %[t], %[a10]\n\t"
    int32_t quads = n >> 2; /* n % 4 == 0: the caller's condition */
    if (quads > 0) {
        int32_t t, u, x0a, x0b, x1a, x1b;
        __asm__("1:\n\t" EM_NN_DOT2X2X_DSP_STEP EM_NN_DOT2X2X_DSP_STEP EM_NN_DOT2X2X_DSP_STEP
                EM_NN_DOT2X2X_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(quads), [t] "=&r"(t), [u] "=&r"(u), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b),
                  [x1a] "=&r"(x1a), [x1b] "=&r"(x1b)
                : [s] "r"(stride)
                : "cc", "memory");
    }
#undef EM_NN_DOT2X2X_DSP_STEP
#else
    for (; n > 0; n--, x += 4, w += 4) {
        uint32_t wv = em_nn_read_s8x4(w);
        a00 = __smlad((int32_t)x[1], em_nn_sxtb16_13(wv), __smlad((int32_t)x[0], em_nn_sxtb16_02(wv), a00));
        a10 = __smlad((int32_t)x[3], em_nn_sxtb16_13(wv), __smlad((int32_t)x[2], em_nn_sxtb16_02(wv), a10));
        wv = em_nn_read_s8x4(w + stride);
        a01 = __smlad((int32_t)x[1], em_nn_sxtb16_13(wv), __smlad((int32_t)x[0], em_nn_sxtb16_02(wv), a01));
        a11 = __smlad((int32_t)x[3], em_nn_sxtb16_13(wv), __smlad((int32_t)x[2], em_nn_sxtb16_02(wv), a11));
    }
#endif
    sums[0] = a00, sums[1] = a01, sums[2] = a10, sums[3] = a11;
}

/**
 * Output channels [o_begin, o_end) of two pixels whose columns (k int8) are @p a and @p b,
 * word-interleaved at @p x; outputs at out_a and out_b. Two weight rows per pass
 * (em_nn_dot2x2_s8_dsp), the k % 4 tail and a last odd row in C.
 */
EM_NN_NOINLINE static void em_nn_conv_pair_dsp(const uint32_t *x, const int8_t *a, const int8_t *b,
                                               int32_t k, int32_t o_begin, int32_t o_end,
                                               const int8_t *weights, const int32_t *bias,
                                               const em_per_channel_quant *quant,
                                               const em_conv_params *p, int8_t *out_a, int8_t *out_b,
                                               bool extended)
{
    const int32_t offset = p->output_offset, lo = p->activation_min, hi = p->activation_max;
    const int32_t *multiplier = quant->multiplier, *shift = quant->shift;
    const int32_t k4 = k & ~3;
    int32_t o = o_begin;
    for (; o + 2 <= o_end; o += 2) {
        const int8_t *w0 = weights + (int32_t)o * k, *w1 = w0 + k;
        int32_t sums[4];
        if (extended) {
            em_nn_dot2x2x_s8_dsp(x, w0, k, k >> 2, sums);
        } else {
            em_nn_dot2x2_s8_dsp(x, w0, k, k >> 2, sums);
        }
        uint32_t s00 = (uint32_t)sums[0], s01 = (uint32_t)sums[1];
        uint32_t s10 = (uint32_t)sums[2], s11 = (uint32_t)sums[3];
        for (int32_t i = k4; i < k; i++) { /* 0..3 left, wrapping like the reference */
            s00 += (uint32_t)(a[i] * w0[i]), s01 += (uint32_t)(a[i] * w1[i]);
            s10 += (uint32_t)(b[i] * w0[i]), s11 += (uint32_t)(b[i] * w1[i]);
        }
        if (bias != NULL) {
            s00 += (uint32_t)bias[o], s10 += (uint32_t)bias[o];
            s01 += (uint32_t)bias[o + 1], s11 += (uint32_t)bias[o + 1];
        }
        out_a[o] = em_nn_requantize_s8((int32_t)s00, multiplier[o], shift[o], offset, lo, hi);
        out_b[o] = em_nn_requantize_s8((int32_t)s10, multiplier[o], shift[o], offset, lo, hi);
        out_a[o + 1] = em_nn_requantize_s8((int32_t)s01, multiplier[o + 1], shift[o + 1], offset, lo, hi);
        out_b[o + 1] = em_nn_requantize_s8((int32_t)s11, multiplier[o + 1], shift[o + 1], offset, lo, hi);
    }
    if (o < o_end) { /* a last odd row */
        const int32_t bo = bias != NULL ? bias[o] : 0;
        const int8_t *w0 = weights + (int32_t)o * k;
        out_a[o] = em_nn_requantize_s8(em_nn_dot_s8_dsp(a, w0, k, bo), multiplier[o], shift[o], offset, lo, hi);
        out_b[o] = em_nn_requantize_s8(em_nn_dot_s8_dsp(b, w0, k, bo), multiplier[o], shift[o], offset, lo, hi);
    }
}
#endif

/** Whether @p ctx's scratch lies clear of the input. Patches are memcpy'd from the input, so a
 *  scratch over it (only a malformed program places one there) is left unused, as if absent:
 *  the same bytes, read tap by tap. Out of line and inside the scratch test it costs least
 *  (measured: MobileNet on the M3 +13k instructions, 0.05 %; inlined, or deciding the caller's
 *  ctx, 15k..63k). */
EM_NN_NOINLINE static bool em_nn_scratch_apart(const em_nn_context *ctx, const em_conv_dims *d, const int8_t *input)
{
    return em_nn_bytes_apart(ctx->buf, (uintptr_t)ctx->size, input,
                             (uintptr_t)d->batches * d->input_h * d->input_w * d->input_c);
}

/** The column of pixel @p px for group @p g: in place, packed into @p col_buf (NULL: none). */
static inline const int8_t *em_nn_conv_column(const em_conv_params *p, const em_conv_dims *d,
                                              const int8_t *x_image, int32_t g, int32_t px,
                                              int8_t *col_buf)
{
    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
    const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
    if (em_nn_conv_in_place(p, d, iy0, ix0)) {
        return x_image + ((int32_t)iy0 * d->input_w + ix0) * d->input_c;
    }
    if (col_buf == NULL) {
        return NULL;
    }
    em_nn_conv_pack_dsp(p, d, x_image + g * (d->input_c / p->groups), iy0, ix0, col_buf);
    return col_buf;
}

/* One driver for DSP and scalar: per pixel and group, the column in place (1x1 ...), packed
 * into the scratch, or (no scratch) tap by tap. DSP: pixels in pairs when the scratch holds
 * two columns and their word-interleaved copy (em_nn_conv_pair_dsp). */
static void em_nn_conv2d_cols(const em_nn_context *ctx, const em_conv_params *p,
                              const em_per_channel_quant *quant, const em_conv_dims *d,
                              const int8_t *input, const int8_t *weights, const int32_t *bias,
                              int8_t *output)
{
    const int32_t col_bytes = em_nn_conv_col_bytes(p, d);
    int8_t *scratch = NULL;
    if (ctx != NULL && ctx->buf != NULL && ctx->size >= col_bytes && em_nn_scratch_apart(ctx, d, input)) {
        scratch = (int8_t *)ctx->buf;
    }
    const int32_t cg = d->input_c / p->groups;
    const int32_t k = d->kernel_h * d->kernel_w * cg;
#if EM_NN_TIER_DSP
    /* Pairs pay from K = 32 on (measured: K 8 and 27 lose the interleaving's cost). */
    const bool pairs = scratch != NULL && ctx->size >= 4 * col_bytes && k >= 32; /* a, b, a|b (2) */
#endif
    const int32_t og = d->output_c / p->groups;
    const int32_t pixels = d->output_h * d->output_w;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *x_image = input + (int32_t)n * d->input_h * d->input_w * d->input_c;
        int8_t *out_image = output + (int32_t)n * pixels * d->output_c;
        for (int32_t px = 0; px < pixels; px++) {
            int8_t *out = out_image + px * d->output_c;
#if EM_NN_TIER_DSP
            if (pairs && px + 1 < pixels) {
                for (int32_t g = 0; g < p->groups; g++) {
                    const int8_t *a = em_nn_conv_column(p, d, x_image, g, px, scratch);
                    const int8_t *b = em_nn_conv_column(p, d, x_image, g, px + 1, scratch + col_bytes);
                    /* Both columns in place (1x1 ...) and k / 4 a multiple of 4: the whole
                     * scratch (4·col_bytes >= 4·(k & ~3)) takes them sign-extended once for
                     * all the row pairs (em_nn_dot2x2x_s8_dsp). */
                    const bool extended = a != scratch && b != scratch + col_bytes && (k & 12) == 0;
                    uint32_t *x = (uint32_t *)(void *)(extended ? scratch : scratch + 2 * col_bytes);
                    if (extended) {
                        em_nn_conv_extend_dsp(x, a, b, k);
                    } else {
                        em_nn_conv_interleave_dsp(x, a, b, k);
                    }
                    em_nn_conv_pair_dsp(x, a, b, k, g * og, (g + 1) * og, weights, bias, quant, p, out,
                                        out + d->output_c, extended);
                }
                px++;
                continue;
            }
#endif
            for (int32_t g = 0; g < p->groups; g++) {
                const int8_t *col = em_nn_conv_column(p, d, x_image, g, px, scratch);
                if (col != NULL) {
                    em_nn_dot_rows_s8(col, weights, k, g * og, (g + 1) * og, bias, quant->multiplier,
                                      quant->shift, p->output_offset, p->activation_min,
                                      p->activation_max, out);
                } else {
                    const int32_t oy = px / d->output_w, ox = px - oy * d->output_w;
                    EM_NN_CONV_TAPS(p, quant, d, x_image + g * cg, oy * p->stride_h - p->pad_top,
                                    ox * p->stride_w - p->pad_left, g * og, (g + 1) * og, weights,
                                    bias, out);
                }
            }
        }
    }
}

#endif

/* em_conv2d_s8_get_buffer_size() and em_nn_conv_col_bytes(): em_nn_buffer_sizes.c */

em_nn_status em_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                          const em_per_channel_quant *quant, const em_conv_dims *dims,
                          const int8_t *input, const int8_t *weights, const int32_t *bias,
                          int8_t *output)
{
    if (input == NULL || weights == NULL || output == NULL
        || em_conv_s8_validate(params, quant, dims, false) != EM_NN_OK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    /* Locals, not the caller's structs: no int8 store can alias them, so the pixel loops keep
     * them in registers (measured on corstone300: ResNet-8 3,208,872 -> 3,194,007 instructions,
     * DS-CNN 1,217,547 -> 1,213,967). */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
#if EM_NN_TIER_MVE
    if (!(EM_NN_VARIANT_CONV_MVE_PACK && EM_NN_VARIANT_CONV_MVE_TAPS) && !em_nn_conv_mve_linked(ctx, &p, &d)) {
        return EM_NN_ERR_VARIANT_NOT_LINKED; /* the compiler's kernel_variants.py chose otherwise */
    }
    em_nn_conv2d_mve(ctx, &p, quant, &d, input, weights, bias, output);
#else
    em_nn_conv2d_cols(ctx, &p, quant, &d, input, weights, bias, output);
#endif
    return EM_NN_OK;
}
