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

/* One arena per memory region of the compiler's plan, each in its region's linker section. */
EM_MODEL_ARENAS_DEFINE(arenas);

#ifndef EM_APP_NAME
#define EM_APP_NAME ""
#endif

int em_app_main(void)
{
    static em_program program;
    em_status status = em_program_load(&program, em_model_program, em_model_program_size);
    if (status == EM_OK) { /* weights pinned to RAM (app.yaml memory: pin:): copied once */
        status = em_program_copy_constants(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT);
    }
    const em_link_model model = {
        .load_status = status,
        .program = &program,
        .arenas = arenas,
        .arena_sizes = arenas_sizes,
        .n_arenas = EM_MODEL_ARENA_COUNT,
        .app_name = EM_APP_NAME,
    };
    return em_link_serve(&model);
}
