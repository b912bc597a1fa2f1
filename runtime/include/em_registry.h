/**
 * @file em_registry.h
 * @brief The operator registry: a fixed-capacity, const table of operator adapters. No heap.
 *
 * Each adapter `runtime/ops/em_op_<name>.c` defines one registration:
 *
 *     const em_op_registration em_op_<name> = {EM_OP_<NAME>, "<name>", EM_OP_CHECK(check), EM_OP_EVAL(eval)};
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
#include "em_schema.h"
#include "ember.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opcodes (EM_OP_*), option tags (EM_OPTIONS_*) and each options table's field slots
 * (EM_<TABLE>_<FIELD>, e.g. EM_CONV_2D_OPTIONS_STRIDE_H) come from em_schema.h, which the build
 * generates from compiler/schema/program.fbs (site_scons/ember_build/schema_header.py). */

struct em_program_view;

/* Who verifies (runtime/README.md, "Who verifies what"). By default em_program_load() runs every
 * operator's check() and em_program_invoke() its eval(). Two builds link only one of them:
 * - EM_SEALED=1: firmware bound to the one program the build verified on the host
 *   (em_program_open_sealed()): no check() is linked, and eval()'s reads are trusted reads only;
 * - EM_VERIFY_ONLY=1: the host build of a device tier's verifier (tools/em_verify): no eval() is
 *   linked, so none of that tier's kernels are needed. */
#ifndef EM_SEALED
#define EM_SEALED 0
#endif
#ifndef EM_VERIFY_ONLY
#define EM_VERIFY_ONLY 0
#endif

/** An adapter's check and eval for its registration, a null pointer where the build links none
 *  (still named, so it compiles and -Wunused stays quiet; the optimiser then drops it). */
#define EM_OP_CHECK(fn) (EM_SEALED ? (em_op_fn)0 : (fn))
#define EM_OP_EVAL(fn) (EM_VERIFY_ONLY ? (em_op_fn)0 : (fn))

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

/** True when @p ctx's reads are trusted (eval(), or any read in sealed firmware): the accessors
 *  then read without checks, and a sealed build links no checked reader at all. */
EM_OP_INLINE bool em_op_trusted(const em_op_context *ctx)
{
    return EM_SEALED || ctx->verified;
}

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
    if (em_op_trusted(ctx)) {
        *out = em_fb_trusted_i32(&ctx->buf, &ctx->options, slot, def);
        return EM_OK;
    }
    return em_fb_field_i32(&ctx->buf, &ctx->options, slot, def, out);
}

EM_OP_INLINE em_status em_op_option_f32(const em_op_context *ctx, uint32_t slot, float def,
                                         float *out)
{
    if (em_op_trusted(ctx)) {
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
    if (em_op_trusted(ctx)) {
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
