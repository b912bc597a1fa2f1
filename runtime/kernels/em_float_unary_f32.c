/**
 * @file em_float_unary_f32.c
 * @brief Float elementwise functions: one per em_float_unary_function in a table. The libm calls
 *        are GCC builtins so that -ffreestanding firmware still gets one instruction where the
 *        FPU has it (VSQRT, VABS) and newlib's libm otherwise. The table's functions are named
 *        em_nn_float_fn_*: the static stack bound resolves the kernels' indirect calls to them.
 */
#include <stddef.h>

#include "em_nn_float_support.h"

typedef float (*em_nn_float_unary_fn)(float x, const em_float_unary_params *p);

#define EM_NN_SQRT1_2 0.70710678118654752f      /* 1 / sqrt(2) */
#define EM_NN_SQRT_2_OVER_PI 0.79788456080286536f /* sqrt(2 / pi) */

static float em_nn_float_fn_clamp(float x, const em_float_unary_params *p) { return em_nn_float_clamp(x, p->min, p->max); }
static float em_nn_float_fn_sigmoid(float x, const em_float_unary_params *p) { (void)p; return 1.0f / (1.0f + __builtin_expf(-x)); }
static float em_nn_float_fn_tanh(float x, const em_float_unary_params *p) { (void)p; return __builtin_tanhf(x); }
static float em_nn_float_fn_exp(float x, const em_float_unary_params *p) { (void)p; return __builtin_expf(x); }
static float em_nn_float_fn_log(float x, const em_float_unary_params *p) { (void)p; return __builtin_logf(x); }
static float em_nn_float_fn_sqrt(float x, const em_float_unary_params *p) { (void)p; return __builtin_sqrtf(x); }
static float em_nn_float_fn_rsqrt(float x, const em_float_unary_params *p) { (void)p; return 1.0f / __builtin_sqrtf(x); }
static float em_nn_float_fn_abs(float x, const em_float_unary_params *p) { (void)p; return __builtin_fabsf(x); }
static float em_nn_float_fn_neg(float x, const em_float_unary_params *p) { (void)p; return -x; }

static float em_nn_float_fn_gelu(float x, const em_float_unary_params *p)
{
    (void)p;
    return x * 0.5f * (1.0f + __builtin_erff(x * EM_NN_SQRT1_2));
}

static float em_nn_float_fn_gelu_tanh(float x, const em_float_unary_params *p)
{
    (void)p;
    const float inner = EM_NN_SQRT_2_OVER_PI * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + __builtin_tanhf(inner));
}

static float em_nn_float_fn_silu(float x, const em_float_unary_params *p) { (void)p; return x / (1.0f + __builtin_expf(-x)); }
static float em_nn_float_fn_hardswish(float x, const em_float_unary_params *p) { (void)p; return x * em_nn_float_clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f; }
static float em_nn_float_fn_hardsigmoid(float x, const em_float_unary_params *p) { (void)p; return em_nn_float_clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f; }
static float em_nn_float_fn_leaky_relu(float x, const em_float_unary_params *p) { return x > 0.0f ? x : x * p->alpha; }

/** Indexed by em_float_unary_function. */
static const em_nn_float_unary_fn em_nn_float_unary_table[EM_FLOAT_UNARY_COUNT] = {
    em_nn_float_fn_clamp, em_nn_float_fn_sigmoid, em_nn_float_fn_tanh, em_nn_float_fn_exp, em_nn_float_fn_log,
    em_nn_float_fn_sqrt, em_nn_float_fn_rsqrt, em_nn_float_fn_abs, em_nn_float_fn_neg, em_nn_float_fn_gelu,
    em_nn_float_fn_gelu_tanh, em_nn_float_fn_silu, em_nn_float_fn_hardswish, em_nn_float_fn_hardsigmoid,
    em_nn_float_fn_leaky_relu,
};

/* noinline: as em_float_binary_f32, for the static stack bound under LTO. */
__attribute__((noinline)) em_nn_status em_float_unary_f32(int32_t function, const em_float_unary_params *params,
                                                          const float *input, int32_t count, float *output)
{
    if (function < 0 || function >= EM_FLOAT_UNARY_COUNT || params == NULL || count < 0
        || (count > 0 && (input == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_nn_float_unary_fn fn = em_nn_float_unary_table[function];
    for (int32_t i = 0; i < count; i++) {
        output[i] = fn(input[i], params);
    }
    return EM_NN_OK;
}
