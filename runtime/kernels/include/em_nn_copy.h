/**
 * @file em_nn_copy.h
 * @brief Internal: the byte copies under the data-movement kernels (em_strided_copy, em_pad,
 *        em_upsample_nearest), one path per tier where it was measured to pay
 *        (tools/bench_data_movement.py, instructions in QEMU).
 *
 * - em_nn_copy_bytes: MVE copies 16 bytes a step with tail predication (the library memcpy
 *   costs tens of instructions a call, and data movement copies many short runs: a channel
 *   vector, a pixel); other tiers copy runs of up to 16 bytes inline (by words when aligned)
 *   and call memmove beyond.
 * - em_nn_gather_bytes: bytes at a stride (a transpose's innermost axis); MVE gathers 8 a
 *   step with 16-bit offsets (stride <= 9362, so 7 · stride fits), else one by one.
 */
#ifndef EM_NN_COPY_H
#define EM_NN_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/** Largest run the scalar tiers copy inline rather than through memmove. */
#define EM_NN_COPY_INLINE_BYTES 16

/** Copies @p n >= 0 bytes from @p in to @p out. Ranges that overlap (only a malformed program
 *  places an output over its input) are defined behaviour, their bytes unspecified. */
static inline void em_nn_copy_bytes(uint8_t *out, const uint8_t *in, int32_t n)
{
#if EM_NN_TIER_MVE
    for (int32_t i = 0; i < n; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(n - i));
        vstrbq_p_u8(out + i, vldrbq_z_u8(in + i, p), p);
    }
#else
    if (n > EM_NN_COPY_INLINE_BYTES) {
        /* memmove, not memcpy: defined on overlap (see above); __builtin_: -ffreestanding firmware */
        __builtin_memmove(out, in, (size_t)n);
        return;
    }
    if ((((uintptr_t)out | (uintptr_t)in | (uint32_t)n) & 3u) == 0u) {
        for (int32_t i = 0; i < n; i += 4) { /* whole words: one LDR / STR each */
            uint32_t word;
            __builtin_memcpy(&word, in + i, 4);
            __builtin_memcpy(out + i, &word, 4);
        }
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        out[i] = in[i];
    }
#endif
}

/** out[i] = in[i · stride] for i < n (bytes; stride >= 0). */
static inline void em_nn_gather_bytes(uint8_t *out, const uint8_t *in, int32_t n, int32_t stride)
{
    int32_t i = 0;
#if EM_NN_TIER_MVE
    if (stride <= 9362) {
        const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0u, 1), (uint16_t)stride);
        for (; i < n; i += 8) {
            const mve_pred16_t p = vctp16q((uint32_t)(n - i));
            const uint16x8_t v = vldrbq_gather_offset_z_u16(in + (ptrdiff_t)i * stride, offsets, p);
            vstrbq_p_u16(out + i, v, p);
        }
        return;
    }
#endif
    for (; i < n; i++) {
        out[i] = in[(ptrdiff_t)i * stride];
    }
}

#endif /* EM_NN_COPY_H */
