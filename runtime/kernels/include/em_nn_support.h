/**
 * @file em_nn_support.h
 * @brief Internal helpers of the kernels (em_nn_*): fixed-point requantization.
 *
 * These are the C forms of compiler/fixedpoint.py and must match it bit for bit.
 */
#ifndef EM_NN_SUPPORT_H
#define EM_NN_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif
#if EM_NN_TIER_DSP
#include <arm_acle.h>
#include <string.h>
#endif

#define EM_NN_INT32_MIN ((int32_t)(-2147483647 - 1))
#define EM_NN_INT32_MAX ((int32_t)2147483647)

/** Whether bytes [@p a, @p a + @p a_bytes) and [@p b, @p b + @p b_bytes) share none: a kernel
 *  that copies or accumulates between two buffers checks it where only a malformed program could
 *  make them overlap. */
static inline bool em_nn_bytes_apart(const void *a, uintptr_t a_bytes, const void *b, uintptr_t b_bytes)
{
    return (uintptr_t)a >= (uintptr_t)b + b_bytes || (uintptr_t)b >= (uintptr_t)a + a_bytes;
}

/** Bits the accumulator is shifted left, saturating, before the multiply: max(shift + 2, 0). */
static inline int32_t em_nn_requantize_left_shift(int32_t shift)
{
    return shift + 2 > 0 ? shift + 2 : 0;
}

/**
 * acc * multiplier * 2^(shift - 31), rounded once, half up (CMSIS-NN single rounding), as
 * compiler/fixedpoint.py:requantize defines it: x = sat32(acc << L), L = max(shift + 2, 0);
 * result = (x * multiplier + 2^(E - 1)) >> E with E = 31 - shift + L (33..62).
 *
 * Computed in 32-bit halves (same bits, a fraction of the instructions of int64 shifts on
 * Cortex-M): since E >= 33, 2^(E - 1) is a multiple of 2^32 and
 * floor((P + 2^(E-1)) / 2^E) = floor((floor(P / 2^32) + 2^(E-33)) / 2^(E-32)), with
 * floor(P / 2^32) the high word of the 32x32 product (one SMULL). The saturating pre-shift
 * (L >= 1 only when shift >= -1) tests whether acc fits in 32 - L bits.
 * @param multiplier Q31, 0..INT32_MAX
 * @param shift      -31..30
 */
static inline int32_t em_nn_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    int32_t x = acc;
    int32_t right = -1 - shift; /* E - 32 with L = 0: 1..30 */
    if (shift > -2) {           /* L = shift + 2 in 1..32, E - 32 = 1 */
        const int32_t left = shift + 2;
        /* acc·2^L fits in int32 iff acc >> (31 - L) is 0 or -1 (L = 32: iff acc == 0). */
        const bool fits = left == 32 ? acc == 0 : (uint32_t)(acc >> (31 - left)) + 1u <= 1u;
        x = fits ? (int32_t)((uint32_t)acc << (left & 31)) : (acc < 0 ? EM_NN_INT32_MIN : EM_NN_INT32_MAX);
        right = 1;
    }
    /* Arithmetic right shifts of negative values (implementation-defined; GCC and Clang shift
     * arithmetically on every target Ember supports): the floors the definition asks for.
     * |high| <= 2^30 and the rounding term <= 2^29: the sum stays in int32. */
#if EM_NN_TIER_DSP && defined(__GNUC__)
    /* SMMUL: the high word of the signed product. GCC 12 has no __smmul and builds the int64
     * form from UMULL + MUL + MLA here. */
    int32_t high;
    __asm__("smmul %0, %1, %2" : "=r"(high) : "r"(x), "r"(multiplier));
#else
    const int32_t high = (int32_t)(((int64_t)x * multiplier) >> 32);
#endif
    return (high + (1 << (right - 1))) >> right;
}

#if EM_NN_TIER_MVE
/**
 * em_nn_requantize() on 4 lanes, bit-exact: VQSHL saturates the pre-shift like sat32(acc << L);
 * VMULH gives floor(x * m / 2^32); VRSHL by -(E - 32) (E - 32 >= 1) rounds half up, and a floor
 * followed by a rounding shift is the single rounding of the exact product.
 * @param shift -31..30 per lane
 */
static inline int32x4_t em_nn_requantize_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(vaddq_n_s32(shift, 2), zero);
    const int32x4_t x = vqshlq_s32(acc, left);
    /* -(E - 32) = shift - left + 1 */
    const int32x4_t right = vaddq_n_s32(vsubq_s32(shift, left), 1);
    return vrshlq_s32(vmulhq_s32(x, multiplier), right);
}

/** One per-tensor requantization on 4 lanes: em_nn_requantize_mve() with its shifts taken from
 *  general-purpose registers (VQSHL / VRSHL by register), so that a kernel with several
 *  requantizations (add's three) keeps only their multipliers in Q registers. Same instructions,
 *  same bits: sat32(x << L) by VQSHL, floor(x·m / 2^32) by VMULH, then a rounding shift right by
 *  E − 32 >= 1 (VRSHL by −(E − 32) = shift − L + 1). */
typedef struct {
    int32x4_t multiplier;
    int32_t left;  /**< L = max(shift + 2, 0) */
    int32_t right; /**< shift − L + 1 <= −1 */
} em_nn_requant_mve;

/** The per-tensor requantization by @p multiplier (Q31, >= 0) and @p shift (-31..30). */
static inline em_nn_requant_mve em_nn_requant_mve_of(int32_t multiplier, int32_t shift)
{
    em_nn_requant_mve r;
    r.multiplier = vdupq_n_s32(multiplier);
    r.left = em_nn_requantize_left_shift(shift);
    r.right = shift - r.left + 1;
    return r;
}

/** em_nn_requantize() of 4 lanes by @p r. */
static inline __attribute__((always_inline)) int32x4_t em_nn_requantize_tensor_mve(int32x4_t x, em_nn_requant_mve r)
{
    return vrshlq_n_s32(vmulhq_s32(vqshlq_r_s32(x, r.left), r.multiplier), r.right);
}
#endif

#if EM_NN_TIER_DSP
/*
 * DSP-tier helpers (Armv7E-M / Armv8-M DSP extension, ACLE <arm_acle.h>). A word of four int8
 * x0..x3 (x0 lowest) splits into two int16x2 halves: em_nn_sxtb16_02() = (x0, x2) and
 * em_nn_sxtb16_13() = (x1, x3). A dot product only needs both operands split alike:
 * SMLAD(x02, w02, SMLAD(x13, w13, acc)) = acc + x0·w0 + x1·w1 + x2·w2 + x3·w3, wrapping modulo
 * 2^32 like the reference's int32 accumulator (SMLAD's result is the low 32 bits; only the
 * Q flag records an overflow, and nothing reads it).
 */

/** Four int8 at @p p (any alignment: Armv7E-M / Armv8-M.main load words unaligned). */
static inline uint32_t em_nn_read_s8x4(const int8_t *p)
{
    uint32_t v;
#if defined(__GNUC__)
    __builtin_memcpy(&v, p, sizeof v); /* one LDR, also under -ffreestanding (board builds) */
#else
    memcpy(&v, p, sizeof v);
#endif
    return v;
}

/** Two int16 at @p p (2-byte aligned; Armv7E-M / Armv8-M.main load words unaligned). */
static inline uint32_t em_nn_read_s16x2(const int16_t *p)
{
    uint32_t v;
#if defined(__GNUC__)
    __builtin_memcpy(&v, p, sizeof v); /* one LDR, also under -ffreestanding (board builds) */
#else
    memcpy(&v, p, sizeof v);
#endif
    return v;
}

/** Four int16 x0..x3 at @p p as the pairs em_nn_sxtb16_02() / _13() split four int8 into:
 *  *x02 = (x0, x2) (PKHBT), *x13 = (x1, x3) (PKHTB), so that two SMLAD / SMLALD take an int16 x
 *  int8 dot product of four. */
static inline void em_nn_s16x4_pairs(const int16_t *p, int32_t *x02, int32_t *x13)
{
    const uint32_t x01 = em_nn_read_s16x2(p), x23 = em_nn_read_s16x2(p + 2);
    *x02 = (int32_t)((x01 & 0xFFFFu) | (x23 << 16));
    *x13 = (int32_t)((x01 >> 16) | (x23 & 0xFFFF0000u));
}

/** (x0, x2) sign-extended to int16x2 (SXTB16). */
static inline int32_t em_nn_sxtb16_02(uint32_t x)
{
    return __sxtb16((int32_t)x);
}

/** (x1, x3) sign-extended to int16x2: one SXTB16 with ROR #8 (GCC 12 neither has __ror nor
 *  fuses a rotate into SXTB16, so inline assembly there). */
static inline int32_t em_nn_sxtb16_13(uint32_t x)
{
#if defined(__GNUC__)
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
#else
    return __sxtb16((int32_t)((x >> 8) | (x << 24)));
#endif
}

/** acc + Σ_{i<4} x_i·w_i of the int8 words @p x and @p w (two SMLAD). */
static inline int32_t em_nn_smlad_s8x4(uint32_t x, uint32_t w, int32_t acc)
{
    acc = __smlad(em_nn_sxtb16_02(x), em_nn_sxtb16_02(w), acc);
    return __smlad(em_nn_sxtb16_13(x), em_nn_sxtb16_13(w), acc);
}

/** acc + Σ_{i<n} x[i]·w[i], wrapping: four int8 pairs per two SMLAD, then a scalar tail. */
static inline int32_t em_nn_dot_s8_dsp(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        acc = em_nn_smlad_s8x4(em_nn_read_s8x4(x + i), em_nn_read_s8x4(w + i), acc);
    }
    uint32_t a = (uint32_t)acc;
    for (; i < n; i++) {
        a += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
    }
    return (int32_t)a;
}

/**
 * acc[r] += Σ_{i<n} x[i]·w[r·stride + i] for four weight rows r = 0..3 sharing each input word
 * (its two SXTB16 serve all four rows): per four inputs one input load, four weight loads,
 * ten SXTB16, eight SMLAD.
 */
#if defined(__GNUC__)
__attribute__((always_inline)) /* out of line, its call and spilled accumulators cost small K */
#endif
static inline void em_nn_dot4_s8_dsp(const int8_t *x, const int8_t *w, int32_t stride, int32_t n,
                                     int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *w0 = w, *w2 = w + 2 * stride; /* rows 1 and 3 at [w0 + stride], [w2 + stride] */
    int32_t steps = n >> 2;
#if defined(__GNUC__) && !defined(__NO_INLINE__) /* at -O0 (__NO_INLINE__) too few registers: C */
    /* GCC 12 keeps a loop end and the stride on the stack here (27 instructions per step);
     * by hand it is 23 per step: 5 loads, 10 SXTB16, 8 SMLAD, 13 registers; four steps per
     * SUBS + BNE while 16 inputs are left (the loop's share 0.5 instead of 2 per 16 MACs), then
     * one step per test of x against its end. */
#define EM_NN_DOT4_DSP_STEP                              \
    "ldr    %[t0], [%[x]], #4\n\t"                       \
    "sxtb16 %[x02], %[t0]\n\t"                           \
    "sxtb16 %[x13], %[t0], ror #8\n\t"                   \
    "ldr    %[t0], [%[w0], %[s]]\n\t"                    \
    "sxtb16 %[t1], %[t0]\n\t"                            \
    "smlad  %[a1], %[x02], %[t1], %[a1]\n\t"             \
    "sxtb16 %[t1], %[t0], ror #8\n\t"                    \
    "smlad  %[a1], %[x13], %[t1], %[a1]\n\t"             \
    "ldr    %[t0], [%[w0]], #4\n\t"                      \
    "sxtb16 %[t1], %[t0]\n\t"                            \
    "smlad  %[a0], %[x02], %[t1], %[a0]\n\t"             \
    "sxtb16 %[t1], %[t0], ror #8\n\t"                    \
    "smlad  %[a0], %[x13], %[t1], %[a0]\n\t"             \
    "ldr    %[t0], [%[w2], %[s]]\n\t"                    \
    "sxtb16 %[t1], %[t0]\n\t"                            \
    "smlad  %[a3], %[x02], %[t1], %[a3]\n\t"             \
    "sxtb16 %[t1], %[t0], ror #8\n\t"                    \
    "smlad  %[a3], %[x13], %[t1], %[a3]\n\t"             \
    "ldr    %[t0], [%[w2]], #4\n\t"                      \
    "sxtb16 %[t1], %[t0]\n\t"                            \
    "smlad  %[a2], %[x02], %[t1], %[a2]\n\t"             \
    "sxtb16 %[t1], %[t0], ror #8\n\t"                    \
    "smlad  %[a2], %[x13], %[t1], %[a2]\n\t"
    int32_t quads = steps >> 2;
    steps &= 3;
    if (quads > 0) {
        int32_t x02, x13, t0, t1;
        __asm__("1:\n\t" EM_NN_DOT4_DSP_STEP EM_NN_DOT4_DSP_STEP EM_NN_DOT4_DSP_STEP
                EM_NN_DOT4_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w0] "+r"(w0), [w2] "+r"(w2), [n] "+r"(quads), [x02] "=&r"(x02),
                  [x13] "=&r"(x13), [t0] "=&r"(t0), [t1] "=&r"(t1)
                : [s] "r"(stride)
                : "cc", "memory");
    }
    if (steps > 0) { /* ends at x == end, kept in memory: at -O1 GCC gave this loop only twelve
                      * registers (the four-step loop above gets its thirteen) */
        int32_t x02, x13, t0, t1;
        const int8_t *const end = x + 4 * steps;
        __asm__("1:\n\t" EM_NN_DOT4_DSP_STEP
                "ldr    %[t0], %[end]\n\t"
                "cmp    %[x], %[t0]\n\t"
                "bne    1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w0] "+r"(w0), [w2] "+r"(w2), [x02] "=&r"(x02), [x13] "=&r"(x13), [t0] "=&r"(t0),
                  [t1] "=&r"(t1)
                : [s] "r"(stride), [end] "m"(end)
                : "cc", "memory");
    }
#undef EM_NN_DOT4_DSP_STEP
#else
    for (; steps > 0; steps--) {
        const uint32_t xv = em_nn_read_s8x4(x);
        x += 4;
        const int32_t x02 = em_nn_sxtb16_02(xv), x13 = em_nn_sxtb16_13(xv);
        uint32_t wv = em_nn_read_s8x4(w0 + stride);
        a1 = __smlad(x02, em_nn_sxtb16_02(wv), a1);
        a1 = __smlad(x13, em_nn_sxtb16_13(wv), a1);
        wv = em_nn_read_s8x4(w0);
        w0 += 4;
        a0 = __smlad(x02, em_nn_sxtb16_02(wv), a0);
        a0 = __smlad(x13, em_nn_sxtb16_13(wv), a0);
        wv = em_nn_read_s8x4(w2 + stride);
        a3 = __smlad(x02, em_nn_sxtb16_02(wv), a3);
        a3 = __smlad(x13, em_nn_sxtb16_13(wv), a3);
        wv = em_nn_read_s8x4(w2);
        w2 += 4;
        a2 = __smlad(x02, em_nn_sxtb16_02(wv), a2);
        a2 = __smlad(x13, em_nn_sxtb16_13(wv), a2);
    }
#endif
    const int8_t *w1 = w0 + stride, *w3 = w2 + stride;
    for (int32_t i = 0; i < (n & 3); i++) { /* 0..3 left, wrapping like the reference */
        const int32_t xi = x[i];
        a0 = (int32_t)((uint32_t)a0 + (uint32_t)(xi * w0[i]));
        a1 = (int32_t)((uint32_t)a1 + (uint32_t)(xi * w1[i]));
        a2 = (int32_t)((uint32_t)a2 + (uint32_t)(xi * w2[i]));
        a3 = (int32_t)((uint32_t)a3 + (uint32_t)(xi * w3[i]));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#endif

#endif /* EM_NN_SUPPORT_H */
