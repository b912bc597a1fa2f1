/**
 * @file em_op_concatenation.c
 * @brief CONCATENATION adapter: 1..EM_CONCAT_MAX_INPUTS int8 tensors of one rank, equal except
 *        along `axis`, -> int8 output whose axis is their sum (ConcatenationOptions); or int16 ones
 *        (a streamed front end's audio history and new samples). The inputs share the output's
 *        quantization, so each is a strided copy of bytes (em_concat_copy_s8, int16 rows as twice
 *        the bytes). check() requires one dtype, every dim >= 1, the axis sizes to sum (in int64)
 *        to the output's and the output to hold at most INT32_MAX bytes, so rows, row lengths and
 *        offsets in bytes fit int32.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

#define EM_CONCAT_MAX_INPUTS 8u

typedef struct {
    em_tensor in[EM_CONCAT_MAX_INPUTS];
    uint32_t n_inputs;
    em_tensor output;
    int32_t axis;
} em_concat_args;

static em_status em_concat_decode(const em_op_context *ctx, em_concat_args *a)
{
    a->n_inputs = ctx->inputs.len;
    if (a->n_inputs < 1u || a->n_inputs > EM_CONCAT_MAX_INPUTS) {
        return EM_ERR_BAD_OPERATOR;
    }
    em_status s = em_op_operands(ctx, a->in, a->n_inputs, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_CONCATENATION);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONCATENATION_OPTIONS_AXIS, 0, &a->axis);
    return s;
}

/** Product of @p t's dimensions in [from, to). */
static int64_t em_concat_span(const em_tensor *t, int32_t from, int32_t to)
{
    int64_t n = 1;
    for (int32_t i = from; i < to; i++) {
        n *= em_op_dim(t, i);
    }
    return n;
}

/** Bytes per element of @p t (an int8 or int16 tensor: check() admits no other). */
static int32_t em_concat_bytes(const em_tensor *t)
{
    return t->dtype == EM_DTYPE_INT16 ? 2 : 1;
}

static em_status em_concat_check(const em_op_context *ctx)
{
    em_concat_args a;
    const em_status s = em_concat_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *out = &a.output;
    if ((out->dtype != EM_DTYPE_INT8 && out->dtype != EM_DTYPE_INT16) || a.axis < 0 || a.axis >= out->rank) {
        return EM_ERR_BAD_OPERATOR;
    }
    int64_t axis_total = 0;
    for (uint32_t k = 0; k < a.n_inputs; k++) {
        const em_tensor *t = &a.in[k];
        if (t->dtype != out->dtype || t->rank != out->rank || em_op_dim(t, a.axis) < 1) {
            return EM_ERR_BAD_OPERATOR;
        }
        for (int32_t i = 0; i < out->rank; i++) {
            if (i != a.axis && em_op_dim(t, i) != em_op_dim(out, i)) {
                return EM_ERR_BAD_OPERATOR;
            }
        }
        axis_total += em_op_dim(t, a.axis);
    }
    if (axis_total != em_op_dim(out, a.axis) || em_concat_span(out, 0, out->rank) * em_concat_bytes(out) > INT32_MAX
        || em_concat_span(out, 0, out->rank) < 1) { /* em_concat_copy_s8 takes no empty row or input */
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_concat_eval(const em_op_context *ctx)
{
    em_concat_args a;
    em_status s = em_concat_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    /* rows of bytes: an int16 row is twice its elements (a copy needs no more of the type) */
    const int32_t bytes = em_concat_bytes(&a.output);
    const int32_t outer = (int32_t)em_concat_span(&a.output, 0, a.axis);
    const int32_t output_inner = (int32_t)em_concat_span(&a.output, a.axis, a.output.rank) * bytes;
    int32_t offset = 0;
    for (uint32_t k = 0; s == EM_OK && k < a.n_inputs; k++) {
        const int32_t inner = (int32_t)em_concat_span(&a.in[k], a.axis, a.in[k].rank) * bytes;
        s = em_op_status(em_concat_copy_s8((const int8_t *)a.in[k].data, outer, inner, output_inner, offset,
                                           (int8_t *)a.output.data));
        offset += inner;
    }
    return s;
}

const em_op_registration em_op_concatenation = {EM_OP_CONCATENATION, "concatenation", EM_OP_CHECK(em_concat_check),
                                                EM_OP_EVAL(em_concat_eval)};
