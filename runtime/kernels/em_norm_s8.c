/**
 * @file em_norm_s8.c
 * @brief int8 layer norm and RMS norm over the last axis, exactly compiler/reference.py:norm_s8.
 *
 * Each row is two passes: its sums (MVE: VADDVA and VMLADAVA over 16 lanes; DSP: SXTB16 and
 * SMLAD, four values a step; scalar: plain C), then, after one reciprocal square root per row,
 * the normalised values and the per-channel affine (MVE: four lanes a step of VRMULH, VRSHL and
 * saturating VQADD, tail predicated; other tiers: the same arithmetic in 64-bit C).
 */
#include "em_nn_functions.h"
#include "em_nn_support.h"

/* 2^29 / sqrt(m / 2^30) at the middle of m in [j·2^25, (j + 1)·2^25), j = 8..31:
 * reference.NORM_RSQRT_SEEDS = isqrt(2^64 / (2j + 1)). */
static const uint32_t em_nn_rsqrt_seed[24] = {
    1041682577u, 985333074u, 937238701u, 895562589u, 858993459u, 826566841u, 797555404u, 771398898u,
    747657839u,  725981976u, 706088273u, 687745183u, 670761199u, 654976372u, 640255922u, 626485368u,
    613566756u,  601415716u, 589959129u, 579133272u, 568882315u, 559157114u, 549914211u, 541115016u,
};

/** ≈ 2^29 / sqrt(m / 2^30) for m in [2^28, 2^30) (reference.norm_rsqrt_q29): the seed, then three
 *  Newton steps y·(3 − m·y²)/2 with floored products (each below 2^62, unsigned). */
static uint32_t em_nn_rsqrt_q29(uint32_t m)
{
    /* y <= 2^30, y² >> 29 <= 2^31 and m·y²>>29 < 3·2^30 (the seed is within 6 % of the root): every
     * factor fits 32 bits, so each product is one UMULL */
    uint32_t y = em_nn_rsqrt_seed[(m >> 25) - 8u];
    for (int32_t i = 0; i < 3; i++) {
        const uint32_t y2 = (uint32_t)(((uint64_t)y * y) >> 29);
        const uint32_t ay2 = (uint32_t)(((uint64_t)m * y2) >> 29);
        y = (uint32_t)(((uint64_t)y * (3u * (1u << 30) - ay2)) >> 31);
    }
    return y;
}

/** VRMULH: (a·b + 2^31) >> 32 (DSP: SMMULR). */
static inline int32_t em_nn_rmulh(int32_t a, int32_t b)
{
#if EM_NN_TIER_DSP && defined(__GNUC__)
    int32_t high;
    __asm__("smmulr %0, %1, %2" : "=r"(high) : "r"(a), "r"(b));
    return high;
#else
    return (int32_t)(((int64_t)a * b + ((int64_t)1 << 31)) >> 32);
#endif
}

/** sat32(a + b) (DSP: QADD). */
static inline int32_t em_nn_qadd(int32_t a, int32_t b)
{
#if EM_NN_TIER_DSP
    return __qadd(a, b);
#else
    const int64_t sum = (int64_t)a + b;
    return sum < EM_NN_INT32_MIN ? EM_NN_INT32_MIN : (sum > EM_NN_INT32_MAX ? EM_NN_INT32_MAX : (int32_t)sum);
#endif
}

/** Σ q and Σ q² of one row. */
static void em_nn_norm_sums(const int8_t *in, int32_t depth, int32_t *sum, int32_t *squares)
{
    int32_t s = 0, ss = 0, i = 0;
#if EM_NN_TIER_MVE
    for (; i < depth; i += 16) {
        const mve_pred16_t lanes = vctp8q((uint32_t)(depth - i));
        const int8x16_t x = vldrbq_z_s8(in + i, lanes);
        s = vaddvaq_p_s8(s, x, lanes);
        ss = vmladavaq_p_s8(ss, x, x, lanes);
    }
#elif EM_NN_TIER_DSP
    const int32_t ones = 0x00010001;
    for (; i + 4 <= depth; i += 4) {
        const uint32_t word = em_nn_read_s8x4(in + i);
        const int32_t even = em_nn_sxtb16_02(word), odd = em_nn_sxtb16_13(word);
        ss = __smlad(even, even, ss);
        ss = __smlad(odd, odd, ss);
        s = __smlad(even, ones, s);
        s = __smlad(odd, ones, s);
    }
#endif
    for (; i < depth; i++) {
        s += in[i];
        ss += in[i] * in[i];
    }
    *sum = s;
    *squares = ss;
}

#if !EM_NN_TIER_MVE
/** Values @p from .. @p depth − 1 of one row: n = ((t << left) + round) >> right with
 *  t = VRMULH(q·scale − offset, r), then the affine and the output (inlined per sign of s: the
 *  zero shifts fold away). */
static inline __attribute__((always_inline)) void em_nn_norm_values(
    const int8_t *in, int8_t *out, int32_t from, int32_t depth, int32_t scale, int32_t offset, int32_t r, int32_t left,
    int32_t round, int32_t right, const int32_t *multiplier, const int32_t *bias, int32_t rounding, int32_t output_shift)
{
    for (int32_t i = from; i < depth; i++) {
        const int32_t t = em_nn_rmulh(in[i] * scale - offset, r);
        const int32_t n = ((int32_t)((uint32_t)t << left) + round) >> right;
        const int32_t acc = em_nn_qadd(em_nn_rmulh(n, multiplier[i]), bias[i]);
        /* (acc + 2^(H−1)) >> H saturating: where the sum passes INT32_MAX both are >= 127 (H <= 24) */
        const int32_t y = em_nn_qadd(acc, rounding) >> output_shift;
#if EM_NN_TIER_DSP
        out[i] = (int8_t)__ssat(y, 8);
#else
        out[i] = (int8_t)(y < -128 ? -128 : (y > 127 ? 127 : y));
#endif
    }
}
#endif

em_nn_status em_norm_s8(const em_norm_params *params, int32_t rows, int32_t depth, const int8_t *input,
                        const int32_t *multiplier, const int32_t *bias, int8_t *output)
{
    if (!em_norm_s8_params_valid(params, depth) || rows < 0
        || (rows > 0 && (input == NULL || output == NULL || multiplier == NULL || bias == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_norm_params p = *params;
    const int64_t epsilon = ((int64_t)p.epsilon_high << 31) + p.epsilon_low;
    /* A: 255·D·2^A in 31 bits, so that d = q·(D·2^A) − C·2^A and both its terms fit int32 */
    const int32_t a = __builtin_clz((uint32_t)(255 * depth)) - 1;
    const int32_t scale = depth << a;
#if !EM_NN_TIER_MVE
    const int32_t rounding = 1 << (p.output_shift - 1);
#endif
    for (int32_t row = 0; row < rows; row++) {
        const int8_t *in = input + (int64_t)row * depth;
        int8_t *out = output + (int64_t)row * depth;
        int32_t sum, squares;
        em_nn_norm_sums(in, depth, &sum, &squares);
        const int64_t centre = p.mode == 0 ? sum : (int64_t)depth * p.input_zero_point;
        const int64_t variance = (int64_t)depth * squares - 2 * centre * sum + centre * centre; /* >= 0, < 2^46 */
        const uint64_t total = ((uint64_t)variance << p.epsilon_shift) + (uint64_t)epsilon;   /* < 2^62 */
        int32_t r = 0, s = 0; /* total 0: every d is 0 (a constant row, or all at zp) */
        if (total != 0u) {
            const int32_t k = (64 - __builtin_clzll(total) - 29) >> 1; /* floor: m in [2^28, 2^30) */
            const uint32_t m = (uint32_t)(k >= 0 ? total >> (2 * k) : total << (-2 * k));
            r = (int32_t)em_nn_rsqrt_q29(m);
            s = p.norm_bits + p.epsilon_shift / 2 - k - a - 12;
            s = s < -32 ? -32 : (s > 31 ? 31 : s);
        }
        const int32_t offset = (int32_t)((uint32_t)(int32_t)centre << a); /* |C| <= 128·D: C·2^A fits */
#if EM_NN_TIER_MVE
        const int32x4_t low = vdupq_n_s32(-128), high = vdupq_n_s32(127), r_lanes = vdupq_n_s32(r);
        for (int32_t i = 0; i < depth; i += 4) { /* the tail predicated: no scalar loop after it */
            const mve_pred16_t lanes = vctp32q((uint32_t)(depth - i));
            const int32x4_t d = vsubq_n_s32(vmulq_n_s32(vldrbq_z_s32(in + i, lanes), scale), offset);
            const int32x4_t n = vrshlq_n_s32(vrmulhq_s32(d, r_lanes), s);
            const int32x4_t acc = vqaddq_s32(vrmulhq_s32(n, vldrwq_z_s32(multiplier + i, lanes)),
                                             vldrwq_z_s32(bias + i, lanes));
            const int32x4_t y = vrshlq_n_s32(acc, -p.output_shift);
            vstrbq_p_s32(out + i, vmaxq_s32(vminq_s32(y, high), low), lanes);
        }
#else
        /* VRSHL(t, s) in 32 bits: |t| <= 2^29, so t + 2^(-s-1) fits for s >= -30, and s <= -31
         * gives 0 for every t (as r = 0 does); one loop per sign of s, each with its one shift */
        if (s >= 0) {
            em_nn_norm_values(in, out, 0, depth, scale, offset, r, s, 0, 0, multiplier, bias, rounding, p.output_shift);
        } else if (s >= -30) {
            em_nn_norm_values(in, out, 0, depth, scale, offset, r, 0, 1 << (-s - 1), -s, multiplier, bias, rounding,
                              p.output_shift);
        } else {
            em_nn_norm_values(in, out, 0, depth, scale, offset, 0, 0, 0, 0, multiplier, bias, rounding, p.output_shift);
        }
#endif
    }
    return EM_NN_OK;
}
