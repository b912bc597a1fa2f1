/**
 * @file em_executor.c
 * @brief em_program_invoke() and the tensor views of program inputs/outputs and op operands.
 *
 * Relies on em_program_load() having verified the program (ember.h, "Verify once, then trust"):
 * on a loaded program every read of the program bytes here is a trusted (unchecked) read of
 * something the loader read through the checked reader. Per operator, invoke reads the Operator
 * table, finds the registration and calls eval(), whose operand and option reads are trusted
 * too (em_registry.h). What the caller passes at each call (arenas, sizes, indices) is checked.
 */
#include "em_profile.h"
#include "em_program_view.h"
#include "em_registry.h"

const em_op_registration *em_registry_find(uint32_t opcode)
{
    for (uint32_t i = 0; i < em_registry_count; i++) {
        if (em_registry[i] != NULL && em_registry[i]->opcode == opcode) {
            return em_registry[i];
        }
    }
    return NULL;
}

/** em_op_operands() in eval(): trusted reads of data, rank and shape, invariants in locals. */
static inline __attribute__((always_inline)) void
em_operands_trusted(em_trusted_view v, uint8_t *const *arenas, em_fb_vector list, em_tensor *out)
{
    const em_fb_buf b = {v.data, 0u};
    for (uint32_t i = 0; i < list.len; i++) {
        em_program_tensor_trusted(v, em_fb_u32_at(&b, list.pos + 4u * i), arenas, false, &out[i]);
    }
}

/** em_op_operands() in check(): the loader's checked resolution (operand quantization cleared). */
static em_status em_operands_checked(const em_op_context *ctx, em_fb_vector list, em_tensor *out)
{
    for (uint32_t i = 0; i < list.len; i++) {
        const int32_t index = em_fb_vector_i32(&ctx->buf, &list, i);
        const em_status s = em_program_view_tensor(ctx->view, ctx->program, index, ctx->arenas,
                                                   &out[i], NULL);
        if (s != EM_OK) {
            return s;
        }
        out[i].scale = 0.0f; /* operands carry no quantization, in check() as in eval() */
        out[i].zero_point = 0;
    }
    return EM_OK;
}

em_status em_op_operands(const em_op_context *ctx, em_tensor *inputs, uint32_t n_inputs,
                         em_tensor *outputs, uint32_t n_outputs)
{
    if (ctx->inputs.len != n_inputs || ctx->outputs.len != n_outputs) {
        return EM_ERR_BAD_OPERATOR;
    }
    if (em_op_trusted(ctx)) {
        /* One loop over both lists: a single inlined copy of the trusted tensor reads. */
        const em_trusted_view v = em_trusted_view_of(ctx->program);
        for (uint32_t side = 0; side < 2u; side++) {
            em_operands_trusted(v, ctx->arenas, side ? ctx->outputs : ctx->inputs, side ? outputs : inputs);
        }
        return EM_OK;
    }
    const em_status s = em_operands_checked(ctx, ctx->inputs, inputs);
    return s == EM_OK ? em_operands_checked(ctx, ctx->outputs, outputs) : s;
}

uint32_t em_tensor_elements(const em_tensor *t)
{
    uint32_t n = 1u;
    for (int32_t i = 0; i < t->rank; i++) {
        int32_t dim;
        em_fb_memcpy(&dim, &t->shape[i], sizeof dim);
        n *= (uint32_t)dim;
    }
    return n;
}

/** The caller's arenas against the plan, once the pinned constants are in RAM (checked at every
 *  call; forced inline, see em_arenas_fit). */
static inline __attribute__((always_inline)) em_status em_check_arenas(const em_program *program, uint8_t *const *arenas,
                                 const uint32_t *arena_sizes, uint32_t n_arenas)
{
    if (program->n_copied != program->n_pinned) {
        return EM_ERR_CONSTANTS_NOT_COPIED; /* pinned weights not in RAM yet: em_program_copy_constants() */
    }
    if (program->n_state > 0u && program->carry_state == NULL) {
        return EM_ERR_STATE_NOT_RESET; /* the state would start from whatever the arena held */
    }
    return em_arenas_fit(program, arenas, arena_sizes, n_arenas);
}

/**
 * Every operator in order. With @p profile NULL this is the plain invoke: em_program_invoke()
 * passes a constant NULL into this forced-inline body, so the profiling code is compiled out of
 * it (em_profile.h: zero cost when off).
 */
static inline __attribute__((always_inline)) em_status
em_invoke_operators(const em_program *program, uint8_t *const *arenas, em_profile *profile, uint32_t n_operators)
{
    em_op_context ctx;
    for (uint32_t i = 0; i < n_operators; i++) {
        const uint16_t opcode = em_operator_open_trusted(program, i, &ctx);
        ctx.arenas = arenas;
        /* Found at load time in this same const registry; looked up again rather than cached
         * so that invoke needs no memory of its own. */
        const em_op_registration *reg = em_registry_find(opcode);
        if (reg == NULL) {
            return EM_ERR_UNKNOWN_OP;
        }
        em_status s;
        if (profile != NULL) {
            const uint64_t start = profile->read();
            s = reg->eval(&ctx);
            const uint64_t spent = profile->read() - start;
            profile->entries[i] = (em_profile_entry){
                opcode, reg->name, spent > profile->overhead ? spent - profile->overhead : 0u};
            profile->count = i + 1u;
        } else {
            s = reg->eval(&ctx);
        }
        if (s != EM_OK) {
            return s;
        }
    }
    return EM_OK;
}

em_status em_program_invoke(const em_program *program, uint8_t *const *arenas,
                            const uint32_t *arena_sizes, uint32_t n_arenas)
{
    if (!em_program_is_loaded(program)) {
        return EM_ERR_BAD_ARGUMENT; /* never loaded, or its load failed: never run it */
    }
    em_status s = em_check_arenas(program, arenas, arena_sizes, n_arenas);
    if (s != EM_OK) {
        return s;
    }
    s = em_invoke_operators(program, arenas, NULL, program->n_operators);
    if (s == EM_OK && program->n_state > 0u) {
        program->carry_state(program, arenas); /* em_state_commit, set by em_program_reset_state */
    }
    return s;
}

uint32_t em_program_state_count(const em_program *program)
{
    return em_program_is_loaded(program) ? program->n_state : 0u;
}

em_status em_program_invoke_until(const em_program *program, uint8_t *const *arenas,
                                  const uint32_t *arena_sizes, uint32_t n_arenas, uint32_t n_operators)
{
    if (!em_program_is_loaded(program) || n_operators > program->n_operators) {
        return EM_ERR_BAD_ARGUMENT;
    }
    em_status s = em_check_arenas(program, arenas, arena_sizes, n_arenas);
    if (s != EM_OK) {
        return s;
    }
    return em_invoke_operators(program, arenas, NULL, n_operators);
}

em_status em_program_tensor(const em_program *program, uint32_t index, uint8_t *const *arenas, em_tensor *tensor)
{
    if (!em_tensor_query_ok(program, arenas, tensor) || index >= program->n_tensors) {
        return EM_ERR_BAD_ARGUMENT;
    }
    em_program_tensor_trusted(em_trusted_view_of(program), index, arenas, true, tensor);
    return EM_OK;
}

#if defined(EM_PROFILE) && EM_PROFILE
em_status em_program_invoke_profiled(const em_program *program, uint8_t *const *arenas,
                                     const uint32_t *arena_sizes, uint32_t n_arenas,
                                     em_profile *profile)
{
    if (profile == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
    profile->count = 0u;
    if (!em_program_is_loaded(program) || profile->read == NULL || profile->entries == NULL
        || profile->capacity < program->n_operators) {
        return EM_ERR_BAD_ARGUMENT;
    }
    em_status s = em_check_arenas(program, arenas, arena_sizes, n_arenas);
    if (s != EM_OK) {
        return s;
    }
    s = em_invoke_operators(program, arenas, profile, program->n_operators);
    if (s == EM_OK && program->n_state > 0u) {
        program->carry_state(program, arenas); /* em_state_commit, set by em_program_reset_state */
    }
    return s;
}
#endif

static em_status em_program_io(const em_program *program, bool output, uint32_t index,
                               uint8_t *const *arenas, em_tensor *tensor)
{
    if (tensor == NULL || !em_program_is_loaded(program)
        || (arenas == NULL && program->n_arenas > 0u)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    if (index >= (output ? program->n_outputs : program->n_inputs)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (arenas[i] == NULL && program->arena_size[i] > 0u) {
            return EM_ERR_BAD_ARGUMENT;
        }
    }
    const em_fb_buf buf = {program->data, (uint32_t)program->size};
    const em_fb_vector list = {output ? program->outputs_pos : program->inputs_pos, 0u};
    const uint32_t tensor_index = em_fb_vector_u32(&buf, &list, index); /* verified < n_tensors */
    em_program_tensor_trusted(em_trusted_view_of(program), tensor_index, arenas, true, tensor);
    return EM_OK;
}

em_status em_program_input(const em_program *program, uint32_t index, uint8_t *const *arenas,
                           em_tensor *tensor)
{
    return em_program_io(program, false, index, arenas, tensor);
}

bool em_program_input_kept(const em_program *program, uint32_t index)
{
    if (!em_program_is_loaded(program) || index >= program->n_inputs) {
        return false;
    }
    const em_fb_buf buf = {program->data, (uint32_t)program->size};
    const em_fb_table root = em_fb_trusted_table(&buf, program->root);
    const em_fb_vector kept = em_fb_trusted_vector(&buf, &root, EM_PROGRAM_INPUTS_KEPT); /* verified: 0 or n_inputs */
    return kept.len > index && em_fb_u8_at(&buf, kept.pos + index) != 0u;
}

em_status em_program_output(const em_program *program, uint32_t index, uint8_t *const *arenas,
                            em_tensor *tensor)
{
    return em_program_io(program, true, index, arenas, tensor);
}
