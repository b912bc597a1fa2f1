/**
 * @file em_op_support.h
 * @brief Small checks shared by the operator adapters (runtime/ops/).
 */
#ifndef EM_OP_SUPPORT_H
#define EM_OP_SUPPORT_H

#include <stdint.h>

#include "em_nn_status.h"
#include "em_nn_variants.h"
#include "em_registry.h"

/* What a kernel reports (em_nn_status) and what the runtime calls it (em_status), one row per
 * kernel status. */
#define EM_OP_KERNEL_STATUSES(X)                             \
    X(EM_NN_OK, EM_OK)                                       \
    X(EM_NN_ERR_BAD_ARGUMENT, EM_ERR_BAD_ARGUMENT)           \
    X(EM_NN_ERR_VARIANT_NOT_LINKED, EM_ERR_VARIANT_NOT_LINKED)

/* The table holds every kernel status, and each pair shares its number: em_op_status() is then
 * the identity, which costs no instruction and keeps an adapter's call of its kernel a tail
 * call. A new kernel status gets a row here; a pair whose numbers differ stops the build. */
#define EM_OP_KERNEL_STATUS_ROW(nn, em) +1
_Static_assert(0 EM_OP_KERNEL_STATUSES(EM_OP_KERNEL_STATUS_ROW) == EM_NN_STATUS_COUNT,
               "EM_OP_KERNEL_STATUSES lacks a row for an em_nn_status");
#undef EM_OP_KERNEL_STATUS_ROW
#define EM_OP_KERNEL_STATUS_SAME(nn, em) _Static_assert((int)(nn) == (int)(em), #nn " is not " #em);
EM_OP_KERNEL_STATUSES(EM_OP_KERNEL_STATUS_SAME)
#undef EM_OP_KERNEL_STATUS_SAME

/** The runtime's status for a kernel's (EM_OP_KERNEL_STATUSES): every adapter passes the status
 *  of the kernel it calls through this. */
static inline em_status em_op_status(em_nn_status status)
{
    return (em_status)status;
}

/** check()'s status for a kernel's verdict on the paths an op records (em_nn_variants.h): a
 *  variant this build left out is EM_ERR_VARIANT_NOT_LINKED, any other refusal a malformed
 *  operator. */
static inline em_status em_op_paths_status(em_nn_status status)
{
    return status == EM_NN_OK ? EM_OK
           : status == EM_NN_ERR_VARIANT_NOT_LINKED ? EM_ERR_VARIANT_NOT_LINKED : EM_ERR_BAD_OPERATOR;
}

/** True when @p t has dtype @p dtype and rank @p rank. */
static inline bool em_op_is(const em_tensor *t, em_dtype dtype, int32_t rank)
{
    return t->dtype == dtype && t->rank == rank;
}

/**
 * em_op_operands() for an operator whose outputs are its result and, optionally, the scratch of
 * its kernel: a 1-D int8 arena tensor that the planner sized with the kernel's own
 * *_get_buffer_size() for the tier (compiler/scratch.py). Without one, @p scratch gets data NULL
 * and size 0 (the kernel then takes its path without scratch).
 * @return EM_OK, or EM_ERR_BAD_OPERATOR for other arities or a scratch that is not 1-D int8.
 */
static inline em_status em_op_operands_scratch(const em_op_context *ctx, em_tensor *inputs, uint32_t n_inputs,
                                               em_tensor *output, em_tensor *scratch)
{
    em_tensor outputs[2] = {{0}, {0}};
    const uint32_t n_outputs = ctx->outputs.len == 2u ? 2u : 1u;
    const em_status s = em_op_operands(ctx, inputs, n_inputs, outputs, n_outputs);
    *output = outputs[0];
    *scratch = outputs[1];
    if (s == EM_OK && n_outputs == 2u) {
        if (!em_op_is(scratch, EM_DTYPE_INT8, 1) || scratch->shape[0] < 0) {
            return EM_ERR_BAD_OPERATOR;
        }
        scratch->size = (uint32_t)scratch->shape[0]; /* eval() reads no sizes: 1-D int8, one byte each */
    }
    return s;
}

/** Dimension @p axis of @p t (rank verified by the caller). */
static inline int32_t em_op_dim(const em_tensor *t, int32_t axis)
{
    int32_t dim;
    em_fb_memcpy(&dim, &t->shape[axis], sizeof dim);
    return dim;
}

/** True when @p v is a valid int8 value (zero points, offsets, clamps). */
static inline bool em_op_in_s8(int32_t v)
{
    return v >= -128 && v <= 127;
}

/** True when @p v is a valid int16 value (A16W8 clamps, pad values). */
static inline bool em_op_in_s16(int32_t v)
{
    return v >= -32768 && v <= 32767;
}

/** A ubyte field (a DType, a bool) of the options table, or @p def when absent (checked in
 *  check(), trusted in eval()). @return EM_OK, or (check() only) EM_ERR_MALFORMED. */
static inline em_status em_op_option_u8(const em_op_context *ctx, uint32_t slot, uint8_t def, uint8_t *out)
{
    if (em_op_trusted(ctx)) {
        *out = em_fb_trusted_u8(&ctx->buf, &ctx->options, slot, def);
        return EM_OK;
    }
    return em_fb_field_u8(&ctx->buf, &ctx->options, slot, def, out);
}

/** True when the per-channel requantization vectors hold @p n entries each, every multiplier
 *  >= 0 and every shift in -31..30 (what em_nn_requantize() takes). check() only. */
static inline bool em_op_per_channel_quant_ok(const em_op_context *ctx, const em_fb_vector *multiplier,
                                              const em_fb_vector *shift, int32_t n)
{
    if (n < 1 || multiplier->len != (uint32_t)n || shift->len != (uint32_t)n) {
        return false;
    }
    for (uint32_t o = 0; o < shift->len; o++) {
        const int32_t s = em_fb_vector_i32(&ctx->buf, shift, o);
        if (s < -31 || s > 30 || em_fb_vector_i32(&ctx->buf, multiplier, o) < 0) {
            return false;
        }
    }
    return true;
}

/**
 * Reads @p n consecutive int32 scalar fields of the options table, slots @p first .. first + n − 1,
 * into @p out[0 .. n − 1], each @p defaults[i] when absent (after em_op_options()). One shared
 * loop (runtime/ops/em_op_options.c) instead of an inlined field read per option per op.
 * @return EM_OK, or (check() only) EM_ERR_MALFORMED.
 */
em_status em_op_option_i32s(const em_op_context *ctx, uint32_t first, const int8_t *defaults, uint32_t n,
                            int32_t *out);

#endif /* EM_OP_SUPPORT_H */
