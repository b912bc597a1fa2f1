/**
 * @file em_mel_features_s16.c
 * @brief Audio front end: int16 PCM -> MFCC or log-mel features, integer arithmetic only, exactly
 *        compiler/audio_features.py:features_int (its module doc lists the steps and formats).
 *
 * Portable C, the same on every tier: integers are bit-exact everywhere, and the only float
 * operations are the final int32 -> float conversion and a multiply by 2^-16 (exact).
 * Per frame: window (Q30) and block scaling, a complex N/2-point radix-2 FFT in int32 with
 * int64 products (Q30 twiddles, rounded), the real-FFT split into |2X|^2 (int64), magnitude
 * (exact integer square root) or power >> 13, sparse mel filters (int16 weights, int64 sums),
 * log2 in Q24 (table + interpolation), then the DCT (Q24) or the log scale, rounded to Q16.
 *
 * Scratch (the caller's, em_mel_features_s16_get_buffer_size() bytes, 4-byte aligned):
 * z[N + 2] int32 — the FFT's interleaved (re, im) pairs; after the split, pair k holds the int64
 * spectrum bin k (bin N/2 in the two extra words) — then lm[n_mels] int64, the log2 values.
 */
#include "em_nn_functions.h"
#include "em_nn_support.h" /* em_nn_bytes_apart */
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

enum {
    EM_NN_MEL_TWIDDLE_BITS = 30,
    EM_NN_MEL_LOG2_BITS = 24,
    EM_NN_MEL_POWER_SHIFT = 13,
    EM_NN_MEL_EPS_BITS = 30,
    EM_NN_MEL_BAND_FIELDS = 5, /* start, count, log2 offset, eps mantissa, eps exponent */
};

static inline int32_t em_nn_bitlen64(uint64_t a)
{
    return a == 0u ? 0 : 64 - __builtin_clzll(a);
}

/** (a·c + b·d + 2^29) >> 30, kept to 32 bits as the reference's int32 cast keeps them: the
 *  rounding term starts the int64 accumulator (two SMLAL) and bits 30..61 are read from its halves,
 *  which needs no 64-bit shift (and no even/odd register pair for GCC to spill around). */
static inline int32_t em_nn_dot2_round_30(int32_t a, int32_t c, int32_t b, int32_t d)
{
    int64_t acc = 1LL << (EM_NN_MEL_TWIDDLE_BITS - 1);
    acc += (int64_t)a * c;
    acc += (int64_t)b * d;
    const uint32_t lo = (uint32_t)acc, hi = (uint32_t)((uint64_t)acc >> 32);
    return (int32_t)((lo >> EM_NN_MEL_TWIDDLE_BITS) | (hi << (32 - EM_NN_MEL_TWIDDLE_BITS)));
}

#if (defined(__ARM_FP) && (__ARM_FP & 4)) || !defined(__arm__)
/** floor(sqrt(n)) from the FPU's square root, then made exact: float(n) and the rounded root are
 *  each within 2^-24 relative, so the truncated root is off by at most one (sqrt(n) < 2^16 is at
 *  most 2^-7 away from it), and one comparison each way in 64 bits fixes it. */
static inline uint32_t em_nn_isqrt32(uint32_t n)
{
    const float f = (float)n;
    float root;
#if defined(__arm__)
    __asm__("vsqrt.f32 %0, %1" : "=t"(root) : "t"(f)); /* f >= 0: no errno path into libm */
#else
    root = __builtin_sqrtf(f);
#endif
    uint32_t g = (uint32_t)root;
    g = (uint64_t)g * g > n ? g - 1u : g;
    return (uint64_t)(g + 1u) * (g + 1u) <= n ? g + 1u : g;
}
#else
/** floor(sqrt(n)): Newton's iteration from above (one division per step, ~5 steps); for CPUs
 *  without a single-precision FPU. */
static uint32_t em_nn_isqrt32(uint32_t n)
{
    if (n < 2u) {
        return n;
    }
    /* Start at (n / 2^k + 2^k) / 2 for k = floor((bits - 1) / 2): one Newton step from 2^k,
     * >= sqrt(n) (arithmetic-geometric mean) and within 25 % of it. */
    const int32_t k = (31 - __builtin_clz(n)) >> 1;
    uint32_t g = ((n >> k) + (1u << k)) >> 1;
    for (;;) {
        const uint32_t next = (g + n / g) >> 1;
        if (next >= g) {
            return g;
        }
        g = next;
    }
}
#endif

static inline void em_nn_store_i64(int32_t *at, int64_t v)
{
    __builtin_memcpy(at, &v, sizeof v);
}

static inline int64_t em_nn_load_i64(const int32_t *at)
{
    int64_t v;
    __builtin_memcpy(&v, at, sizeof v);
    return v;
}

/** log2(a) in Q24 for a >= 1 (reference: audio_features.log2_q24). */
static int64_t em_nn_log2_q24(uint64_t a, const int32_t *table)
{
    const int32_t e = em_nn_bitlen64(a) - 1;
    const uint64_t mant = e >= 31 ? a >> (e - 31) : a << (31 - e);
    const uint32_t i = (uint32_t)(mant >> 24) & 127u;
    const int64_t f = (int64_t)((mant >> 8) & 0xFFFFu);
    return ((int64_t)e << EM_NN_MEL_LOG2_BITS) + table[i] + ((((int64_t)table[i + 1] - table[i]) * f) >> 16);
}

/** x[i] · w[i] block-scaled: << sh, or the rounding >> -sh (module doc, step 2). */
static inline int32_t em_nn_mel_scaled(int64_t v, int32_t sh)
{
    return sh >= 0 ? (int32_t)((uint64_t)v << sh) : (int32_t)((v + (1LL << (-sh - 1))) >> -sh);
}

/** bitlen(max(1, max_i |x[i]|·|w[i]|)) for |x| <= 2^15 and |w| <= 2^30 (products < 2^46).
 *  The high words (|x|·2^16 · |w|) >> 32 = floor(|x|·|w| / 2^16) need one UMULL each and keep the
 *  order of the products, so bitlen(peak) = 16 + bitlen(their maximum) when that is not 0; only a
 *  near-silent frame (every product < 2^16) takes the exact second pass. */
static int32_t em_nn_mel_peak_bits(const int16_t *x, const int32_t *window, int32_t length)
{
    uint32_t high = 0u;
    int32_t i = 0;
#if EM_NN_TIER_MVE
    /* Four samples per step: widening load, VABS, VMULH.U32 (the same high words), VMAX. */
    uint32x4_t top = vdupq_n_u32(0u);
    for (; i + 4 <= length; i += 4) {
        const uint32x4_t ax = vshlq_n_u32(vreinterpretq_u32_s32(vabsq_s32(vldrhq_s32(x + i))), 16);
        const uint32x4_t aw = vreinterpretq_u32_s32(vabsq_s32(vld1q_s32(window + i)));
        top = vmaxq_u32(top, vmulhq_u32(ax, aw));
    }
    high = vmaxvq_u32(0u, top);
#endif
    for (; i < length; i++) {
        const int32_t xi = x[i], wi = window[i];
        const uint32_t ax = (uint32_t)(xi < 0 ? -xi : xi) << 16, aw = (uint32_t)(wi < 0 ? -wi : wi);
        const uint32_t h = (uint32_t)(((uint64_t)ax * aw) >> 32);
        high = h > high ? h : high;
    }
    if (high != 0u) {
        return 16 + 32 - __builtin_clz(high);
    }
    uint32_t peak = 1u; /* every product < 2^16 */
    for (i = 0; i < length; i++) {
        const int32_t xi = x[i], wi = window[i];
        const uint32_t a = (uint32_t)(xi < 0 ? -xi : xi) * (uint32_t)(wi < 0 ? -wi : wi);
        peak = a > peak ? a : peak;
    }
    return 32 - __builtin_clz(peak);
}

/** Complex input j at its bit-reversed slot r = reverse(j) over `bits` bits. */
static inline uint32_t em_nn_bit_reverse(uint32_t j, int32_t bits)
{
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB >= 2
    uint32_t r;
    __asm__("rbit %0, %1" : "=r"(r) : "r"(j)); /* Armv7-M and later: one instruction */
    return r >> (32 - bits);
#else
    uint32_t r = 0u;
    for (int32_t b = 0; b < bits; b++, j >>= 1) {
        r = (r << 1) | (j & 1u);
    }
    return r;
#endif
}

#if EM_NN_TIER_MVE
/** Pairs 0 .. 2·floor(pairs / 2) - 1 of em_nn_mel_load_frame, four samples per step; returns the
 *  pairs done (0 when the shift has no exact vector form). sh >= 0: the low words of the 32-bit
 *  products shifted left (VMUL, VSHL). sh <= -16: x·2^(32 + sh) fits int32 (|x| <= 2^15), and
 *  VRMULH's (a·b + 2^31) >> 32 of it with w is the rounding x·w >> -sh exactly. The slots
 *  2·reverse(j) (+1) come from VBRSR and one scatter store. */
static int32_t em_nn_mel_load_pairs_mve(const int16_t *x, const int32_t *window, int32_t *z, int32_t sh,
                                        int32_t pairs, int32_t bits)
{
    if (sh < 0 && sh > -16) {
        return 0;
    }
    static const uint32_t pair_of_lane[4] = {0u, 0u, 1u, 1u}, part_of_lane[4] = {0u, 1u, 0u, 1u};
    const uint32x4_t lane_pair = vld1q_u32(pair_of_lane), lane_part = vld1q_u32(part_of_lane);
    uint32x4_t j = lane_pair; /* pairs j, j, j + 1, j + 1 */
    const int32_t steps = pairs >> 1;
    for (int32_t q = 0; q < steps; q++) {
        const int32x4_t xs = vldrhq_s32(x + 4 * q), ws = vld1q_s32(window + 4 * q);
        const int32x4_t v = sh >= 0 ? vshlq_r_s32(vmulq_s32(xs, ws), sh)
                                    : vrmulhq_s32(vshlq_r_s32(xs, 32 + sh), ws);
        const uint32x4_t slot = vorrq_u32(vshlq_n_u32(vbrsrq_n_u32(j, bits), 1), lane_part);
        vstrwq_scatter_shifted_offset_s32(z, slot, v);
        j = vaddq_n_u32(j, 2u);
    }
    return 2 * steps;
}
#endif

/** Windowed, block-scaled samples into z in bit-reversed order; returns the block shift sh. */
static int32_t em_nn_mel_load_frame(const int16_t *x, const em_mel_features_params *p, const int32_t *window,
                                    int32_t *z)
{
    const int32_t n = p->fft_length, length = p->frame_length;
    const int32_t sh = 29 - (31 - __builtin_clz((uint32_t)n)) - em_nn_mel_peak_bits(x, window, length);
    /* Samples 2j, 2j + 1 are complex input j, stored at r = bit-reversed j. */
    const int32_t half = n >> 1, bits = 31 - __builtin_clz((uint32_t)half);
    const int32_t pairs = length >> 1; /* whole pairs inside the frame */
    int32_t first = 0;
#if EM_NN_TIER_MVE
    first = em_nn_mel_load_pairs_mve(x, window, z, sh, pairs, bits);
#endif
    if (sh >= 0) {
        /* (x·w) << sh fits int32 (sh is chosen so), so its low word is the 32-bit product's. */
        for (int32_t j = first; j < pairs; j++) {
            int32_t *at = z + 2u * em_nn_bit_reverse((uint32_t)j, bits);
            at[0] = (int32_t)(((uint32_t)x[2 * j] * (uint32_t)window[2 * j]) << sh);
            at[1] = (int32_t)(((uint32_t)x[2 * j + 1] * (uint32_t)window[2 * j + 1]) << sh);
        }
    } else {
        for (int32_t j = first; j < pairs; j++) {
            int32_t *at = z + 2u * em_nn_bit_reverse((uint32_t)j, bits);
            at[0] = em_nn_mel_scaled((int64_t)x[2 * j] * window[2 * j], sh);
            at[1] = em_nn_mel_scaled((int64_t)x[2 * j + 1] * window[2 * j + 1], sh);
        }
    }
    for (int32_t j = pairs; j < half; j++) { /* an odd last sample, then zero padding */
        int32_t *at = z + 2u * em_nn_bit_reverse((uint32_t)j, bits);
        at[0] = 2 * j < length ? em_nn_mel_scaled((int64_t)x[2 * j] * window[2 * j], sh) : 0;
        at[1] = 0;
    }
    return sh;
}

/** One radix-2 butterfly a, b <- a + W·b, a - W·b with W = c - i·s (Q30); -br rather than a live
 *  -s keeps the general butterfly inside the registers (|br| < 2^31, module doc). */
static inline void em_nn_mel_butterfly(int32_t *za, int32_t *zb, int32_t c, int32_t s)
{
    const int32_t ar = za[0], ai = za[1], br = zb[0], bi = zb[1];
    const int32_t tr = em_nn_dot2_round_30(br, c, bi, s);
    const int32_t ti = em_nn_dot2_round_30(bi, c, -br, s);
    za[0] = ar + tr;
    za[1] = ai + ti;
    zb[0] = ar - tr;
    zb[1] = ai - ti;
}

/** In-place complex radix-2 DIT FFT of half = N/2 points (bit-reversed input, in-order output).
 *  Twiddles (2^30, 0) and (0, 2^30) (W = 1 and W = -i) give t = b and t = (bi, -br) exactly
 *  through the general rounding, so their butterflies skip the products. */
static void em_nn_mel_fft(int32_t *z, int32_t half, const int32_t *twiddles)
{
    const int32_t one = 1 << EM_NN_MEL_TWIDDLE_BITS;
    for (int32_t size = 2; size <= half; size <<= 1) {
        const int32_t hs = size / 2;
        const int32_t step = 2 * half / size, groups = half / size;
        if (groups < hs) {
            /* Late stages (few groups of many twiddles): twiddles innermost, so the per-twiddle
             * set-up below is not paid once per butterfly. W = 1 and W = -i go through the
             * general rounding here, which gives them exactly (see above). */
            for (int32_t g = 0; g < groups; g++) {
                int32_t *za = z + 2 * g * size;
                const int32_t *tw = twiddles;
                for (int32_t k = 0; k < hs; k++, za += 2, tw += 2 * step) {
                    em_nn_mel_butterfly(za, za + 2 * hs, tw[0], tw[1]);
                }
            }
            continue;
        }
        for (int32_t k = 0; k < hs; k++) {
            const int32_t c = twiddles[2 * k * step];
            const int32_t s = twiddles[2 * k * step + 1];
            int32_t *za = z + 2 * k;
            int32_t *end = z + 2 * half;
            if (c == one && s == 0) {
                for (; za < end; za += 2 * size) {
                    int32_t *zb = za + 2 * hs;
                    const int32_t ar = za[0], ai = za[1], br = zb[0], bi = zb[1];
                    za[0] = ar + br;
                    za[1] = ai + bi;
                    zb[0] = ar - br;
                    zb[1] = ai - bi;
                }
            } else if (c == 0 && s == one) {
                for (; za < end; za += 2 * size) {
                    int32_t *zb = za + 2 * hs;
                    const int32_t ar = za[0], ai = za[1], br = zb[0], bi = zb[1];
                    za[0] = ar + bi;
                    za[1] = ai - br;
                    zb[0] = ar - bi;
                    zb[1] = ai + br;
                }
            } else {
                /* A counted loop (LE on Armv8.1-M): no end pointer to keep live. */
                for (int32_t n = half / size; n > 0; n--, za += 2 * size) {
                    em_nn_mel_butterfly(za, za + 2 * hs, c, s);
                }
            }
        }
    }
}

/** |2X[k]|^2 turned into the spectrum value the mel filters read (magnitude or power).
 *  |2X| <= 2^30 (module doc, step 3): both parts fit int32. */
static inline int64_t em_nn_mel_spectrum(int32_t xr, int32_t xi, int32_t magnitude)
{
    const int64_t power = (int64_t)xr * xr + (int64_t)xi * xi;
    if (!magnitude) {
        return power >> EM_NN_MEL_POWER_SHIFT;
    }
    int32_t s2 = em_nn_bitlen64((uint64_t)power) - 32;
    s2 = s2 < 0 ? 0 : s2 + (s2 & 1);
    return (int64_t)em_nn_isqrt32((uint32_t)(power >> s2)) << (s2 >> 1);
}

/** 2X[k] from A = Z[k], B = conj(Z[half - k]) and twiddle k (1 <= k < half). */
__attribute__((noinline)) static int64_t em_nn_mel_bin(const int32_t *zk, const int32_t *zm, const int32_t *tw, int32_t magnitude)
{
    /* |Z| < 2^28.5 (module doc): these sums fit int32, so the products are 32 x 32 -> 64. */
    const int32_t ar = zk[0], ai = zk[1], br = zm[0], bi = -zm[1];
    const int32_t qr = ai - bi, qi = br - ar;
    const int32_t c = tw[0], s = tw[1];
    const int32_t xr = ar + br + em_nn_dot2_round_30(c, qr, s, qi);
    const int32_t xi = ai + bi + em_nn_dot2_round_30(c, qi, -s, qr);
    return em_nn_mel_spectrum(xr, xi, magnitude);
}

/** The real-FFT split, in place: pair k of z becomes the int64 spectrum bin k (bin half at z[N]).
 *  Only bins lo..hi - 1 (those some mel filter reads) are computed; the others hold 0. */
static void em_nn_mel_split(int32_t *z, int32_t half, const int32_t *twiddles, int32_t magnitude, int32_t lo,
                            int32_t hi)
{
    const int32_t z0r = z[0], z0i = z[1];
    em_nn_store_i64(z, lo <= 0 ? em_nn_mel_spectrum(2 * (z0r + z0i), 0, magnitude) : 0);
    em_nn_store_i64(z + 2 * half, hi > half ? em_nn_mel_spectrum(2 * (z0r - z0i), 0, magnitude) : 0);
    for (int32_t k = 1; 2 * k <= half; k++) {
        const int32_t m = half - k;
        int32_t *zk = z + 2 * k;
        int32_t *zm = z + 2 * m;
        const bool want_k = k >= lo && k < hi, want_m = m >= lo && m < hi;
        const int64_t bin_k = want_k ? em_nn_mel_bin(zk, zm, twiddles + 2 * k, magnitude) : 0;
        const int64_t bin_m = m == k ? bin_k : (want_m ? em_nn_mel_bin(zm, zk, twiddles + 2 * m, magnitude) : 0);
        em_nn_store_i64(zk, bin_k);
        em_nn_store_i64(zm, bin_m);
    }
}

/** The Q32 accumulator rounded to Q16, then float: int32 -> float32 rounds as the reference's
 *  conversion does, and the product by 2^-16 is exact. */
static inline float em_nn_mel_q16(int64_t acc)
{
    const int32_t q = (int32_t)((acc + (1LL << 31)) >> 32);
    return (float)q * 0x1p-16f;
}

/** The DCT when every log value fits int32 (the usual case): the values are first packed to
 *  int32 in place (word m <= word 2m, so ascending order is safe), then each coefficient is a
 *  32 x 32 -> 64 dot product — VMLALDAVA on MVE, SMLAL elsewhere — equal to the int64 sums. */
static void em_nn_mel_dct_narrow(int32_t *lm, const int32_t *dct, int32_t n_mels, int32_t coefficients,
                                 float *out)
{
    for (int32_t m = 0; m < n_mels; m++) {
        lm[m] = lm[2 * m]; /* the low word of a little-endian int64 that fits int32 */
    }
    for (int32_t c = 0; c < coefficients; c++) {
        const int32_t *row = dct + c * n_mels;
        int64_t acc = 0;
        int32_t m = 0;
#if EM_NN_TIER_MVE
        for (; m + 4 <= n_mels; m += 4) {
            acc = vmlaldavaq_s32(acc, vld1q_s32(row + m), vld1q_s32(lm + m));
        }
#endif
        for (; m < n_mels; m++) {
            acc += (int64_t)row[m] * lm[m];
        }
        out[c] = em_nn_mel_q16(acc);
    }
}

/** One frame: x [frame_length] -> out [coefficients or n_mels]. */
static void em_nn_mel_frame(const int16_t *x, const em_mel_features_params *p, const em_mel_features_tables *t,
                            int32_t lo, int32_t hi, int32_t *z, float *out)
{
    const int32_t half = p->fft_length / 2;
    const int32_t sh = em_nn_mel_load_frame(x, p, t->window, z);
    em_nn_mel_fft(z, half, t->twiddles);
    em_nn_mel_split(z, half, t->twiddles, p->magnitude, lo, hi);
    int32_t *lm = z + p->fft_length + 2; /* int64 [n_mels] */
    const int32_t exponent = p->magnitude ? 46 + sh : 79 + 2 * sh;
    const int16_t *w = t->mel_weights;
    bool narrow = true; /* every log value fits int32: the DCT can take 32 x 32 products */
    for (int32_t m = 0; m < p->n_mels; m++) {
        const int32_t *band = t->mel_bands + EM_NN_MEL_BAND_FIELDS * m;
        const int32_t start = band[0], count = band[1], eps_m = band[3];
        int64_t acc = 0;
        if (p->magnitude) { /* magnitudes are < 2^31: the low word is the value, one SMLAL each */
            for (int32_t j = 0; j < count; j++) {
                acc += (int64_t)w[j] * z[2 * (start + j)];
            }
        } else {
            for (int32_t j = 0; j < count; j++) {
                acc += (int64_t)w[j] * em_nn_load_i64(z + 2 * (start + j));
            }
        }
        w += count;
        /* eps · S_m · 2^E, E lowered by `drop` where it would pass 2^61 (acc shifted alike). */
        int32_t tt = band[4] + exponent;
        const int32_t drop = eps_m > 0 && tt > EM_NN_MEL_EPS_BITS ? tt - EM_NN_MEL_EPS_BITS : 0;
        tt -= drop;
        int64_t eps = 0;
        if (eps_m == 0) {
            eps = 0;
        } else if (tt >= 0) {
            eps = (int64_t)eps_m << tt;
        } else if (tt >= -31) {
            eps = ((int64_t)eps_m + (1LL << (-tt - 1))) >> -tt;
        }
        int64_t a = (drop > 62 ? 0 : acc >> drop) + eps; /* acc < 2^63 */
        a = a < 1 ? 1 : a;
        /* · 2^k, not << k: E − drop may be negative (a malformed program's), and shifting a
         * negative value is undefined; the same instructions either way. */
        const int64_t value = em_nn_log2_q24((uint64_t)a, t->log2_table)
                              - (int64_t)(exponent - drop) * ((int64_t)1 << EM_NN_MEL_LOG2_BITS) + band[2];
        em_nn_store_i64(lm + 2 * m, value);
        narrow = narrow && value == (int32_t)value;
    }
    if (p->coefficients > 0 && narrow) {
        em_nn_mel_dct_narrow(lm, t->dct, p->n_mels, p->coefficients, out);
        return;
    }
    const int32_t outputs = p->coefficients > 0 ? p->coefficients : p->n_mels;
    for (int32_t c = 0; c < outputs; c++) {
        int64_t acc;
        if (p->coefficients > 0) {
            const int32_t *row = t->dct + c * p->n_mels;
            acc = 0;
            for (int32_t m = 0; m < p->n_mels; m++) {
                acc += (int64_t)row[m] * em_nn_load_i64(lm + 2 * m);
            }
        } else {
            acc = em_nn_load_i64(lm + 2 * c) * p->log_scale;
        }
        out[c] = em_nn_mel_q16(acc);
    }
}

/* em_mel_features_s16_get_buffer_size(): em_nn_buffer_sizes.c */

em_nn_status em_mel_features_s16(const em_nn_context *ctx, const em_mel_features_params *p,
                                 const em_mel_features_tables *t, int32_t batches, const int16_t *audio,
                                 float *output)
{
    if (ctx == NULL || p == NULL || t == NULL || audio == NULL || output == NULL || batches < 1
        || p->fft_length < 8 || p->fft_length > 4096 || (p->fft_length & (p->fft_length - 1)) != 0
        || p->frame_length < 1 || p->frame_length > p->fft_length || p->frame_step < 1
        || p->samples < p->frame_length || p->n_mels < 1 || p->coefficients < 0
        || (p->coefficients > 0 && t->dct == NULL) || ctx->buf == NULL
        || ((uintptr_t)ctx->buf & 3u) != 0u
        || ctx->size < em_mel_features_s16_get_buffer_size(p->fft_length, p->n_mels)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t frames = (p->samples - p->frame_length) / p->frame_step + 1;
    const int32_t outputs = p->coefficients > 0 ? p->coefficients : p->n_mels;
    /* The scratch's int32 / int64 sums stay in range only over its own bytes: a scratch over the
     * audio or the features (only a malformed program places one there) would feed them others. */
    const uintptr_t z_bytes = (uintptr_t)ctx->size;
    if (!em_nn_bytes_apart(ctx->buf, z_bytes, audio, (uintptr_t)batches * (uintptr_t)p->samples * sizeof *audio)
        || !em_nn_bytes_apart(ctx->buf, z_bytes, output,
                              (uintptr_t)batches * (uintptr_t)frames * (uintptr_t)outputs * sizeof *output)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    int32_t lo = p->fft_length, hi = 0; /* the bins the mel filters read */
    for (int32_t m = 0; m < p->n_mels; m++) {
        const int32_t *band = t->mel_bands + EM_NN_MEL_BAND_FIELDS * m;
        if (band[1] > 0) {
            lo = band[0] < lo ? band[0] : lo;
            hi = band[0] + band[1] > hi ? band[0] + band[1] : hi;
        }
    }
    for (int32_t b = 0; b < batches; b++) {
        for (int32_t f = 0; f < frames; f++) {
            em_nn_mel_frame(audio + (size_t)b * (size_t)p->samples + (size_t)f * (size_t)p->frame_step, p, t,
                            lo, hi, (int32_t *)ctx->buf, output + ((size_t)b * (size_t)frames + (size_t)f) * (size_t)outputs);
        }
    }
    return EM_NN_OK;
}
