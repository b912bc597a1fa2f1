/**
 * @file em_registry.h
 * @brief The operator registry: a fixed-capacity, const table of operator adapters. No heap.
 *
 * Each adapter `runtime/ops/em_op_<name>.c` defines one registration:
 *
 *     const em_op_registration em_op_<name> = {EM_OP_<NAME>, "<name>", check, eval};
 *
 * - check() runs once, in em_program_load(): it verifies everything its eval() will rely on
 *   (arity, dtypes, shapes, option tables and option vector lengths), so that eval() can never
 *   read or write out of bounds. Tensor data pointers of arena tensors are NULL at that time.
 * - eval() runs in em_program_invoke(): it decodes the Operator's operands and options in place
 *   (zero-copy) and calls the kernel.
 *
 * Write check() and eval() over ONE decode function that reads everything through the em_op_*
 * accessors below. During check() (ctx->verified false) the accessors are bounds-checked and
 * return errors; during eval() (ctx->verified true) they are the unchecked "trusted reads" of
 * em_fb.h and always return EM_OK. Because eval() decodes with the same code that check()
 * verified, it reads exactly the bytes the loader has verified, and nothing else. Never read
 * the program bytes any other way in eval() (a vector's elements, once its length was checked
 * in check(), are the one exception: see em_op_vector_i32()).
 *
 * The firmware's registry holds only the operators its model uses. The compiler GENERATES it,
 * in exactly this form (one file, em_registry.c):
 *
 *     #include "em_registry.h"
 *     extern const em_op_registration em_op_quantize, em_op_fully_connected;
 *     const em_op_registration *const em_registry[] = { &em_op_quantize, &em_op_fully_connected };
 *     const uint32_t em_registry_count = 2;
 *
 * An opcode the registry does not hold fails em_program_load() with EM_ERR_UNKNOWN_OP.
 */
#ifndef EM_REGISTRY_H
#define EM_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "em_fb.h"
#include "ember.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Operator ids: the schema's OpCode enum. Stable: appended, never renumbered. */
enum {
    EM_OP_QUANTIZE = 0,
    EM_OP_DEQUANTIZE = 1,
    EM_OP_FULLY_CONNECTED = 2,
    EM_OP_CONV_2D = 3,
    EM_OP_DEPTHWISE_CONV_2D = 4,
    EM_OP_MAX_POOL_2D = 5,
    EM_OP_AVG_POOL_2D = 6,
    EM_OP_ADD = 7,
    EM_OP_LUT = 8,
    EM_OP_SOFTMAX = 9,
    EM_OP_MUL = 10,
    EM_OP_CONCATENATION = 11,
    EM_OP_PAD = 12,
    EM_OP_TRANSPOSE = 13,
    EM_OP_SLICE = 14,
    EM_OP_UPSAMPLE_NEAREST = 15,
    EM_OP_RESHAPE = 16,
    EM_OP_REQUANTIZE = 17,
    EM_OP_FLOAT_FULLY_CONNECTED = 18,
    EM_OP_FLOAT_CONV_2D = 19,
    EM_OP_FLOAT_BINARY = 20,
    EM_OP_FLOAT_UNARY = 21,
    EM_OP_FLOAT_SOFTMAX = 22,
    EM_OP_FLOAT_LAYER_NORM = 23,
    EM_OP_FLOAT_MAX_POOL_2D = 24,
    EM_OP_FLOAT_AVG_POOL_2D = 25,
    EM_OP_MINIMUM = 26,
    EM_OP_MAXIMUM = 27,
    EM_OP_TRANSPOSE_CONV_2D = 28,
    EM_OP_BATCH_MATMUL = 29,
    EM_OP_MEL_FEATURES = 30
};

/** Union tags of the schema's OpOptions (Operator.options_type). */
enum {
    EM_OPTIONS_NONE = 0,
    EM_OPTIONS_QUANTIZE = 1,
    EM_OPTIONS_DEQUANTIZE = 2,
    EM_OPTIONS_FULLY_CONNECTED = 3,
    EM_OPTIONS_CONV_2D = 4,
    EM_OPTIONS_POOL_2D = 5,
    EM_OPTIONS_ADD = 6,
    EM_OPTIONS_LUT = 7,
    EM_OPTIONS_SOFTMAX = 8,
    EM_OPTIONS_MUL = 9,
    EM_OPTIONS_CONCATENATION = 10,
    EM_OPTIONS_PAD = 11,
    EM_OPTIONS_TRANSPOSE = 12,
    EM_OPTIONS_SLICE = 13,
    EM_OPTIONS_UPSAMPLE_NEAREST = 14,
    EM_OPTIONS_RESHAPE = 15,
    EM_OPTIONS_REQUANTIZE = 16,
    EM_OPTIONS_FLOAT_FULLY_CONNECTED = 17,
    EM_OPTIONS_FLOAT_CONV_2D = 18,
    EM_OPTIONS_FLOAT_BINARY = 19,
    EM_OPTIONS_FLOAT_UNARY = 20,
    EM_OPTIONS_FLOAT_SOFTMAX = 21,
    EM_OPTIONS_FLOAT_LAYER_NORM = 22,
    EM_OPTIONS_FLOAT_POOL_2D = 23,
    EM_OPTIONS_MIN_MAX = 24,
    EM_OPTIONS_TRANSPOSE_CONV_2D = 25,
    EM_OPTIONS_BATCH_MATMUL = 26,
    EM_OPTIONS_MEL_FEATURES = 27
};

/** Field slots of the options tables (declaration order in program.fbs). */
enum { EM_QUANTIZE_OPTIONS_INV_SCALE = 0, EM_QUANTIZE_OPTIONS_ZERO_POINT = 1 };
enum { EM_DEQUANTIZE_OPTIONS_SCALE = 0, EM_DEQUANTIZE_OPTIONS_ZERO_POINT = 1 };
enum {
    EM_FC_OPTIONS_OUTPUT_OFFSET = 0,
    EM_FC_OPTIONS_ACTIVATION_MIN = 1,
    EM_FC_OPTIONS_ACTIVATION_MAX = 2,
    EM_FC_OPTIONS_OUTPUT_MULTIPLIER = 3,
    EM_FC_OPTIONS_OUTPUT_SHIFT = 4
};
enum {
    EM_CONV_2D_OPTIONS_STRIDE_H = 0,
    EM_CONV_2D_OPTIONS_STRIDE_W = 1,
    EM_CONV_2D_OPTIONS_DILATION_H = 2,
    EM_CONV_2D_OPTIONS_DILATION_W = 3,
    EM_CONV_2D_OPTIONS_PAD_TOP = 4,
    EM_CONV_2D_OPTIONS_PAD_BOTTOM = 5,
    EM_CONV_2D_OPTIONS_PAD_LEFT = 6,
    EM_CONV_2D_OPTIONS_PAD_RIGHT = 7,
    EM_CONV_2D_OPTIONS_GROUPS = 8,
    EM_CONV_2D_OPTIONS_DEPTH_MULTIPLIER = 9,
    EM_CONV_2D_OPTIONS_INPUT_ZERO_POINT = 10,
    EM_CONV_2D_OPTIONS_OUTPUT_OFFSET = 11,
    EM_CONV_2D_OPTIONS_ACTIVATION_MIN = 12,
    EM_CONV_2D_OPTIONS_ACTIVATION_MAX = 13,
    EM_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER = 14,
    EM_CONV_2D_OPTIONS_OUTPUT_SHIFT = 15
};
enum {
    EM_POOL_2D_OPTIONS_KERNEL_H = 0,
    EM_POOL_2D_OPTIONS_KERNEL_W = 1,
    EM_POOL_2D_OPTIONS_STRIDE_H = 2,
    EM_POOL_2D_OPTIONS_STRIDE_W = 3,
    EM_POOL_2D_OPTIONS_PAD_TOP = 4,
    EM_POOL_2D_OPTIONS_PAD_BOTTOM = 5,
    EM_POOL_2D_OPTIONS_PAD_LEFT = 6,
    EM_POOL_2D_OPTIONS_PAD_RIGHT = 7,
    EM_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD = 8,
    EM_POOL_2D_OPTIONS_ZERO_POINT = 9,
    EM_POOL_2D_OPTIONS_ACTIVATION_MIN = 10,
    EM_POOL_2D_OPTIONS_ACTIVATION_MAX = 11
};
enum {
    EM_MUL_OPTIONS_INPUT1_OFFSET = 0,
    EM_MUL_OPTIONS_INPUT2_OFFSET = 1,
    EM_MUL_OPTIONS_OUTPUT_OFFSET = 2,
    EM_MUL_OPTIONS_OUTPUT_MULTIPLIER = 3,
    EM_MUL_OPTIONS_OUTPUT_SHIFT = 4,
    EM_MUL_OPTIONS_ACTIVATION_MIN = 5,
    EM_MUL_OPTIONS_ACTIVATION_MAX = 6
};
enum { EM_LUT_OPTIONS_AXIS = 0 };
enum { EM_CONCATENATION_OPTIONS_AXIS = 0 };
enum { EM_PAD_OPTIONS_BEFORE = 0, EM_PAD_OPTIONS_AFTER = 1, EM_PAD_OPTIONS_VALUE = 2, EM_PAD_OPTIONS_FLOAT_VALUE = 3 };
enum { EM_TRANSPOSE_OPTIONS_PERM = 0 };
enum { EM_SLICE_OPTIONS_BEGIN = 0, EM_SLICE_OPTIONS_STEP = 1, EM_SLICE_OPTIONS_SIZE = 2 };
enum { EM_UPSAMPLE_NEAREST_OPTIONS_SCALE_H = 0, EM_UPSAMPLE_NEAREST_OPTIONS_SCALE_W = 1 };
enum {
    EM_REQUANTIZE_OPTIONS_INPUT_OFFSET = 0,
    EM_REQUANTIZE_OPTIONS_OUTPUT_OFFSET = 1,
    EM_REQUANTIZE_OPTIONS_OUTPUT_MULTIPLIER = 2,
    EM_REQUANTIZE_OPTIONS_OUTPUT_SHIFT = 3
};
enum {
    EM_TRANSPOSE_CONV_2D_OPTIONS_STRIDE_H = 0,
    EM_TRANSPOSE_CONV_2D_OPTIONS_STRIDE_W = 1,
    EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_TOP = 2,
    EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_BOTTOM = 3,
    EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_LEFT = 4,
    EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_RIGHT = 5,
    EM_TRANSPOSE_CONV_2D_OPTIONS_INPUT_OFFSET = 6,
    EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_OFFSET = 7,
    EM_TRANSPOSE_CONV_2D_OPTIONS_ACTIVATION_MIN = 8,
    EM_TRANSPOSE_CONV_2D_OPTIONS_ACTIVATION_MAX = 9,
    EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER = 10,
    EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_SHIFT = 11
};
enum {
    EM_BATCH_MATMUL_OPTIONS_INPUT1_OFFSET = 0,
    EM_BATCH_MATMUL_OPTIONS_INPUT2_OFFSET = 1,
    EM_BATCH_MATMUL_OPTIONS_OUTPUT_OFFSET = 2,
    EM_BATCH_MATMUL_OPTIONS_OUTPUT_MULTIPLIER = 3,
    EM_BATCH_MATMUL_OPTIONS_OUTPUT_SHIFT = 4,
    EM_BATCH_MATMUL_OPTIONS_ACTIVATION_MIN = 5,
    EM_BATCH_MATMUL_OPTIONS_ACTIVATION_MAX = 6
};
enum { EM_SOFTMAX_OPTIONS_INPUT_MULTIPLIER = 0, EM_SOFTMAX_OPTIONS_INPUT_LEFT_SHIFT = 1, EM_SOFTMAX_OPTIONS_DIFF_MIN = 2 };
enum {
    EM_ADD_OPTIONS_INPUT1_OFFSET = 0,
    EM_ADD_OPTIONS_INPUT1_MULTIPLIER = 1,
    EM_ADD_OPTIONS_INPUT1_SHIFT = 2,
    EM_ADD_OPTIONS_INPUT2_OFFSET = 3,
    EM_ADD_OPTIONS_INPUT2_MULTIPLIER = 4,
    EM_ADD_OPTIONS_INPUT2_SHIFT = 5,
    EM_ADD_OPTIONS_OUTPUT_OFFSET = 6,
    EM_ADD_OPTIONS_OUTPUT_MULTIPLIER = 7,
    EM_ADD_OPTIONS_OUTPUT_SHIFT = 8,
    EM_ADD_OPTIONS_ACTIVATION_MIN = 9,
    EM_ADD_OPTIONS_ACTIVATION_MAX = 10
};
enum { EM_FLOAT_FULLY_CONNECTED_OPTIONS_ACTIVATION_MIN = 0, EM_FLOAT_FULLY_CONNECTED_OPTIONS_ACTIVATION_MAX = 1 };
enum {
    EM_FLOAT_CONV_2D_OPTIONS_STRIDE_H = 0,
    EM_FLOAT_CONV_2D_OPTIONS_STRIDE_W = 1,
    EM_FLOAT_CONV_2D_OPTIONS_DILATION_H = 2,
    EM_FLOAT_CONV_2D_OPTIONS_DILATION_W = 3,
    EM_FLOAT_CONV_2D_OPTIONS_PAD_TOP = 4,
    EM_FLOAT_CONV_2D_OPTIONS_PAD_BOTTOM = 5,
    EM_FLOAT_CONV_2D_OPTIONS_PAD_LEFT = 6,
    EM_FLOAT_CONV_2D_OPTIONS_PAD_RIGHT = 7,
    EM_FLOAT_CONV_2D_OPTIONS_GROUPS = 8,
    EM_FLOAT_CONV_2D_OPTIONS_ACTIVATION_MIN = 9,
    EM_FLOAT_CONV_2D_OPTIONS_ACTIVATION_MAX = 10
};
enum {
    EM_FLOAT_BINARY_OPTIONS_FUNCTION = 0,
    EM_FLOAT_BINARY_OPTIONS_ACTIVATION_MIN = 1,
    EM_FLOAT_BINARY_OPTIONS_ACTIVATION_MAX = 2
};
enum {
    EM_FLOAT_UNARY_OPTIONS_FUNCTION = 0,
    EM_FLOAT_UNARY_OPTIONS_ALPHA = 1,
    EM_FLOAT_UNARY_OPTIONS_MIN = 2,
    EM_FLOAT_UNARY_OPTIONS_MAX = 3
};
enum { EM_FLOAT_LAYER_NORM_OPTIONS_EPSILON = 0 };
enum {
    EM_FLOAT_POOL_2D_OPTIONS_KERNEL_H = 0,
    EM_FLOAT_POOL_2D_OPTIONS_KERNEL_W = 1,
    EM_FLOAT_POOL_2D_OPTIONS_STRIDE_H = 2,
    EM_FLOAT_POOL_2D_OPTIONS_STRIDE_W = 3,
    EM_FLOAT_POOL_2D_OPTIONS_PAD_TOP = 4,
    EM_FLOAT_POOL_2D_OPTIONS_PAD_BOTTOM = 5,
    EM_FLOAT_POOL_2D_OPTIONS_PAD_LEFT = 6,
    EM_FLOAT_POOL_2D_OPTIONS_PAD_RIGHT = 7,
    EM_FLOAT_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD = 8,
    EM_FLOAT_POOL_2D_OPTIONS_ACTIVATION_MIN = 9,
    EM_FLOAT_POOL_2D_OPTIONS_ACTIVATION_MAX = 10
};

enum {
    EM_MEL_FEATURES_OPTIONS_FRAME_STEP = 0,
    EM_MEL_FEATURES_OPTIONS_MAGNITUDE = 1,
    EM_MEL_FEATURES_OPTIONS_LOG_SCALE = 2
};

struct em_program_view;

/** The accessors below are forced inline: eval() runs them at every invoke. */
#if defined(__GNUC__)
#define EM_OP_INLINE static inline __attribute__((always_inline))
#else
#define EM_OP_INLINE static inline
#endif

/** What an adapter sees of one operator. Built by the loader/executor on its stack, valid for
 *  one check() or eval() call; read-only for ops. */
typedef struct {
    const em_program *program;
    const struct em_program_view *view; /**< runtime-internal: the checked view; NULL in eval() */
    em_fb_buf buf;              /**< the program bytes */
    uint32_t index;             /**< operator index in the program */
    em_fb_vector inputs;        /**< verified int32 tensor indices */
    em_fb_vector outputs;       /**< verified int32 tensor indices */
    uint8_t options_type;       /**< EM_OPTIONS_* */
    bool verified;              /**< false in check() (checked reads), true in eval() (trusted) */
    em_fb_table options;        /**< verified options table; pos == 0 when absent */
    uint8_t *const *arenas;     /**< NULL during check() */
} em_op_context;

typedef em_status (*em_op_fn)(const em_op_context *ctx);

/** One operator adapter. */
typedef struct {
    uint16_t opcode;   /**< EM_OP_* */
    const char *name;  /**< e.g. "fully_connected" */
    em_op_fn check;    /**< load time */
    em_op_fn eval;     /**< invoke time */
} em_op_registration;

/** The firmware's registry (generated by the compiler, or written by hand for tools/tests). */
extern const em_op_registration *const em_registry[];
extern const uint32_t em_registry_count;

/** The registration for @p opcode, or NULL. */
const em_op_registration *em_registry_find(uint32_t opcode);

/**
 * The operator's operands as tensor views (data, size, dtype, rank, shape), after checking its
 * arity: exactly @p n_inputs inputs and @p n_outputs outputs. Operands carry no quantization
 * (scale = 0, zero_point = 0): operators take theirs from their options. During check() arena
 * tensors have data == NULL; constants always point into the program bytes (never write them).
 * @param inputs   [n_inputs] filled in operand order
 * @param outputs  [n_outputs] filled in operand order
 * @return EM_OK, EM_ERR_BAD_OPERATOR for another arity, or (check() only) a tensor's status.
 */
em_status em_op_operands(const em_op_context *ctx, em_tensor *inputs, uint32_t n_inputs,
                         em_tensor *outputs, uint32_t n_outputs);

/**
 * Checks that the operator's options table is present and of union type @p type; the
 * em_op_option_* accessors then read its fields.
 * @return EM_OK, or EM_ERR_BAD_OPERATOR when the options are absent or of another type.
 */
EM_OP_INLINE em_status em_op_options(const em_op_context *ctx, uint8_t type)
{
    return ctx->options_type == type && ctx->options.pos != 0u ? EM_OK : EM_ERR_BAD_OPERATOR;
}

/** Scalar field @p slot of the options table (after em_op_options()), or @p def when absent.
 *  @return EM_OK, or (check() only) EM_ERR_MALFORMED. */
EM_OP_INLINE em_status em_op_option_i32(const em_op_context *ctx, uint32_t slot, int32_t def,
                                         int32_t *out)
{
    if (ctx->verified) {
        *out = em_fb_trusted_i32(&ctx->buf, &ctx->options, slot, def);
        return EM_OK;
    }
    return em_fb_field_i32(&ctx->buf, &ctx->options, slot, def, out);
}

EM_OP_INLINE em_status em_op_option_f32(const em_op_context *ctx, uint32_t slot, float def,
                                         float *out)
{
    if (ctx->verified) {
        *out = em_fb_trusted_f32(&ctx->buf, &ctx->options, slot, def);
        return EM_OK;
    }
    /* Read as the 4-byte scalar it is: the loader's core then links no float reader of its own. */
    uint32_t bits;
    __builtin_memcpy(&bits, &def, sizeof bits);
    const em_status s = em_fb_field_u32(&ctx->buf, &ctx->options, slot, bits, &bits);
    __builtin_memcpy(out, &bits, sizeof bits);
    return s;
}

/** Vector-of-int32 field @p slot of the options table (4-aligned, in place); len 0 when absent.
 *  @return EM_OK, or (check() only) EM_ERR_MALFORMED / EM_ERR_TRUNCATED. */
EM_OP_INLINE em_status em_op_option_vector(const em_op_context *ctx, uint32_t slot,
                                            em_fb_vector *out)
{
    if (ctx->verified) {
        *out = em_fb_trusted_vector(&ctx->buf, &ctx->options, slot);
        return EM_OK;
    }
    return em_fb_field_vector(&ctx->buf, &ctx->options, slot, 4u, 4u, out);
}

/** The int32 elements of a vector the options accessors returned, in place (4-aligned,
 *  v->len elements verified in bounds). */
static inline const int32_t *em_op_vector_i32(const em_op_context *ctx, const em_fb_vector *v)
{
    return (const int32_t *)(const void *)(ctx->buf.data + v->pos);
}

/** Number of elements of @p t (its shape's product; verified not to overflow). */
uint32_t em_tensor_elements(const em_tensor *t);

#ifdef __cplusplus
}
#endif

#endif /* EM_REGISTRY_H */
