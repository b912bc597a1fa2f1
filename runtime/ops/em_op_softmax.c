/**
 * @file em_op_softmax.c
 * @brief SOFTMAX adapter: int8 [..., C] -> int8 [..., C] over the last axis, SoftmaxOptions.
 *        check() bounds the row to 1..EM_SOFTMAX_MAX_ROW (the Q12.19 sum stays in int32), the left
 *        shift to 0..31, the multiplier to >= 0 and diff_min to <= 0 (em_softmax_s8_params_valid).
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    em_softmax_params params;
} em_softmax_args;

static em_status em_softmax_decode(const em_op_context *ctx, em_softmax_args *a)
{
    em_softmax_params *p = &a->params;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_SOFTMAX);
    /* slots INPUT_MULTIPLIER (0) .. DIFF_MIN (2) are em_softmax_params' fields in order */
    _Static_assert(sizeof(em_softmax_params) == 3u * sizeof(int32_t) && EM_SOFTMAX_OPTIONS_INPUT_MULTIPLIER == 0
                       && EM_SOFTMAX_OPTIONS_INPUT_LEFT_SHIFT == 1 && EM_SOFTMAX_OPTIONS_DIFF_MIN == 2,
                   "em_softmax_params must be the options' slots 0..2 in order");
    static const int8_t defaults[3] = {0, 0, 0};
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 3u, (int32_t *)(void *)p);
    return s;
}

static int32_t em_softmax_row(const em_tensor *t)
{
    return em_op_dim(t, t->rank - 1);
}

static em_status em_softmax_check(const em_op_context *ctx)
{
    em_softmax_args a;
    const em_status s = em_softmax_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    /* the row length and options' ranges: the kernel's own check, one copy for load and invoke */
    if (a.input.dtype != EM_DTYPE_INT8 || a.output.dtype != EM_DTYPE_INT8 || a.input.rank < 1
        || a.output.rank != a.input.rank || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_softmax_row(&a.input) != em_softmax_row(&a.output)
        || !em_softmax_s8_params_valid(&a.params, em_softmax_row(&a.input))) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_softmax_eval(const em_op_context *ctx)
{
    em_softmax_args a;
    const em_status s = em_softmax_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t row = em_softmax_row(&a.input);
    return em_op_status(em_softmax_s8(&a.params, (int32_t)(em_tensor_elements(&a.input) / (uint32_t)row), row,
                                      (const int8_t *)a.input.data, (int8_t *)a.output.data));
}

const em_op_registration em_op_softmax = {EM_OP_SOFTMAX, "softmax", EM_OP_CHECK(em_softmax_check),
                                          EM_OP_EVAL(em_softmax_eval)};
