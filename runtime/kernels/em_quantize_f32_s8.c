/**
 * @file em_quantize_f32_s8.c
 * @brief float32 -> int8 quantization, exactly compiler/reference.py:quantize_f32_s8, and
 *        float32 -> int16 (A16W8, reference.quantize_f32_s16): one arithmetic, the output's
 *        range [lo, hi] and element width given to each path by its public function.
 *        Scalar path, and a Helium (MVE float) path behind em_nn_tier.h.
 *
 * Float32 only, and the product must not be fused with anything: build with -ffp-contract=off.
 *
 * MVE: four lanes per step (VMUL, VRINTN: round half to even, VADD, NaN -> zero point with
 * VCMP/VPSEL, clamp with VMAXNM/VMINNM, VCVT, narrowing store), the tail predicated (vctp32q),
 * never touching an element past count. Bit-exact with the scalar path whether or not the
 * hardware flushes denormals in vector operations (Armv8.1-M lets MVE use the "standard"
 * FPSCR behaviour, FZ = 1): it runs only when |inv_scale| is 0 or a normal number <= 2^125.
 * Then a denormal x gives |x * inv_scale| < 2^-126 * 2^125 = 0.5, which rounds to ±0 whether x
 * is flushed or not, and a denormal product rounds to ±0 too; both add up to the zero point.
 * Any other inv_scale (denormal, > 2^125, ±inf, NaN: never produced by the compiler) takes the
 * scalar path.
 *
 * Integer path (targets without VRINT: soft-float M3, FPv4 M4, hosts): the same bits from the
 * operands' bit patterns, without a float call. The exact product p = mx * mi of the two 24-bit
 * significands (UMULL) is rounded to 24 bits half-to-even (the float32 product), then to an
 * integer half-to-even (nearbyintf); |product| < 0.5 gives 0 and |product| >= 512 saturates
 * (|rounded| >= 256 clamps for every zero point in -128..127), so only normal results in between
 * are rounded and no overflow or denormal case exists. int16: |product| >= 2^17 saturates
 * (|rounded| >= 65536 clamps for every zero point in -32768..32767), so t <= 17 below. NaN x
 * gives the zero point, ±inf x saturates by sign. It runs when inv_scale is a finite normal number; 0, denormal, inf or NaN
 * (never produced by the compiler) take the float path.
 *
 * FPU without VRINT (FPv4, M4): the product in hardware, clamped to ±1024 (int16: ±2^17; the
 * result saturates beyond half that either way), then rounded half to even by adding and
 * subtracting 1.5 * 2^23 (exact nearbyintf for |p| <= 2^22 in the default rounding mode)
 * instead of libm's nearbyintf.
 */
#include <stdbool.h>

#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if !(defined(__ARM_FP) && (__ARM_FP & 4))
#define EM_NN_QUANTIZE_INT 1 /* no single-precision FPU: soft-float M3, hosts */
#else
#define EM_NN_QUANTIZE_INT 0
#endif
#if defined(__ARM_FP) && (__ARM_FP & 4) && !defined(__ARM_FEATURE_DIRECTED_ROUNDING) && \
    !EM_NN_MVE_FLOAT
#define EM_NN_QUANTIZE_MAGIC 1 /* an FPU without VRINT (FPv4, M4): nearbyintf is a libm call */
#else
#define EM_NN_QUANTIZE_MAGIC 0
#endif

#if EM_NN_MVE_FLOAT
#include <arm_mve.h>
#endif

/** Element @p i of the output: int8, or int16 where @p wide (a constant in every caller). */
static inline __attribute__((always_inline)) void em_nn_quantize_store(void *output, int32_t i, int32_t q, bool wide)
{
    if (wide) {
        ((int16_t *)output)[i] = (int16_t)q;
    } else {
        ((int8_t *)output)[i] = (int8_t)q;
    }
}

#if !EM_NN_QUANTIZE_MAGIC
/** q = clamp(nearbyint(x * inv_scale) + zp, lo, hi), NaN -> zp, one element at a time. */
static inline __attribute__((always_inline)) void em_nn_quantize_scalar(const float *input, int32_t count,
                                                                        float inv_scale, int32_t zero_point,
                                                                        void *output, bool wide)
{
    const float zp = (float)zero_point;
    const float lo = wide ? -32768.0f : -128.0f, hi = wide ? 32767.0f : 127.0f;
    for (int32_t i = 0; i < count; i++) {
        const float product = input[i] * inv_scale;
        /* The builtin, because firmware is built -ffreestanding (no implicit builtins): with an
         * FPv5 FPU it is one VRINTR (round to nearest even, the default mode); without one,
         * or on the host, it falls back to libm's nearbyintf. */
        float q = __builtin_nearbyintf(product) + zp;
        if (q != q) { /* NaN (x NaN, or inf * 0) */
            q = zp;
        }
        q = q < lo ? lo : q;
        q = q > hi ? hi : q;
        em_nn_quantize_store(output, i, (int32_t)q, wide);
    }
}
#endif

#if EM_NN_QUANTIZE_MAGIC
static inline __attribute__((always_inline)) void em_nn_quantize_magic(const float *input, int32_t count,
                                                                       float inv_scale, int32_t zero_point,
                                                                       void *output, bool wide)
{
    const float limit = wide ? 0x1p17f : 1024.0f; /* <= 2^22: the magic rounding is exact */
    const int32_t lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
    for (int32_t i = 0; i < count; i++) {
        float p = input[i] * inv_scale;
        if (p != p) { /* NaN (x NaN, or inf * 0) */
            em_nn_quantize_store(output, i, zero_point, wide);
            continue;
        }
        p = p < -limit ? -limit : p;
        p = p > limit ? limit : p;
        const float r = (p + 0x1.8p23f) - 0x1.8p23f; /* not reassociated: no -ffast-math */
        int32_t q = (int32_t)r + zero_point;
        q = q < lo ? lo : q;
        q = q > hi ? hi : q;
        em_nn_quantize_store(output, i, q, wide);
    }
}
#endif

#if EM_NN_QUANTIZE_INT
/** Bit pattern of a float (no aliasing: firmware is -ffreestanding, __builtin_memcpy inlines). */
static inline uint32_t em_nn_float_bits(float f)
{
    uint32_t b;
    __builtin_memcpy(&b, &f, sizeof b);
    return b;
}

/** The scalar path's q for one x, from bit patterns. mi: inv_scale's significand with its hidden
 *  bit (2^23..2^24-1); ei: its biased exponent (1..254); si: its sign bit; @p wide: int16
 *  (-32768..32767), else int8. */
static inline __attribute__((always_inline)) int32_t em_nn_quantize_one_int(uint32_t xb, uint32_t mi, int32_t ei,
                                                                            uint32_t si, int32_t zero_point,
                                                                            bool wide)
{
    const int32_t ex = (int32_t)((xb >> 23) & 0xFFu);
    const uint32_t negative = (xb >> 31) ^ si;
    /* |nearbyintf(x * inv_scale)|, or `saturated` (256, int16 65536) for anything that saturates */
    const int32_t saturated = wide ? 65536 : 256;
    int32_t rounded;
    if (ex == 0xFF) {
        if ((xb & 0x7FFFFFu) != 0u) {
            return zero_point; /* NaN */
        }
        rounded = saturated; /* ±inf */
    } else {
        /* x = mx * 2^(e - 150), denormals with e = 1 and no hidden bit. */
        const uint32_t mx = ex == 0 ? (xb & 0x7FFFFFu) : ((xb & 0x7FFFFFu) | 0x800000u);
        const int32_t k = (ex == 0 ? 1 : ex) + ei - 300; /* product = p * 2^k */
        const uint64_t p = (uint64_t)mx * mi;
        if (p == 0u) {
            return zero_point;
        }
        const int32_t len = 64 - __builtin_clzll(p); /* 24..48: mi >= 2^23 */
        const int32_t t = len + k;                   /* product in [2^(t-1), 2^t) */
        if (t <= -1) {
            return zero_point; /* < 0.5: the float product <= 0.5, nearbyint 0 */
        }
        if (t >= (wide ? 18 : 10)) {
            rounded = saturated; /* >= 512 (int16 2^17): the float product too, saturates */
        } else {
            /* Float32 product: 24 significant bits, half to even: m * 2^-s. */
            const int32_t d = len - 24;
            uint32_t m = (uint32_t)(p >> d);
            if (d > 0) {
                const uint64_t rem = p & ((1ull << d) - 1u);
                const uint64_t half = 1ull << (d - 1);
                m += (uint32_t)(rem > half || (rem == half && (m & 1u)));
            }
            const int32_t s = 24 - t; /* 15..24 (int16 7..24): 0.5 <= m * 2^-s <= 2^(t), m <= 2^24 */
            /* nearbyintf: to an integer, half to even. */
            const uint32_t r = m >> s;
            const uint32_t rem = m & ((1u << s) - 1u);
            const uint32_t half = 1u << (s - 1);
            rounded = (int32_t)(r + (uint32_t)(rem > half || (rem == half && (r & 1u))));
        }
    }
    const int32_t lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
    int32_t q = (negative ? -rounded : rounded) + zero_point;
    q = q < lo ? lo : q;
    q = q > hi ? hi : q;
    return q;
}

/** True when inv_scale is a finite normal number (the integer path's domain). */
static inline int em_nn_quantize_int_exact(float inv_scale)
{
    const int32_t e = (int32_t)((em_nn_float_bits(inv_scale) >> 23) & 0xFFu);
    return e != 0 && e != 0xFF;
}

static inline __attribute__((always_inline)) void em_nn_quantize_int(const float *input, int32_t count,
                                                                     float inv_scale, int32_t zero_point,
                                                                     void *output, bool wide)
{
    const uint32_t ib = em_nn_float_bits(inv_scale);
    const uint32_t mi = (ib & 0x7FFFFFu) | 0x800000u;
    const int32_t ei = (int32_t)((ib >> 23) & 0xFFu);
    const uint32_t si = ib >> 31;
    /* In place is fine: element i's float is read before output element i (at or below its
     * first byte) is written. */
    for (int32_t i = 0; i < count; i++) {
        em_nn_quantize_store(output, i, em_nn_quantize_one_int(em_nn_float_bits(input[i]), mi, ei, si, zero_point,
                                                               wide), wide);
    }
}
#endif

#if EM_NN_MVE_FLOAT
/** True when the MVE path gives the scalar path's bytes for every x (see the file comment). */
static inline int em_nn_quantize_mve_exact(float inv_scale)
{
    const float a = __builtin_fabsf(inv_scale);
    return a == 0.0f || (a >= 0x1p-126f && a <= 0x1p125f); /* false for NaN */
}

/** Four lanes per step. In place is fine: each step loads its 16 bytes before storing 4 (int16:
 *  8) bytes at an index <= the first float's, so no store overwrites a float not yet loaded. */
static inline __attribute__((always_inline)) void em_nn_quantize_mve(const float *input, int32_t count,
                                                                     float inv_scale, int32_t zero_point,
                                                                     void *output, bool wide)
{
    const float32x4_t zp = vdupq_n_f32((float)zero_point);
    const float32x4_t lo = vdupq_n_f32(wide ? -32768.0f : -128.0f);
    const float32x4_t hi = vdupq_n_f32(wide ? 32767.0f : 127.0f);
    for (int32_t i = 0; i < count; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(count - i));
        const float32x4_t x = vldrwq_z_f32(input + i, p);
        float32x4_t q = vaddq_f32(vrndnq_f32(vmulq_n_f32(x, inv_scale)), zp);
        q = vpselq_f32(zp, q, vcmpneq_f32(q, q)); /* NaN != NaN: lane takes the zero point */
        q = vminnmq_f32(vmaxnmq_f32(q, lo), hi);
        const int32x4_t codes = vcvtq_s32_f32(q); /* exact: q is an integer in lo..hi */
        if (wide) {
            vstrhq_p_s32((int16_t *)output + i, codes, p); /* narrowing store */
        } else {
            vstrbq_p_s32((int8_t *)output + i, codes, p);
        }
    }
}
#endif

/** The path for this tier and inv_scale, onto int8 or (@p wide) int16 codes. */
static inline __attribute__((always_inline)) void em_nn_quantize(const float *input, int32_t count, float inv_scale,
                                                                 int32_t zero_point, void *output, bool wide)
{
#if EM_NN_MVE_FLOAT
    if (em_nn_quantize_mve_exact(inv_scale)) {
        em_nn_quantize_mve(input, count, inv_scale, zero_point, output, wide);
        return;
    }
#endif
#if EM_NN_QUANTIZE_INT
    if (em_nn_quantize_int_exact(inv_scale)) {
        em_nn_quantize_int(input, count, inv_scale, zero_point, output, wide);
        return;
    }
#endif
#if EM_NN_QUANTIZE_MAGIC
    em_nn_quantize_magic(input, count, inv_scale, zero_point, output, wide);
#else
    em_nn_quantize_scalar(input, count, inv_scale, zero_point, output, wide);
#endif
}

em_nn_status em_quantize_f32_s8(const float *input, int32_t count, float inv_scale,
                                int32_t zero_point, int8_t *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_quantize(input, count, inv_scale, zero_point, output, false);
    return EM_NN_OK;
}

em_nn_status em_quantize_f32_s16(const float *input, int32_t count, float inv_scale,
                                 int32_t zero_point, int16_t *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL)) || zero_point < -32768
        || zero_point > 32767) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_quantize(input, count, inv_scale, zero_point, output, true);
    return EM_NN_OK;
}
