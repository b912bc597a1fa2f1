/**
 * @file em_op_slice.c
 * @brief SLICE adapter: input [any rank <= 8] -> output of the same rank, out[i] =
 *        in[begin + i * step] along every dimension (SliceOptions; size = the output's shape),
 *        INT8 / INT32 / FLOAT32, one dtype for both. check() bounds begin >= 0, step >= 1 and
 *        begin + step·(size − 1) within the input dim, each input stride·step within int32 and the
 *        farthest element read within em_strided_copy's half int32 range in bytes.
 */
#include "em_op_data_movement.h"

typedef struct {
    em_tensor input, output;
    em_nn_shape in_shape, out_shape;
    const int32_t *begin, *step, *size;
} em_slice_args;

static em_status em_slice_decode(const em_op_context *ctx, em_slice_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_SLICE);
    if (s == EM_OK && (!em_op_shape_of(&a->input, &a->in_shape) || !em_op_shape_of(&a->output, &a->out_shape))) {
        s = EM_ERR_BAD_OPERATOR;
    }
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_SLICE_OPTIONS_BEGIN, a->input.rank, &a->begin);
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_SLICE_OPTIONS_STEP, a->input.rank, &a->step);
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_SLICE_OPTIONS_SIZE, a->input.rank, &a->size);
    return s;
}

static em_status em_slice_check(const em_op_context *ctx)
{
    em_slice_args a;
    const em_status s = em_slice_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_movable(&a.input, &a.output) || a.output.rank != a.input.rank) {
        return EM_ERR_BAD_OPERATOR;
    }
    int64_t stride = 1, span = 0; /* em_slice's strides (elements) and the farthest element it reads */
    for (int32_t k = a.input.rank - 1; k >= 0; k--) {
        const int64_t last = a.begin[k] + (int64_t)(a.out_shape.dims[k] - 1) * a.step[k];
        if (a.size[k] != a.out_shape.dims[k] || a.begin[k] < 0 || a.step[k] < 1 || last >= a.in_shape.dims[k]
            || stride * a.step[k] > INT32_MAX) {
            return EM_ERR_BAD_OPERATOR;
        }
        span += (int64_t)(a.out_shape.dims[k] - 1) * a.step[k] * stride;
        stride *= a.in_shape.dims[k];
    }
    return em_op_span_ok(span, em_op_element_size(a.input.dtype)) ? EM_OK : EM_ERR_BAD_OPERATOR;
}

static em_status em_slice_eval(const em_op_context *ctx)
{
    em_slice_args a;
    const em_status s = em_slice_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(em_slice(a.input.data, &a.in_shape, a.begin, a.step, &a.out_shape,
                                 em_op_element_size(a.input.dtype), a.output.data));
}

const em_op_registration em_op_slice = {EM_OP_SLICE, "slice", EM_OP_CHECK(em_slice_check), EM_OP_EVAL(em_slice_eval)};
