/**
 * @file em_unpack_s4.c
 * @brief int4 weights unpacked to int8, exactly compiler/reference.py:unpack_s4 (the layout of
 *        compiler/int4.py): what an A8W4 layer's adapter runs at every invoke, into its scratch,
 *        before the layer's int8 kernel.
 *
 * A row of n elements takes ceil(n / 2) bytes, in blocks of 32 elements (16 bytes): byte j of a
 * block holds element j in its low nibble and element 16 + j in its high nibble; a last block of
 * t < 32 elements takes h = ceil(t / 2) bytes, byte j holding element j and element h + j.
 *
 * MVE: a 16-byte load is a block's two 16-lane vectors, low = (v << 4) >> 4 and high = v >> 4
 * (arithmetic shifts), stored as they are; the last block predicated (h lanes low, t − h high).
 * DSP and scalar: one word gives four low and four high elements (SWAR). A nibble x (0..15) is the
 * int4 value (x ^ 8) − 8: one EOR flips bit 3 of all eight nibbles, a mask isolates four (the
 * high ones shifted down first), and the − 8 is bytewise: USUB8 on DSP, on scalar + 0x78 then
 * ^ 0x80, which no byte carries out of. Unaligned words through memcpy (one LDR / STR where the
 * core allows it, bytes on the M0). A last block's bytes after the last word whose four high
 * elements all exist go one at a time.
 * Rows of whole blocks follow each other as blocks, so they unpack as one row (no per-row cost).
 * Instructions per weight, whole blocks: MVE 0.28, DSP 1.25, scalar 1.50 (kernels README).
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#elif EM_NN_TIER_DSP
#include <arm_acle.h>
#endif

#define EM_NN_S4_BLOCK 32 /* elements of a whole block: 16 bytes */

/* A block's four words unrolled (no loop of their own: 40 instructions for 32 weights on DSP,
 * not 52), except where size is asked for. */
#ifdef __OPTIMIZE_SIZE__
#define EM_NN_S4_UNROLL
#else
#define EM_NN_S4_UNROLL _Pragma("GCC unroll 4")
#endif

#if EM_NN_TIER_MVE

/** Row of @p n elements at @p in into @p out. */
static void em_nn_unpack_s4_row(const uint8_t *in, int32_t n, int8_t *out)
{
    int32_t i = 0;
    for (; i + EM_NN_S4_BLOCK <= n; i += EM_NN_S4_BLOCK, in += EM_NN_S4_BLOCK / 2) {
        const int8x16_t v = vld1q_s8((const int8_t *)in);
        vst1q_s8(out + i, vshrq_n_s8(vshlq_n_s8(v, 4), 4));
        vst1q_s8(out + i + EM_NN_S4_BLOCK / 2, vshrq_n_s8(v, 4));
    }
    const int32_t t = n - i, h = (t + 1) >> 1;
    if (t > 0) {
        const mve_pred16_t low = vctp8q((uint32_t)h);
        const int8x16_t v = vldrbq_z_s8((const int8_t *)in, low);
        vstrbq_p_s8(out + i, vshrq_n_s8(vshlq_n_s8(v, 4), 4), low);
        vstrbq_p_s8(out + i + h, vshrq_n_s8(v, 4), vctp8q((uint32_t)(t - h)));
    }
}

#else

/** Byte k of the result: the int4 value of byte k of @p m, which holds x ^ 8 for a nibble x
 *  (0..15), that is the value plus 8: less 8 bytewise, USUB8 on DSP; on scalar + 0xF8 as
 *  (m + 0x78) ^ 0x80, where no byte carries into the next (each is below 0x10). */
static inline uint32_t em_nn_s4_values(uint32_t m)
{
#if EM_NN_TIER_DSP
    return __usub8(m, 0x08080808u);
#else
    return (m + 0x78787878u) ^ 0x80808080u;
#endif
}

/** The word at @p in: its four low nibbles to @p low[0..3], its four high ones to @p high[0..3]. */
static inline void em_nn_unpack_s4_word(const uint8_t *in, int8_t *low, int8_t *high)
{
    uint32_t w;
    __builtin_memcpy(&w, in, sizeof w);
    const uint32_t t = w ^ 0x88888888u; /* every nibble x as x ^ 8 */
    const uint32_t lo = em_nn_s4_values(t & 0x0F0F0F0Fu), hi = em_nn_s4_values((t >> 4) & 0x0F0F0F0Fu);
    __builtin_memcpy(low, &lo, sizeof lo);
    __builtin_memcpy(high, &hi, sizeof hi);
}

/** Row of @p n elements at @p in into @p out. */
static void em_nn_unpack_s4_row(const uint8_t *in, int32_t n, int8_t *out)
{
    int32_t i = 0;
    for (; i + EM_NN_S4_BLOCK <= n; i += EM_NN_S4_BLOCK, in += EM_NN_S4_BLOCK / 2) {
        EM_NN_S4_UNROLL
        for (int32_t k = 0; k < EM_NN_S4_BLOCK / 2; k += 4) {
            em_nn_unpack_s4_word(in + k, out + i + k, out + i + EM_NN_S4_BLOCK / 2 + k);
        }
    }
    const int32_t t = n - i, h = (t + 1) >> 1, words = (t - h) >> 2; /* whole words of high elements */
    for (int32_t k = 0; k < 4 * words; k += 4) {
        em_nn_unpack_s4_word(in + k, out + i + k, out + i + h + k);
    }
    for (int32_t j = 4 * words; j < h; j++) {
        out[i + j] = (int8_t)(((in[j] & 15) ^ 8) - 8);
        if (h + j < t) {
            out[i + h + j] = (int8_t)(((in[j] >> 4) ^ 8) - 8);
        }
    }
}

#endif

em_nn_status em_unpack_s4(const uint8_t *packed, int32_t rows, int32_t row_elements, int8_t *output)
{
    const int64_t elements = (int64_t)rows * row_elements;
    if (rows < 0 || row_elements < 0 || elements > INT32_MAX
        || (elements > 0 && (packed == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (row_elements % EM_NN_S4_BLOCK == 0) { /* whole blocks: the rows are one row of them */
        row_elements *= rows;
        rows = 1;
    }
    const int32_t row_bytes = row_elements / 2 + (row_elements & 1);
    for (int32_t r = 0; r < rows && row_elements > 0; r++) {
        em_nn_unpack_s4_row(packed, row_elements, output);
        packed += row_bytes;
        output += row_elements;
    }
    return EM_NN_OK;
}
