/**
 * @file em_op_float_binary.c
 * @brief FLOAT_BINARY adapter: a, b float32 -> output float32 of NumPy's broadcast shape
 *        (rank 1..EM_FLOAT_MAX_RANK; a rank-0 output is read as [1]), FloatBinaryOptions. check()
 *        requires non-empty operands of at most INT32_MAX elements, so each operand's strides (products
 *        of its own dims) fit int32 and the kernel's offsets stay below twice its element count.
 */
#include "em_op_float.h"

enum { EM_FBIN_A, EM_FBIN_B, EM_FBIN_N_INPUTS };

typedef struct {
    em_tensor in[EM_FBIN_N_INPUTS];
    em_tensor output;
    int32_t function;
    em_float_activation act;
} em_fbin_args;

static em_status em_fbin_decode(const em_op_context *ctx, em_fbin_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_FBIN_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_BINARY);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_BINARY_OPTIONS_FUNCTION, 0, &a->function);
    if (s == EM_OK) {
        s = em_op_float_activation(ctx, EM_FLOAT_BINARY_OPTIONS_ACTIVATION_MIN,
                                   EM_FLOAT_BINARY_OPTIONS_ACTIVATION_MAX, &a->act);
    }
    return s;
}

/** Strides of operand @p t along the output's axes (0 where broadcast), or false when @p t does
 *  not broadcast to @p out. */
static bool em_fbin_strides(const em_tensor *t, const em_tensor *out, int32_t rank, int32_t *stride)
{
    if (t->rank > rank) {
        return false;
    }
    int32_t step = 1;
    for (int32_t axis = rank - 1; axis >= 0; axis--) {
        const int32_t own = axis - (rank - t->rank);
        const int32_t dim = own >= 0 ? em_op_dim(t, own) : 1;
        const int32_t want = out->rank == 0 ? 1 : em_op_dim(out, axis);
        if (dim != want && dim != 1) {
            return false;
        }
        stride[axis] = dim == 1 ? 0 : step;
        step *= dim;
    }
    return true;
}

/** The kernel's dims, or false when the shapes do not broadcast to the output's. */
static bool em_fbin_dims(const em_fbin_args *a, em_float_broadcast_dims *d)
{
    const int32_t rank = a->output.rank == 0 ? 1 : a->output.rank;
    if (rank > EM_FLOAT_MAX_RANK) {
        return false;
    }
    d->rank = rank;
    for (int32_t axis = 0; axis < rank; axis++) {
        d->shape[axis] = a->output.rank == 0 ? 1 : em_op_dim(&a->output, axis);
    }
    return em_fbin_strides(&a->in[EM_FBIN_A], &a->output, rank, d->a_stride)
           && em_fbin_strides(&a->in[EM_FBIN_B], &a->output, rank, d->b_stride);
}

static em_status em_fbin_check(const em_op_context *ctx)
{
    em_fbin_args a;
    const em_status s = em_fbin_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_float_broadcast_dims d;
    if (!em_op_is_float(&a.in[EM_FBIN_A]) || !em_op_is_float(&a.in[EM_FBIN_B]) || !em_op_is_float(&a.output)
        || a.function < 0 || a.function >= EM_FLOAT_BINARY_COUNT || !em_op_float_activation_ok(&a.act)
        || !em_fbin_dims(&a, &d)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_fbin_eval(const em_op_context *ctx)
{
    em_fbin_args a;
    const em_status s = em_fbin_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_float_broadcast_dims d;
    if (!em_fbin_dims(&a, &d)) {
        return EM_ERR_BAD_OPERATOR; /* never: check() verified the same shapes (d stays set for the optimiser) */
    }
    return em_op_status(em_float_binary_f32(a.function, &d, (const float *)a.in[EM_FBIN_A].data,
                                            (const float *)a.in[EM_FBIN_B].data, a.act, (float *)a.output.data));
}

const em_op_registration em_op_float_binary = {EM_OP_FLOAT_BINARY, "float_binary", EM_OP_CHECK(em_fbin_check),
                                               EM_OP_EVAL(em_fbin_eval)};
