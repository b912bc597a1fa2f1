/**
 * @file em_op_int4.h
 * @brief What the adapters of layers with int4 weights (A8W4: CONV_2D, DEPTHWISE_CONV_2D,
 *        FULLY_CONNECTED, TRANSPOSE_CONV_2D) share: the weights unpacked into the scratch.
 *
 * An op whose weights are INT4 (compiler/int4.py) has a scratch (its second output, 1-D int8)
 * that starts with the weights unpacked to int8, em_op_unpacked_bytes() of them, followed by the
 * kernel's own scratch if it has any (compiler/scratch.py sizes both).
 * check() asks em_op_weights_fit() at load; eval() calls em_op_unpack_weights(), which unpacks
 * them (em_unpack_s4()) and hands the kernel the unpacked weights and the scratch after them, so
 * that the kernel is the int8 one, byte for byte. INT8 weights cost eval() one dtype test.
 * check()'s helpers are static inline; eval()'s is em_op_int4.c.
 */
#ifndef EM_OP_INT4_H
#define EM_OP_INT4_H

#include <stdbool.h>

#include "em_op_support.h"

/** Rows and elements per row of int4 @p weights as the program packs them: the first dimension
 *  of rank >= 2 and the rest; rank 0 one row of one, rank 1 one row of d0 (dims verified >= 0,
 *  their product within INT32_MAX by the loader). */
static inline void em_op_int4_rows(const em_tensor *weights, int32_t *rows, int32_t *row_elements)
{
    const int32_t first = weights->rank >= 2 ? 1 : 0;
    int32_t n = 1;
    for (int32_t i = first; i < weights->rank; i++) {
        n *= em_op_dim(weights, i);
    }
    *rows = first ? em_op_dim(weights, 0) : 1;
    *row_elements = n;
}

/** Scratch bytes int4 @p weights take unpacked: their elements rounded up to 16, so that the
 *  kernel's scratch after them stays 16-byte aligned (int4.unpacked_weight_bytes). */
static inline uint32_t em_op_unpacked_bytes(const em_tensor *weights)
{
    int32_t rows, row_elements;
    em_op_int4_rows(weights, &rows, &row_elements);
    return ((uint32_t)rows * (uint32_t)row_elements + 15u) & ~15u; /* <= INT32_MAX + 15: no wrap */
}

/**
 * check(): @p weights of rank @p rank are INT8, or INT4 with @p scratch (size 0 when the op has
 * none) holding them unpacked. *@p kernel_scratch gets the bytes the kernel may use: the
 * scratch's size, less the unpacked weights for INT4 (what eval() hands it).
 */
static inline bool em_op_weights_fit(const em_tensor *weights, int32_t rank, const em_tensor *scratch,
                                     uint32_t *kernel_scratch)
{
    *kernel_scratch = scratch->size;
    if (weights->rank != rank || (weights->dtype != EM_DTYPE_INT8 && weights->dtype != EM_DTYPE_INT4)) {
        return false;
    }
    if (weights->dtype == EM_DTYPE_INT4) {
        const uint32_t unpacked = em_op_unpacked_bytes(weights);
        if (scratch->size < unpacked) {
            return false;
        }
        *kernel_scratch = scratch->size - unpacked;
    }
    return true;
}

/*
 * An op whose kernel takes no scratch (FULLY_CONNECTED, TRANSPOSE_CONV_2D) has one only for int4
 * weights. Its decode reads the outputs with em_op_operands(ctx, …, outputs, ctx->outputs.len)
 * into outputs[2] (the result, the scratch), so that eval() of INT8 weights does no more than
 * with the result alone (em_op_operands_scratch() would copy and clear both): check() first
 * verifies the arity (em_op_weights_outputs_ok), and after the decode the scratch
 * (em_op_weights_scratch_ok). eval() reads outputs[1] only for INT4 weights, which check()
 * proved it holds (em_op_weights_fit).
 */

/** check(), before the decode: the result, and at most a scratch. */
static inline bool em_op_weights_outputs_ok(const em_op_context *ctx)
{
    return ctx->outputs.len == 1u || ctx->outputs.len == 2u;
}

/** check(), after the decode: @p scratch (outputs[1]) a 1-D int8 tensor, its size set, or data
 *  NULL and size 0 when the op has none. */
static inline bool em_op_weights_scratch_ok(const em_op_context *ctx, em_tensor *scratch)
{
    if (ctx->outputs.len == 1u) {
        scratch->data = NULL;
        scratch->size = 0u;
        return true;
    }
    if (!em_op_is(scratch, EM_DTYPE_INT8, 1) || em_op_dim(scratch, 0) < 0) {
        return false;
    }
    scratch->size = (uint32_t)em_op_dim(scratch, 0);
    return true;
}

/**
 * eval(), INT4 @p weights (the caller tests the dtype, so that INT8 pays nothing more): unpacks
 * them into the start of @p scratch, which check() verified holds them (em_op_weights_fit), and
 * points @p weights at them as INT8 and @p scratch past them (data NULL and size 0 when nothing
 * is left, as for an op without scratch). Its size is read from its shape (eval()'s operands
 * carry no sizes). One function (em_op_int4.c) for every adapter: a firmware links it, and
 * em_unpack_s4(), once, and each adapter only calls it (about 120 bytes each inlined).
 * @return the unpack's status.
 */
em_status em_op_unpack_weights(em_tensor *weights, em_tensor *scratch);

#endif /* EM_OP_INT4_H */
