/**
 * @file link_main.c
 * @brief The serving firmware of every app (`scons app=<app> serve=1`): loads the embedded
 *        program and answers the serial link's requests (em_link.h) until told to shut down.
 *
 * It takes the place of the app's own main.c, which runs the embedded test vectors; the app's
 * other firmware files (post-processing: em_link_app_result, if the app has one) link with it.
 */
#include <stdint.h>

#include "em_bsp.h"
#include "em_link.h"
#include "em_model_arena.h"
#include "em_model_program.h"
#include "ember.h"

/* Sized by the compiler's plan; 16-byte aligned for vector loads. */
static uint8_t arena[EM_MODEL_ARENA_BYTES] __attribute__((aligned(16), section(EM_MODEL_ARENA_SECTION)));

#ifndef EM_APP_NAME
#define EM_APP_NAME ""
#endif

int em_app_main(void)
{
    static em_program program;
    uint8_t *const arenas[1] = {arena};
    const uint32_t sizes[1] = {sizeof arena};
    const em_link_model model = {
        .load_status = em_program_load(&program, em_model_program, em_model_program_size),
        .program = &program,
        .arenas = arenas,
        .arena_sizes = sizes,
        .n_arenas = 1,
        .app_name = EM_APP_NAME,
    };
    return em_link_serve(&model);
}
