/**
 * @file em_op_softmax.c
 * @brief SOFTMAX adapter: int8 [..., C] -> int8 [..., C] over the last axis, SoftmaxOptions.
 *        check() bounds the row to 1..EM_SOFTMAX_MAX_ROW (the Q12.19 sum stays in int32), the left
 *        shift to 0..31, the multiplier to >= 0 and diff_min to <= 0 (em_softmax_s8_params_valid).
 *        An attention mask (mask_rows > 0): causal 1 with no second input, or causal 0 with the
 *        int8 mask [mask_rows, C] as the second input; mask_rows divides the rows. An optional
 *        second output is the kernel's scratch (em_softmax_s8_get_buffer_size(): its table of
 *        exponentials).
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, mask, output, scratch;
    uint32_t n_inputs;
    em_softmax_params params;
    int32_t mask_rows, causal;
} em_softmax_args;

static em_status em_softmax_decode(const em_op_context *ctx, em_softmax_args *a)
{
    em_softmax_params *p = &a->params;
    em_tensor inputs[2] = {{0}, {0}};
    a->n_inputs = ctx->inputs.len == 2u ? 2u : 1u;
    em_status s = em_op_operands_scratch(ctx, inputs, a->n_inputs, &a->output, &a->scratch);
    a->input = inputs[0];
    a->mask = inputs[1];
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_SOFTMAX);
    /* slots INPUT_MULTIPLIER (0) .. DIFF_MIN (2) are em_softmax_params' fields in order */
    _Static_assert(sizeof(em_softmax_params) == 3u * sizeof(int32_t) && EM_SOFTMAX_OPTIONS_INPUT_MULTIPLIER == 0
                       && EM_SOFTMAX_OPTIONS_INPUT_LEFT_SHIFT == 1 && EM_SOFTMAX_OPTIONS_DIFF_MIN == 2,
                   "em_softmax_params must be the options' slots 0..2 in order");
    static const int8_t defaults[3] = {0, 0, 0};
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 3u, (int32_t *)(void *)p);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_SOFTMAX_OPTIONS_MASK_ROWS, 0, &a->mask_rows);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_SOFTMAX_OPTIONS_CAUSAL, 0, &a->causal);
    return s;
}

static int32_t em_softmax_row(const em_tensor *t)
{
    return em_op_dim(t, t->rank - 1);
}

/** The mask options and operand agree: none (one input), causal (one input), or an int8
 *  [mask_rows, row] second input; mask_rows divides the rows. */
static bool em_softmax_mask_valid(const em_softmax_args *a, int32_t row)
{
    if (a->mask_rows == 0) {
        return a->causal == 0 && a->n_inputs == 1u;
    }
    const uint32_t rows = em_tensor_elements(&a->input) / (uint32_t)row;
    if (a->mask_rows < 0 || rows % (uint32_t)a->mask_rows != 0u || (a->causal != 0 && a->causal != 1)) {
        return false;
    }
    if (a->causal == 1) {
        return a->n_inputs == 1u;
    }
    return a->n_inputs == 2u && em_op_is(&a->mask, EM_DTYPE_INT8, 2) && em_op_dim(&a->mask, 0) == a->mask_rows
           && em_op_dim(&a->mask, 1) == row;
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
        || !em_softmax_s8_params_valid(&a.params, em_softmax_row(&a.input))
        || !em_softmax_mask_valid(&a, em_softmax_row(&a.input))) {
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
    const int32_t rows = (int32_t)(em_tensor_elements(&a.input) / (uint32_t)row);
    const em_nn_context nn = {a.scratch.data, (int32_t)a.scratch.size, 0u}; /* arena: 16-byte aligned */
    if (a.mask_rows == 0) {
        return em_op_status(em_softmax_s8(&nn, &a.params, rows, row, (const int8_t *)a.input.data,
                                          (int8_t *)a.output.data));
    }
    const em_softmax_mask mask = {a.mask_rows, a.causal, a.causal ? NULL : (const int8_t *)a.mask.data};
    return em_op_status(em_softmax_masked_s8(&nn, &a.params, &mask, rows, row, (const int8_t *)a.input.data,
                                             (int8_t *)a.output.data));
}

const em_op_registration em_op_softmax = {EM_OP_SOFTMAX, "softmax", EM_OP_CHECK(em_softmax_check),
                                          EM_OP_EVAL(em_softmax_eval)};
