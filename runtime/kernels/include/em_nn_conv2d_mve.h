/**
 * @file em_nn_conv2d_mve.h
 * @brief Internal: what the Helium (MVE) files of em_conv2d_s8() share (em_nn_conv2d.h lists
 *        them): the block and chunk sizes, a block's columns, the byte copies that pack a
 *        column (tail-predicated loops in assembly), and the functions one file calls in another.
 *
 * Pixels go in blocks of up to EM_NN_CONV_BLOCK columns. A window inside the input packs as KH
 * runs of KW·Cg bytes in one assembly loop (em_nn_copy_rows_mve); a border pixel's row as one
 * fill, copy and fill (em_nn_conv_pack_mve). Channels go in chunks of up to EM_NN_CONV_CHUNK
 * (multiples of 12): an assembly leaf runs two columns by three weight rows per 16-byte step
 * (em_nn_dot2x3_rows_mve); 4..8 channels left take four rows per column load
 * (em_nn_dot4_cols_mve), 1..3 one by one. Per vector of four channels the requantization
 * constants are loaded once for the block, the sums requantized as one vector
 * (em_nn_conv_block_mve).
 */
#ifndef EM_NN_CONV2D_MVE_H
#define EM_NN_CONV2D_MVE_H

#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>

#include "em_nn_conv2d.h"

/** Pixels per block: their columns share each channel group's requantization constants. */
#define EM_NN_CONV_BLOCK 4

/** Most output channels per chunk of the two-column path (a multiple of 12: row triples of
 *  em_nn_dot2x3_rows_mve, requantized as vectors of four); its sums live on the stack
 *  (EM_NN_CONV_BLOCK x 60 int32: 960 bytes). 60 takes a 64-channel layer in one leaf call per
 *  column pair (the sizes tried: runtime/kernels/README.md). */
#define EM_NN_CONV_CHUNK 60

/** One pixel's column and its four sums (em_nn_dot4_cols_mve); a NULL column ends a list. */
typedef struct {
    const int8_t *col;
    int32_t sum[4];
} em_nn_conv_col;

/** Requantization constants of one convolution, copied out of the parameters (int8 stores may
 *  alias them, so GCC would re-read them after every store). */
typedef struct {
    const int32_t *multiplier, *shift, *bias; /**< [C_OUT]; bias may be NULL */
    int32_t offset, lo, hi;                    /**< output zero point and clamp */
} em_nn_conv_requant;

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
 *  spills the loop's pointers around the DLSTP loops. */
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

/** Packs the column of one pixel (window origin iy0, ix0: may lie outside the input) and group
 *  (input channels from @p x_group, a pointer to channel g·Cg of image n) into @p col
 *  (em_nn_conv_col_bytes() bytes), input_zero_point in padded cells (em_conv2d_pack_mve.c). */
void em_nn_conv_pack_mve(const em_conv_params *p, const em_conv_dims *d, const int8_t *x_group, int32_t iy0,
                         int32_t ix0, int8_t *col);

/** Output channels [o_begin, o_end) of @p n_cols (1..EM_NN_CONV_BLOCK) pixels whose columns (K =
 *  @p k int8 each) are at cols[j].col; cols has room for n_cols + 1 entries. Pixel j's outputs at
 *  out + j·@p out_stride (em_conv2d_block_mve.c). */
void em_nn_conv_block_mve(const em_nn_conv_requant *q, em_nn_conv_col *cols, int32_t n_cols, int32_t k,
                          int32_t o_begin, int32_t o_end, const int8_t *weights, int8_t *out, int32_t out_stride);

/** Output channels [o_begin, o_end) of one pixel (window origin iy0, ix0) and group without
 *  scratch: tap by tap from the input (em_conv2d_block_mve.c). */
void em_nn_conv_taps_mve(const em_conv_params *p, const em_per_channel_quant *quant, const em_conv_dims *d,
                         const int8_t *x_group, int32_t iy0, int32_t ix0, int32_t o_begin, int32_t o_end,
                         const int8_t *weights, const int32_t *bias, int8_t *out);

/** For @p triples >= 1 groups of three weight rows (w, w + 3k, ...) and two columns @p a, @p b of
 *  k >= 1 int8: triple t's sums of column a at sums[3t..3t+2], of column b at
 *  sums[EM_NN_CONV_CHUNK + 3t..] (em_conv2d_dot2x3_mve.c, in assembly). */
void em_nn_dot2x3_rows_mve(const int8_t *a, const int8_t *b, const int8_t *w, int32_t k, int32_t *sums,
                           int32_t triples);

#endif /* EM_NN_TIER_MVE */

#endif /* EM_NN_CONV2D_MVE_H */
