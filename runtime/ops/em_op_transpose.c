/**
 * @file em_op_transpose.c
 * @brief TRANSPOSE adapter: input [any rank <= 8] -> output with dimension k = input dimension
 *        perm[k] (TransposeOptions), INT8 / INT32 / FLOAT32, one dtype for both. check() bounds the
 *        input to em_strided_copy's half int32 range in bytes, so every stride and offset fits int32.
 */
#include "em_op_data_movement.h"

typedef struct {
    em_tensor input, output;
    em_nn_shape shape; /**< the input's */
    const int32_t *perm;
} em_transpose_args;

static em_status em_transpose_decode(const em_op_context *ctx, em_transpose_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_TRANSPOSE);
    if (s == EM_OK && !em_op_shape_of(&a->input, &a->shape)) s = EM_ERR_BAD_OPERATOR;
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_TRANSPOSE_OPTIONS_PERM, a->input.rank, &a->perm);
    return s;
}

static em_status em_transpose_check(const em_op_context *ctx)
{
    em_transpose_args a;
    const em_status s = em_transpose_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_movable(&a.input, &a.output) || a.output.rank != a.input.rank
        || !em_op_span_ok((int64_t)em_tensor_elements(&a.input) - 1, em_op_element_size(a.input.dtype))) {
        return EM_ERR_BAD_OPERATOR;
    }
    bool seen[EM_NN_MAX_RANK] = {false};
    for (int32_t k = 0; k < a.input.rank; k++) {
        const int32_t p = a.perm[k];
        if (p < 0 || p >= a.input.rank || seen[p] || em_op_dim(&a.output, k) != a.shape.dims[p]) {
            return EM_ERR_BAD_OPERATOR;
        }
        seen[p] = true;
    }
    return EM_OK;
}

static em_status em_transpose_eval(const em_op_context *ctx)
{
    em_transpose_args a;
    const em_status s = em_transpose_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(em_transpose(a.input.data, &a.shape, a.perm, em_op_element_size(a.input.dtype),
                                     a.output.data));
}

const em_op_registration em_op_transpose = {EM_OP_TRANSPOSE, "transpose", EM_OP_CHECK(em_transpose_check),
                                            EM_OP_EVAL(em_transpose_eval)};
