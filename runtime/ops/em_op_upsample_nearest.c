/**
 * @file em_op_upsample_nearest.c
 * @brief UPSAMPLE_NEAREST adapter: input [N, H, W, C] -> output [N, H * scale_h, W * scale_w, C]
 *        (UpsampleNearestOptions, factors >= 1), INT8 / INT32 / FLOAT32, one dtype for both. check()
 *        requires dim · scale (in int64) to equal the output's dims, so with the loader's bound on the
 *        output every row, pixel and byte count of the kernel fits int32.
 */
#include "em_op_data_movement.h"

typedef struct {
    em_tensor input, output;
    int32_t scale_h, scale_w;
} em_upsample_args;

static em_status em_upsample_decode(const em_op_context *ctx, em_upsample_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_UPSAMPLE_NEAREST);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_UPSAMPLE_NEAREST_OPTIONS_SCALE_H, 2, &a->scale_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_UPSAMPLE_NEAREST_OPTIONS_SCALE_W, 2, &a->scale_w);
    return s;
}

static em_status em_upsample_check(const em_op_context *ctx)
{
    em_upsample_args a;
    const em_status s = em_upsample_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    em_nn_shape in;
    if (!em_op_movable(&a.input, &a.output) || a.input.rank != 4 || a.output.rank != 4
        || !em_op_shape_of(&a.input, &in) || a.scale_h < 1 || a.scale_w < 1
        || em_op_dim(&a.output, 0) != in.dims[0] || em_op_dim(&a.output, 3) != in.dims[3]
        || (int64_t)in.dims[1] * a.scale_h != em_op_dim(&a.output, 1)
        || (int64_t)in.dims[2] * a.scale_w != em_op_dim(&a.output, 2)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_upsample_eval(const em_op_context *ctx)
{
    em_upsample_args a;
    const em_status s = em_upsample_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *in = &a.input;
    return em_op_status(em_upsample_nearest(in->data, em_op_dim(in, 0), em_op_dim(in, 1), em_op_dim(in, 2),
                                            em_op_dim(in, 3), a.scale_h, a.scale_w, em_op_element_size(in->dtype),
                                            a.output.data));
}

const em_op_registration em_op_upsample_nearest = {EM_OP_UPSAMPLE_NEAREST, "upsample_nearest",
                                                   EM_OP_CHECK(em_upsample_check), EM_OP_EVAL(em_upsample_eval)};
