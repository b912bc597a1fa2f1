/**
 * The keyword-spotting app: loads the embedded program, runs every embedded 1 s clip of raw
 * audio through it (the MFCC front end and the DS-CNN are both in the program), and reports the
 * class probabilities, the detected keyword and counted instructions per inference.
 * Exit status: 0 when every inference ran, else the runtime status that stopped it.
 */
#include <stdint.h>

#include "em_bsp.h"
#include "em_model_program.h"
#include "em_print.h"
#include "ember.h"
#include "input_provider.h"
#include "responder.h"

/* One arena per memory region of the compiler's plan (em_model_arena.h), each in its region's
 * linker section; 16-byte aligned for vector loads. Defines arenas[] and arenas_sizes[]. */
#include "em_model_arena.h"
EM_MODEL_ARENAS_DEFINE(arenas);

static int fail(const char *what, em_status status) {
    em_print("EM error ");
    em_print(what);
    em_print(" ");
    em_print(em_status_name(status));
    em_print("\n");
    return (int)status;
}

int em_app_main(void) {
    em_program program;
    em_status status = em_program_load(&program, em_model_program, em_model_program_size);
    if (status != EM_OK) {
        return fail("load", status);
    }
    /* Weights the app pinned to RAM (app.yaml memory: pin:) are copied there once, now. */
    if ((status = em_program_copy_constants(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT)) != EM_OK) {
        return fail("load", status);
    }
    em_tensor input, output;
    if ((status = em_program_input(&program, 0, arenas, &input)) != EM_OK ||
        (status = em_program_output(&program, 0, arenas, &output)) != EM_OK) {
        return fail("io", status);
    }
    em_print("EM program bytes=");
    em_print_u64(em_model_program_size);
    em_print(" arena=");
    em_print_u64(em_program_arena_size(&program, 0));
    em_print(" unit=");
    em_print(em_bsp_counter_unit());
    em_print("\n");

    for (uint32_t i = 0; i < input_count(); ++i) {
        if (input_fill(i, (int16_t *)input.data, input.size) != 0) {
            return fail("input", EM_ERR_BAD_ARGUMENT);
        }
        const uint64_t start = em_bsp_counter_read();
        status = em_program_invoke(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT);
        const uint64_t count = em_bsp_counter_read() - start - em_bsp_counter_overhead();
        if (status != EM_OK) {
            return fail("invoke", status);
        }
        respond(i, count, (const float *)output.data, output.size);
    }
    em_print("EM stack peak=");
    em_print_u64(em_bsp_stack_peak());
    em_print("\n");
    em_print("EM done\n");
    return 0;
}
