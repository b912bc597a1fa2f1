/**
 * @file link_main.c
 * @brief The serving firmware of every app (`scons app=<app> serve=1`): loads the embedded
 *        program and answers the serial link's requests (em_link.h) until told to shut down.
 *
 * It takes the place of the app's own main.c, which runs the embedded test vectors; the app's
 * other firmware files (post-processing: em_link_app_result, if the app has one) link with it,
 * and so does em_app_model.c, which declares the arenas.
 */
#include <stdint.h>

#include "em_app_model.h"
#include "em_link.h"
#include "em_model_program.h"
#include "ember.h"

#ifndef EM_APP_NAME
#define EM_APP_NAME ""
#endif

static em_program program;

/* RESET_STATE: the program's persistent tensors from their reset value again, in em_app_arenas. */
static em_status reset_state(void)
{
    return em_app_reset_state(&program);
}

int em_app_main(void)
{
    em_status status = em_app_open_linked(&program, em_model_program, em_model_program_size, em_model_program_crc32);
    if (status == EM_OK) { /* weights pinned to RAM (app.yaml memory: pin:): copied once */
        status = em_app_copy_constants(&program);
    }
    if (status == EM_OK) { /* state, if the program keeps any, from its reset value: RUNs continue it */
        status = em_app_reset_state(&program);
    }
    const em_link_model model = {
        .load_status = status,
        .program = &program,
        .arenas = em_app_arenas,
        .arena_sizes = em_app_arena_sizes,
        .n_arenas = EM_APP_ARENAS,
        .app_name = EM_APP_NAME,
        .reset_state = reset_state,
    };
    return em_link_serve(&model);
}
