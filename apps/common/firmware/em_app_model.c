#include "em_app_model.h"

#include <string.h>

#include "em_bsp.h"
#include "em_model_arena.h"
#include "em_model_program.h"
#include "em_print.h"

/* The one definition of the arenas every app firmware (main.c and link_main.c) runs the program
 * in: one per memory region of the compiler's plan (generated em_model_arena.h), each in its
 * region's linker section, 16-byte aligned for vector loads. */
EM_MODEL_ARENAS_DEFINE(app_arenas);

uint8_t *const *const em_app_arenas = app_arenas;
const uint32_t *const em_app_arena_sizes = app_arenas_sizes;

em_status em_app_copy_constants(em_program *program) {
#if EM_MODEL_PINNED_CONSTANTS > 0 || !EM_SEALED /* verify=1: the copy checks any pins the program has */
    return em_program_copy_constants(program, em_app_arenas, em_app_arena_sizes, EM_APP_ARENAS);
#else
    (void)program; /* sealed, nothing pinned: the copy is not linked (runtime core stays small) */
    return EM_OK;
#endif
}

em_status em_app_reset_state(em_program *program) {
#if EM_MODEL_STATE_TENSORS > 0 || !EM_SEALED /* verify=1: a program from elsewhere may carry state */
    return em_program_reset_state(program, em_app_arenas, em_app_arena_sizes, EM_APP_ARENAS);
#else
    (void)program; /* sealed, no state: the reset is not linked */
    return EM_OK;
#endif
}

int em_app_fail(const char *what, em_status status) {
    em_print("EM error ");
    em_print(what);
    em_print(" ");
    em_print(em_status_name(status));
    em_print("\n");
    return (int)status;
}

/* Loading, shared by the one-program open and the several-program one; always inlined so that a
 * one-program firmware's em_app_model_open is the code it always was. */
static inline __attribute__((always_inline)) em_status open_embedded(em_app_model *model, const uint8_t *data,
                                                                     size_t size, uint32_t crc32) {
    em_status status = em_app_open_linked(&model->program, data, size, crc32);
    if (status == EM_OK) {
        status = em_app_copy_constants(&model->program);
    }
    if (status == EM_OK) { /* a program that keeps state starts a stream from its reset value */
        status = em_app_reset_state(&model->program);
    }
    if (status != EM_OK) {
        em_app_fail("load", status);
        return status;
    }
    if ((status = em_program_input(&model->program, 0, em_app_arenas, &model->input)) != EM_OK ||
        (status = em_program_output(&model->program, 0, em_app_arenas, &model->output)) != EM_OK) {
        em_app_fail("io", status);
        return status;
    }
    em_print("EM program bytes=");
    em_print_u64(size);
    em_print(" arena=");
    em_print_u64(em_program_arena_size(&model->program, 0));
    em_print(" unit=");
    em_print(em_bsp_counter_unit());
    em_print("\n");
    return EM_OK;
}

#ifdef EM_MODEL_PROGRAMS
/* Several programs (em_model_program.h from compiler.program.emit_programs_c): the app names each. */
em_status em_app_model_open_program(em_app_model *model, const uint8_t *program, size_t size, uint32_t crc32) {
    return open_embedded(model, program, size, crc32);
}
#else
em_status em_app_model_open(em_app_model *model) {
    return open_embedded(model, em_model_program, em_model_program_size, em_model_program_crc32);
}
#endif

em_status em_app_model_invoke(em_app_model *model, uint64_t *count) {
    const uint64_t start = em_bsp_counter_read();
    const em_status status = em_program_invoke(&model->program, em_app_arenas, em_app_arena_sizes, EM_APP_ARENAS);
    *count = em_bsp_counter_read() - start - em_bsp_counter_overhead();
    if (status != EM_OK) {
        em_app_fail("invoke", status);
    }
    return status;
}

void em_app_print_vector(uint32_t index, uint64_t count, float score, const void *output, size_t size) {
    uint32_t bits;
    memcpy(&bits, &score, sizeof bits);
    const uint8_t be[4] = {(uint8_t)(bits >> 24), (uint8_t)(bits >> 16), (uint8_t)(bits >> 8), (uint8_t)bits};
    em_print("EM vector ");
    em_print_u64(index);
    em_print(" instructions=");
    em_print_u64(count);
    em_print(" score_bits=");
    em_print_hex(be, sizeof be);
    em_print(" output=");
    em_print_hex(output, size);
    em_print("\n");
}

int em_app_model_finish(void) {
    em_print("EM stack peak=");
    em_print_u64(em_bsp_stack_peak());
    em_print("\n");
    em_print("EM done\n");
    return 0;
}
