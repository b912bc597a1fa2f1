/**
 * @file em_pad.c
 * @brief Constant pad of any rank and element size, exactly compiler/reference.py:pad.
 *
 * The output is filled with the value, then each input run lands at its padded place; a run is
 * the innermost dimension together with the unpadded dimensions inside it (e.g. a whole
 * W x C row when only H and W are padded), so it is one copy.
 * int16 borders (A16W8, and a front end's raw audio): the fill writes 8 halfwords a step on
 * Helium (VSTRH, the tail predicated by VCTP16), two a word elsewhere; every tier writes the
 * same bytes (the value's, element after element).
 */
#include <stddef.h>

#include "em_nn_copy.h"
#include "em_nn_data_movement.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/** @p count int16 copies of @p value at @p out (2-aligned). */
static void em_pad_fill_s16(int16_t *out, int32_t count, int16_t value)
{
    int32_t i = 0;
#if EM_NN_TIER_MVE
    const int16x8_t v = vdupq_n_s16(value);
    for (; i < count; i += 8) {
        vstrhq_p_s16(out + i, v, vctp16q((uint32_t)(count - i)));
    }
#else
    if (((uintptr_t)out & 2u) != 0u && count > 0) { /* to a word boundary */
        out[0] = value;
        i = 1;
    }
    const uint32_t pair = 0x00010001u * (uint16_t)value;
    for (; i + 2 <= count; i += 2) {
        __builtin_memcpy(out + i, &pair, sizeof pair); /* one STR: out + i is word-aligned */
    }
    if (i < count) {
        out[i] = value;
    }
#endif
}

static void em_pad_fill(uint8_t *out, int32_t count, const uint8_t *value, int32_t element_size)
{
    if (element_size == 1) {
        __builtin_memset(out, value[0], (size_t)count);
        return;
    }
    if (element_size == 2 && ((uintptr_t)out & 1u) == 0u) {
        int16_t v;
        __builtin_memcpy(&v, value, sizeof v);
        em_pad_fill_s16((int16_t *)(void *)out, count, v);
        return;
    }
    for (int32_t i = 0; i < count; i++) {
        __builtin_memcpy(out + (size_t)i * (size_t)element_size, value, (size_t)element_size);
    }
}

em_nn_status em_pad(const void *input, const em_nn_shape *in_shape, const int32_t *before, const int32_t *after,
                    const void *value, int32_t element_size, void *output)
{
    if (input == NULL || in_shape == NULL || before == NULL || after == NULL || value == NULL || output == NULL
        || in_shape->rank < 0 || in_shape->rank > EM_NN_MAX_RANK
        || !(element_size == 1 || element_size == 2 || element_size == 4)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t rank = in_shape->rank;
    int32_t out_strides[EM_NN_MAX_RANK];
    int64_t out_total = 1, in_total = 1, base = 0;
    for (int32_t k = rank - 1; k >= 0; k--) {
        const int64_t out_dim = (int64_t)before[k] + in_shape->dims[k] + after[k];
        /* half the int32 range in bytes: the run offsets below stay exact in int32 */
        if (before[k] < 0 || after[k] < 0 || in_shape->dims[k] < 1 || out_total * out_dim > INT32_MAX / 2 / element_size) {
            return EM_NN_ERR_BAD_ARGUMENT;
        }
        out_strides[k] = (int32_t)out_total;
        base += out_total * before[k];
        out_total *= out_dim;
        in_total *= in_shape->dims[k];
    }
    uint8_t *out = (uint8_t *)output;
    const uint8_t *in = (const uint8_t *)input;
    em_pad_fill(out, (int32_t)out_total, (const uint8_t *)value, element_size);
    int32_t first = rank > 0 ? rank - 1 : 0; /* the run is dims[first..rank-1] */
    while (first > 0 && before[first] == 0 && after[first] == 0) {
        first--;
    }
    int32_t run = 1;
    for (int32_t k = first; k < rank; k++) {
        run *= in_shape->dims[k];
    }
    const int32_t rows = (int32_t)(in_total / run);
    int32_t index[EM_NN_MAX_RANK] = {0};
    int32_t offset = (int32_t)base; /* output element of the current run's first input element (< out_total) */
    for (int32_t row = 0; row < rows; row++) {
        em_nn_copy_bytes(out + offset * element_size, in, run * element_size);
        in += run * element_size;
        for (int32_t d = first - 1; d >= 0; d--) {
            offset += out_strides[d];
            if (++index[d] < in_shape->dims[d]) {
                break;
            }
            offset -= out_strides[d] * in_shape->dims[d];
            index[d] = 0;
        }
    }
    return EM_NN_OK;
}
