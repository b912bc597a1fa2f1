/**
 * @file em_executor.c
 * @brief em_program_invoke() and the tensor views of program inputs/outputs and op operands.
 *
 * Relies on em_program_load() having verified the program; every read still goes through the
 * bounds-checked reader, and any inconsistency is returned as a status, never acted upon.
 */
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

/** Opens the loaded @p program's view; EM_ERR_BAD_ARGUMENT if it was never loaded. */
static em_status em_open_loaded(const em_program *program, em_program_view *view)
{
    if (program == NULL || program->data == NULL) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const em_fb_buf buf = {program->data, (uint32_t)program->size};
    return em_program_view_open(&buf, view);
}

static em_status em_operand(const em_op_context *ctx, const em_fb_vector *list, uint32_t i,
                            em_tensor *out)
{
    if (i >= list->len) {
        return EM_ERR_BAD_OPERATOR;
    }
    return em_program_view_tensor(ctx->view, ctx->program, em_fb_vector_i32(&ctx->buf, list, i),
                                  ctx->arenas, out, NULL);
}

em_status em_op_input(const em_op_context *ctx, uint32_t i, em_tensor *out)
{
    return em_operand(ctx, &ctx->inputs, i, out);
}

em_status em_op_output(const em_op_context *ctx, uint32_t i, em_tensor *out)
{
    return em_operand(ctx, &ctx->outputs, i, out);
}

em_status em_op_options(const em_op_context *ctx, uint8_t type, em_fb_table *out)
{
    if (ctx->options_type != type || ctx->options.pos == 0u) {
        return EM_ERR_BAD_OPERATOR;
    }
    *out = ctx->options;
    return EM_OK;
}

uint32_t em_tensor_elements(const em_tensor *t)
{
    uint32_t n = 1u;
    for (int32_t i = 0; i < t->rank; i++) {
        int32_t dim;
        memcpy(&dim, &t->shape[i], sizeof dim);
        n *= (uint32_t)dim;
    }
    return n;
}

em_status em_program_invoke(const em_program *program, uint8_t *const *arenas,
                            const uint32_t *arena_sizes, uint32_t n_arenas)
{
    em_program_view view;
    em_status s = em_open_loaded(program, &view);
    if (s != EM_OK) {
        return s;
    }
    if (n_arenas < program->n_arenas) {
        return EM_ERR_ARENA_TOO_SMALL;
    }
    if (program->n_arenas > 0u && (arenas == NULL || arena_sizes == NULL)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (arena_sizes[i] < program->arena_size[i]) {
            return EM_ERR_ARENA_TOO_SMALL;
        }
        if (arenas[i] == NULL && program->arena_size[i] > 0u) {
            return EM_ERR_BAD_ARGUMENT;
        }
        if (((uintptr_t)arenas[i] & 15u) != 0u) {
            return EM_ERR_UNALIGNED;
        }
    }
    for (uint32_t i = 0; i < view.operators.len; i++) {
        em_op_context ctx;
        const em_op_registration *reg;
        uint16_t opcode;
        s = em_operator_open(&view, program, i, &ctx, &reg, &opcode);
        if (s != EM_OK) {
            return s;
        }
        ctx.arenas = arenas;
        s = reg->eval(&ctx);
        if (s != EM_OK) {
            return s;
        }
    }
    return EM_OK;
}

static em_status em_program_io(const em_program *program, bool output, uint32_t index,
                               uint8_t *const *arenas, em_tensor *tensor)
{
    em_program_view view;
    if (tensor == NULL || (arenas == NULL && program != NULL && program->n_arenas > 0u)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    em_status s = em_open_loaded(program, &view);
    if (s != EM_OK) {
        return s;
    }
    const em_fb_vector *list = output ? &view.outputs : &view.inputs;
    if (index >= list->len) {
        return EM_ERR_BAD_ARGUMENT;
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (arenas[i] == NULL && program->arena_size[i] > 0u) {
            return EM_ERR_BAD_ARGUMENT;
        }
    }
    return em_program_view_tensor(&view, program, em_fb_vector_i32(&view.buf, list, index),
                                  arenas, tensor, NULL);
}

em_status em_program_input(const em_program *program, uint32_t index, uint8_t *const *arenas,
                           em_tensor *tensor)
{
    return em_program_io(program, false, index, arenas, tensor);
}

em_status em_program_output(const em_program *program, uint32_t index, uint8_t *const *arenas,
                            em_tensor *tensor)
{
    return em_program_io(program, true, index, arenas, tensor);
}
