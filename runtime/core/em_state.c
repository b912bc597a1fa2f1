/**
 * @file em_state.c
 * @brief Persistent tensors (Program.state): checked at load, reset by the caller, carried by invoke.
 *
 * A program lowered with state (compiler/passes/bind_state.py) keeps some arena bytes from one
 * invoke to the next: the state tensor ops read, and the tensor holding its next value, which
 * invoke copies over it after the last operator (or which the plan already put on the same
 * bytes: nothing to copy). The plan keeps both alive over every step, so no other tensor is
 * ever placed on them; the caller must therefore hand every invoke the same arenas.
 */
#include "em_program_view.h"

/** The state entry @p i of a loaded program: its tensor and next tensor, trusted. */
static void em_state_tensors(const em_program *program, uint8_t *const *arenas, uint32_t i, em_tensor *state,
                             em_tensor *next)
{
    const em_fb_buf b = {program->data, 0u};
    const em_fb_table entry = em_fb_trusted_vector_table(&b, program->state_pos, i);
    const em_trusted_view v = em_trusted_view_of(program);
    em_program_tensor_trusted(v, (uint32_t)em_fb_trusted_i32(&b, &entry, EM_STATE_TENSOR, -1), arenas, true, state);
    if (next != NULL) {
        em_program_tensor_trusted(v, (uint32_t)em_fb_trusted_i32(&b, &entry, EM_STATE_NEXT, -1), arenas, true, next);
    }
}

em_status em_program_state_tensor(const em_program *program, uint32_t index, uint8_t *const *arenas, em_tensor *tensor,
                                  uint32_t *tensor_index)
{
    if (!em_tensor_query_ok(program, arenas, tensor) || index >= program->n_state) {
        return EM_ERR_BAD_ARGUMENT;
    }
    em_state_tensors(program, arenas, index, tensor, NULL);
    if (tensor_index != NULL) {
        const em_fb_buf b = {program->data, 0u};
        const em_fb_table entry = em_fb_trusted_vector_table(&b, program->state_pos, index);
        *tensor_index = (uint32_t)em_fb_trusted_i32(&b, &entry, EM_STATE_TENSOR, -1); /* verified at load */
    }
    return EM_OK;
}

em_status em_program_reset_state(em_program *program, uint8_t *const *arenas, const uint32_t *arena_sizes,
                                 uint32_t n_arenas)
{
    const em_status fit = em_loaded_and_fits(program, arenas, arena_sizes, n_arenas);
    if (fit != EM_OK) {
        return fit;
    }
    for (uint32_t i = 0; i < program->n_state; i++) {
        em_tensor t;
        em_state_tensors(program, arenas, i, &t, NULL);
        /* A real 0: the zero point, in the tensor's element type (the loader allows integers only). */
        const int32_t zero = t.zero_point;
        uint8_t *bytes = (uint8_t *)t.data;
        for (uint32_t k = 0; k < t.size; k++) {
            const uint32_t lane = t.dtype == EM_DTYPE_INT16 ? k % 2u : t.dtype == EM_DTYPE_INT32 ? k % 4u : 0u;
            bytes[k] = (uint8_t)((uint32_t)zero >> (8u * lane)); /* little-endian, as the program's values */
        }
    }
    program->carry_state = em_state_commit;
    return EM_OK;
}

void em_state_commit(const void *opaque, uint8_t *const *arenas)
{
    const em_program *program = (const em_program *)opaque;
    for (uint32_t i = 0; i < program->n_state; i++) {
        em_tensor state, next;
        em_state_tensors(program, arenas, i, &state, &next);
        if (state.data != next.data) {
            memmove(state.data, next.data, state.size);
        }
    }
}

#if !EM_SEALED /* the build's verifier checked a sealed program's state */

/** Whether tensor @p index is one of the program's inputs or outputs. */
static bool em_is_io(const em_program_view *v, int32_t index)
{
    for (uint32_t side = 0; side < 2u; side++) {
        const em_fb_vector *list = side ? &v->outputs : &v->inputs;
        for (uint32_t k = 0; k < list->len; k++) {
            if (em_fb_vector_i32(&v->buf, list, k) == index) {
                return true;
            }
        }
    }
    return false;
}

/** Tensor @p index checked as a place state may live: an integer arena tensor, not pinned. */
static em_status em_state_place(const em_program_view *v, const em_program *program, int32_t index, em_tensor *t)
{
    bool in_arena;
    em_fb_table table;
    int32_t pinned;
    em_status s = em_program_view_tensor(v, program, index, NULL, t, &in_arena);
    if (s == EM_OK) s = em_fb_vector_table(&v->buf, &v->tensors, (uint32_t)index, &table);
    if (s == EM_OK) s = em_fb_field_i32(&v->buf, &table, EM_TENSOR_INITIAL_BUFFER, -1, &pinned);
    if (s == EM_OK && (!in_arena || pinned != -1)) {
        s = EM_ERR_MALFORMED; /* state in the program's read-only bytes, or a pinned constant */
    }
    if (s == EM_OK && t->dtype != EM_DTYPE_INT8 && t->dtype != EM_DTYPE_INT16 && t->dtype != EM_DTYPE_INT32) {
        s = EM_ERR_MALFORMED; /* reset writes a zero point: integer state only */
    }
    return s;
}

em_status em_load_state(const em_program_view *v, const em_program *program, uint32_t version, em_fb_vector *state)
{
    em_status s = em_fb_field_vector(&v->buf, &v->root, EM_PROGRAM_STATE, 4u, 4u, state);
    if (s == EM_OK && (version == EM_SCHEMA_VERSION_STATE) != (state->len > 0u)) {
        s = EM_ERR_MALFORMED; /* state needs version 2; version 2 means state */
    }
    for (uint32_t i = 0; s == EM_OK && i < state->len; i++) {
        em_fb_table entry;
        int32_t index, next;
        em_tensor t, n;
        s = em_fb_vector_table(&v->buf, state, i, &entry);
        if (s == EM_OK) s = em_fb_field_i32(&v->buf, &entry, EM_STATE_TENSOR, -1, &index);
        if (s == EM_OK) s = em_fb_field_i32(&v->buf, &entry, EM_STATE_NEXT, -1, &next);
        if (s == EM_OK) s = em_state_place(v, program, index, &t);
        if (s == EM_OK) s = em_state_place(v, program, next, &n);
        if (s == EM_OK && (n.size != t.size || n.dtype != t.dtype)) {
            s = EM_ERR_BAD_SIZE; /* the next value must fit the state's bytes exactly */
        }
        if (s == EM_OK && em_is_io(v, index)) {
            s = EM_ERR_MALFORMED; /* the caller writes inputs and reads outputs: not state */
        }
        for (uint32_t k = 0; s == EM_OK && k < i; k++) {
            em_fb_table other;
            int32_t other_index;
            s = em_fb_vector_table(&v->buf, state, k, &other);
            if (s == EM_OK) s = em_fb_field_i32(&v->buf, &other, EM_STATE_TENSOR, -1, &other_index);
            if (s == EM_OK && other_index == index) {
                s = EM_ERR_MALFORMED; /* one tensor, two states */
            }
        }
    }
    return s;
}

#endif /* !EM_SEALED */
