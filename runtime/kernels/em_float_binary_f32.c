/**
 * @file em_float_binary_f32.c
 * @brief Float elementwise binary ops with NumPy broadcasting: one function per
 *        em_float_binary_function in a table (em_nn_float_fn_*, as the static stack bound expects),
 *        an odometer over the output's axes.
 */
#include <stddef.h>

#include "em_nn_float_support.h"

typedef float (*em_nn_float_binary_fn)(float a, float b);

static float em_nn_float_fn_add(float a, float b) { return a + b; }
static float em_nn_float_fn_sub(float a, float b) { return a - b; }
static float em_nn_float_fn_mul(float a, float b) { return a * b; }
static float em_nn_float_fn_div(float a, float b) { return a / b; }
/* NaN in either operand propagates (torch.minimum / maximum). */
static float em_nn_float_fn_minimum(float a, float b) { return (a < b || a != a) ? a : b; }
static float em_nn_float_fn_maximum(float a, float b) { return (a > b || a != a) ? a : b; }

/** Indexed by em_float_binary_function. */
static const em_nn_float_binary_fn em_nn_float_binary_table[EM_FLOAT_BINARY_COUNT] = {
    em_nn_float_fn_add, em_nn_float_fn_sub, em_nn_float_fn_mul, em_nn_float_fn_div, em_nn_float_fn_minimum,
    em_nn_float_fn_maximum,
};

/* noinline: its calls through the table stay in a function of this name, which the static stack
 * bound resolves them by (stack_bound.py KERNEL_POINTERS); LTO would inline it into its adapter. */
__attribute__((noinline)) em_nn_status em_float_binary_f32(int32_t function, const em_float_broadcast_dims *dims,
                                                           const float *a, const float *b, em_float_activation act,
                                                           float *output)
{
    if (function < 0 || function >= EM_FLOAT_BINARY_COUNT || dims == NULL || a == NULL || b == NULL
        || output == NULL || dims->rank < 1 || dims->rank > EM_FLOAT_MAX_RANK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_nn_float_binary_fn fn = em_nn_float_binary_table[function];
    const int32_t last = dims->rank - 1;
    const int32_t inner = dims->shape[last];
    const int32_t a_step = dims->a_stride[last];
    const int32_t b_step = dims->b_stride[last];
    int32_t index[EM_FLOAT_MAX_RANK] = {0};
    size_t a_at = 0, b_at = 0;
    float *out = output;
    for (;;) {
        for (int32_t i = 0; i < inner; i++) { /* the innermost axis as one run */
            *out++ = em_nn_float_clamp(fn(a[a_at + (size_t)i * (size_t)a_step], b[b_at + (size_t)i * (size_t)b_step]),
                                       act.min, act.max);
        }
        int32_t axis = last - 1; /* carry into the outer axes */
        while (axis >= 0) {
            index[axis]++;
            a_at += (size_t)dims->a_stride[axis];
            b_at += (size_t)dims->b_stride[axis];
            if (index[axis] < dims->shape[axis]) {
                break;
            }
            a_at -= (size_t)dims->a_stride[axis] * (size_t)dims->shape[axis];
            b_at -= (size_t)dims->b_stride[axis] * (size_t)dims->shape[axis];
            index[axis] = 0;
            axis--;
        }
        if (axis < 0) {
            return EM_NN_OK;
        }
    }
}
