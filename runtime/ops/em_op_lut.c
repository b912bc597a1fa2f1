/**
 * @file em_op_lut.c
 * @brief LUT adapter: input int8 [any shape], table int8 (a constant) -> output int8 [same element
 *        count]. The table is [256], one for every element (em_lut_s8), or [C, 256], one per
 *        channel of the input's LutOptions.axis (-rank..rank-1, negative from the end; default
 *        -1, the last), C its size there (em_lut_channels_s8 over [outer, C, inner]). check() bounds
 *        C to 1..EM_LUT_MAX_CHANNELS and outer · C, inner and outer · C · inner (in int64) to int32.
 *        int16 (A16W8): input, output and table int16, the table [E] or [C, E] with
 *        E = 2^(16 - k) + 1 for k EM_LUT_S16_MIN_STEP_LOG2..EM_LUT_S16_MAX_STEP_LOG2 (em_lut_s16);
 *        in a firmware built without it (em_nn_variants.h, LUT_S16), EM_ERR_VARIANT_NOT_LINKED.
 */
#include "em_nn_functions.h"
#include "em_nn_variants.h"
#include "em_op_support.h"

enum { EM_LUT_INPUT, EM_LUT_TABLE, EM_LUT_N_INPUTS };
#define EM_LUT_ENTRIES 256u
#define EM_LUT_LAST_AXIS (-1) /* LutOptions.axis's default */

typedef struct {
    em_tensor in[EM_LUT_N_INPUTS]; /**< input, table */
    em_tensor output;
} em_lut_args;

/** A [C, 256] table's view of the input: [outer, channels, inner] around the channel axis. */
typedef struct {
    int64_t outer, channels, inner; /**< outer and inner saturated at INT32_MAX + 1 (em_lut_span) */
} em_lut_channels;

static em_status em_lut_decode(const em_op_context *ctx, em_lut_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_LUT_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_LUT);
    return s;
}

/** Product of @p t's dimensions in [from, to), saturated at INT32_MAX + 1: the loader bounds a
 *  tensor's element count, not the product of the dimensions around a zero one. */
static int64_t em_lut_span(const em_tensor *t, int32_t from, int32_t to)
{
    int64_t n = 1;
    for (int32_t i = from; i < to; i++) {
        n *= em_op_dim(t, i); /* <= 2^31 · (2^31 − 1): no overflow */
        if (n > INT32_MAX) {
            n = (int64_t)INT32_MAX + 1;
        }
    }
    return n;
}

/** The channel view of the input for a per-channel table (after em_lut_decode); all zero (no
 *  channel) when the axis is outside the input's rank, which check() refuses. */
static em_status em_lut_channels_of(const em_op_context *ctx, const em_tensor *input, em_lut_channels *out)
{
    int32_t axis;
    const em_status s = em_op_option_i32(ctx, EM_LUT_OPTIONS_AXIS, EM_LUT_LAST_AXIS, &axis);
    *out = (em_lut_channels){0, 0, 0};
    if (s == EM_OK && axis >= -input->rank && axis < input->rank) {
        axis = axis < 0 ? axis + input->rank : axis;
        out->outer = em_lut_span(input, 0, axis);
        out->channels = em_op_dim(input, axis);
        out->inner = em_lut_span(input, axis + 1, input->rank);
    }
    return s;
}

/** k of an int16 table row of @p entries (2^(16 - k) + 1), or 0 when no k gives that length. */
static int32_t em_lut_s16_step_log2(int32_t entries)
{
    for (int32_t k = EM_LUT_S16_MIN_STEP_LOG2; k <= EM_LUT_S16_MAX_STEP_LOG2; k++) {
        if (entries == (1 << (16 - k)) + 1) {
            return k;
        }
    }
    return 0;
}

/** The table's entries per row: 256 for int8, an int16 row's length (its step from it). */
static int32_t em_lut_row(const em_tensor *table)
{
    return table->dtype == EM_DTYPE_INT16 ? em_op_dim(table, table->rank - 1) : (int32_t)EM_LUT_ENTRIES;
}

static em_status em_lut_check(const em_op_context *ctx)
{
    em_lut_args a;
    em_status s = em_lut_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *input = &a.in[EM_LUT_INPUT];
    const em_tensor *table = &a.in[EM_LUT_TABLE];
    const em_dtype dtype = input->dtype;
    if ((dtype != EM_DTYPE_INT8 && dtype != EM_DTYPE_INT16) || a.output.dtype != dtype || table->dtype != dtype
        || table->rank < 1 || table->rank > 2 || em_tensor_elements(input) != em_tensor_elements(&a.output)
        || em_tensor_elements(input) > (uint32_t)INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    const int32_t row = em_lut_row(table);
    if (dtype == EM_DTYPE_INT16 && em_lut_s16_step_log2(row) == 0) {
        return EM_ERR_BAD_OPERATOR;
    }
    if (table->rank == 1) {
        s = em_tensor_elements(table) == (uint32_t)row ? EM_OK : EM_ERR_BAD_OPERATOR;
    } else {
        em_lut_channels v;
        s = em_lut_channels_of(ctx, input, &v);
        /* em_lut_channels_s8's ranges (em_lut_s16's too), so that eval() cannot fail: channels
         * 1..EM_LUT_MAX_CHANNELS (its table's bytes fit int32), inner, outer · channels and their
         * product fit int32 (each factor <= 2^31: no int64 overflow). The loader bounds only the
         * element count, and a zero dimension in front leaves the dimensions after it unbounded. */
        if (s == EM_OK
            && (em_op_dim(table, 1) != row || em_op_dim(table, 0) != v.channels || v.channels < 1
                || v.channels > EM_LUT_MAX_CHANNELS || v.inner > INT32_MAX || v.outer * v.channels > INT32_MAX
                || v.outer * v.channels * v.inner > INT32_MAX)) {
            s = EM_ERR_BAD_OPERATOR;
        }
    }
    return s == EM_OK && dtype == EM_DTYPE_INT16 && !EM_NN_S16_LINKED(LUT) ? EM_ERR_VARIANT_NOT_LINKED : s;
}

static em_status em_lut_eval(const em_op_context *ctx)
{
    em_lut_args a;
    em_status s = em_lut_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *table = &a.in[EM_LUT_TABLE];
    em_lut_channels v = {1, 1, (int64_t)em_tensor_elements(&a.output)}; /* one table: one channel */
    if (table->rank == 2 && (s = em_lut_channels_of(ctx, &a.in[EM_LUT_INPUT], &v)) != EM_OK) {
        return s;
    }
    if (table->dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(LUT)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_lut_s16((const int16_t *)a.in[EM_LUT_INPUT].data, (int32_t)v.outer,
                                       (int32_t)v.channels, (int32_t)v.inner, (const int16_t *)table->data,
                                       em_lut_s16_step_log2(em_lut_row(table)), (int16_t *)a.output.data));
    }
    if (table->rank == 1) {
        return em_op_status(em_lut_s8((const int8_t *)a.in[EM_LUT_INPUT].data,
                                      (int32_t)em_tensor_elements(&a.output), (const int8_t *)table->data,
                                      (int8_t *)a.output.data));
    }
    return em_op_status(em_lut_channels_s8((const int8_t *)a.in[EM_LUT_INPUT].data, (int32_t)v.outer,
                                           (int32_t)v.channels, (int32_t)v.inner, (const int8_t *)table->data,
                                           (int8_t *)a.output.data));
}

const em_op_registration em_op_lut = {EM_OP_LUT, "lut", EM_OP_CHECK(em_lut_check), EM_OP_EVAL(em_lut_eval)};
