/**
 * @file em_nn_pool.h
 * @brief What the pooling kernels share, int8 (em_max_pool_s8.c, em_avg_pool_s8.c) and int16
 *        (A16W8: em_max_pool_s16.c, em_avg_pool_s16.c): the walk over the output pixels with
 *        each window clipped to the input, and the average pool's exact division.
 *        Internal (em_nn_*), static inline: each kernel compiles its own walk around its pixels.
 */
#ifndef EM_NN_POOL_H
#define EM_NN_POOL_H

#include <stdint.h>

#include "em_nn_tier.h"
#include "em_nn_types.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/** One output pixel's window, clipped to the input: rows x cols real cells (both >= 1 under
 *  em_pool_s8_validate()), the first at element @p first of the input. */
typedef struct {
    int32_t first; /**< element offset of channel 0 of the first real cell */
    int32_t rows, cols;
} em_nn_pool_window;

/**
 * Calls @p pixel(@p ctx, window, output element offset) for every output pixel, in order (batch,
 * row, column), each window clipped to the input (padding never visited). Always inlined, so the
 * kernel's pixel function (a constant) is called directly, or inlined, in its own loop.
 */
static inline __attribute__((always_inline)) void em_nn_pool_walk(const em_pool_params *params,
                                                                  const em_pool_dims *dims,
                                                                  void (*pixel)(void *, const em_nn_pool_window *,
                                                                                int32_t),
                                                                  void *ctx)
{
    /* Locals, not pointers: every store of the pixels may alias *params / *dims, forcing re-reads. */
    const em_pool_params p = *params;
    const em_pool_dims d = *dims;
    const int32_t height = d.input_h, width = d.input_w, channels = d.channels;
    const int32_t row_stride = width * channels;
    int32_t out = 0;
    for (int32_t n = 0; n < d.batches; n++) {
        const int32_t image = n * height * row_stride;
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            const int32_t y0 = oy * p.stride_h - p.pad_top;
            const int32_t y_lo = y0 > 0 ? y0 : 0;
            const int32_t y_hi = y0 + p.kernel_h < height ? y0 + p.kernel_h : height;
            for (int32_t ox = 0; ox < d.output_w; ox++, out += channels) {
                const int32_t x0 = ox * p.stride_w - p.pad_left;
                const int32_t x_lo = x0 > 0 ? x0 : 0;
                const int32_t x_hi = x0 + p.kernel_w < width ? x0 + p.kernel_w : width;
                const em_nn_pool_window w = {image + y_lo * row_stride + x_lo * channels, y_hi - y_lo, x_hi - x_lo};
                pixel(ctx, &w, out);
            }
        }
    }
}

/**
 * The average pool's exact division (em_avg_pool_s8.c's file comment): with u = Σ_real x +
 * bias, bias = B·count − real·zp (B = 256 for int8, 32768 for int16, so that count <= u <
 * 2B·count < 2^31 under the kernel's cell limit), round_half_even(total / count) + zp =
 * q + up + out_bias, q = floor(u / count), up = (2r + (q & 1) > count), out_bias = zp − B.
 */
static inline int32_t em_nn_avg_round(uint32_t u, uint32_t count, int32_t out_bias, int32_t act_min, int32_t act_max)
{
    const uint32_t q = u / count;
    const uint32_t r = u - q * count;
    const uint32_t up = 2u * r + (q & 1u) > count ? 1u : 0u;
    const int32_t v = (int32_t)(q + up) + out_bias;
    return v < act_min ? act_min : (v > act_max ? act_max : v);
}

#if EM_NN_TIER_MVE
/** em_nn_avg_round() of four sums by an exact reciprocal @p m = floor((2^32 − 1) / count)
 *  (VMULH.U32 and one correction: em_avg_pool_s8.c's file comment), clamped. */
static inline int32x4_t em_nn_avg_round_mve(int32x4_t sum, uint32_t count, uint32_t m, int32_t out_bias,
                                            int32_t act_min, int32_t act_max)
{
    const uint32x4_t u = vreinterpretq_u32_s32(sum);
    uint32x4_t q = vmulhq_u32(u, vdupq_n_u32(m));
    uint32x4_t r = vsubq_u32(u, vmulq_n_u32(q, count));
    const mve_pred16_t over = vcmpcsq_n_u32(r, count);
    q = vaddq_m_n_u32(q, q, 1u, over);
    r = vsubq_m_n_u32(r, r, count, over);
    const uint32x4_t t = vaddq_u32(vshlq_n_u32(r, 1), vandq_u32(q, vdupq_n_u32(1u)));
    q = vaddq_m_n_u32(q, q, 1u, vcmphiq_n_u32(t, count));
    const int32x4_t v = vaddq_n_s32(vreinterpretq_s32_u32(q), out_bias);
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}
#endif

#endif /* EM_NN_POOL_H */
