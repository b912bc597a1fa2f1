/**
 * @file em_op_norm.c
 * @brief NORM adapter: x int8 [..., D], multiplier int32 [D], bias int32 [D] -> int8 of x's shape,
 *        layer norm or RMS norm over the last axis then the per-channel affine, NormOptions.
 *        check() requires matching shapes and em_norm_s8_params_valid() (D 1..EM_NORM_MAX_DEPTH,
 *        every fixed-point field within the range that keeps the kernel's arithmetic exact).
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

enum { EM_NORM_INPUT, EM_NORM_MULTIPLIER, EM_NORM_BIAS, EM_NORM_N_INPUTS };

typedef struct {
    em_tensor in[EM_NORM_N_INPUTS];
    em_tensor output;
    em_norm_params params;
} em_norm_args;

static em_status em_norm_decode(const em_op_context *ctx, em_norm_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_NORM_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_NORM);
    /* slots MODE (0) .. OUTPUT_SHIFT (6) are em_norm_params' fields in order */
    _Static_assert(sizeof(em_norm_params) == 7u * sizeof(int32_t) && EM_NORM_OPTIONS_MODE == 0
                       && EM_NORM_OPTIONS_INPUT_ZERO_POINT == 1 && EM_NORM_OPTIONS_OUTPUT_SHIFT == 6,
                   "em_norm_params must be the options' slots 0..6 in order");
    static const int8_t defaults[7] = {0, 0, 0, 0, 0, 0, 0};
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 7u, (int32_t *)(void *)&a->params);
    return s;
}

static int32_t em_norm_depth(const em_tensor *t)
{
    return em_op_dim(t, t->rank - 1);
}

static em_status em_norm_check(const em_op_context *ctx)
{
    em_norm_args a;
    const em_status s = em_norm_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *x = &a.in[EM_NORM_INPUT];
    if (x->dtype != EM_DTYPE_INT8 || a.output.dtype != EM_DTYPE_INT8 || x->rank < 1 || a.output.rank != x->rank
        || em_tensor_elements(x) != em_tensor_elements(&a.output) || em_norm_depth(x) != em_norm_depth(&a.output)
        || !em_norm_s8_params_valid(&a.params, em_norm_depth(x))
        || !em_op_is(&a.in[EM_NORM_MULTIPLIER], EM_DTYPE_INT32, 1) || !em_op_is(&a.in[EM_NORM_BIAS], EM_DTYPE_INT32, 1)
        || em_op_dim(&a.in[EM_NORM_MULTIPLIER], 0) != em_norm_depth(x)
        || em_op_dim(&a.in[EM_NORM_BIAS], 0) != em_norm_depth(x)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_norm_eval(const em_op_context *ctx)
{
    em_norm_args a;
    const em_status s = em_norm_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t depth = em_norm_depth(&a.in[EM_NORM_INPUT]);
    return em_op_status(em_norm_s8(&a.params, (int32_t)(em_tensor_elements(&a.output) / (uint32_t)depth), depth,
                                   (const int8_t *)a.in[EM_NORM_INPUT].data,
                                   (const int32_t *)a.in[EM_NORM_MULTIPLIER].data,
                                   (const int32_t *)a.in[EM_NORM_BIAS].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_norm = {EM_OP_NORM, "norm", EM_OP_CHECK(em_norm_check), EM_OP_EVAL(em_norm_eval)};
