/**
 * @file em_app_model.h
 * @brief What every app's firmware does around its model, in one place: the arena(s) sized by the
 *        compiler's plan, loading the embedded program, its input and output views, the timed
 *        invoke and the console lines site_scons/ember_build/report.py parses:
 *
 *     EM program bytes=<program bytes> arena=<arena 0 bytes> unit=<counter unit>
 *     EM vector <i> instructions=<count> score_bits=<float32, 8 hex digits, big endian> output=<hex bytes>
 *     EM stack peak=<bytes>
 *     EM done
 *     EM error <what> <status name>           (on failure, instead of the rest)
 *
 * An app's main.c: em_app_model_open(), then per input its own fill, em_app_model_invoke() and its
 * responder (which prints the vector line with em_app_print_vector()), then em_app_model_finish().
 * The serving firmware (link_main.c) uses em_app_arenas / em_app_arena_sizes only.
 * Every app build has its gen/ folder on the include path: em_app_model.c includes the generated
 * em_model_arena.h and em_model_program.h of the app being built (with several programs, their
 * arrays em_model_program_<name>: em_app_model_open_program).
 */
#ifndef EM_APP_MODEL_H
#define EM_APP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "em_model_arena.h"
#include "ember.h"

/** Number of arenas the program is planned into (one per memory region the plan uses). */
#define EM_APP_ARENAS EM_MODEL_ARENA_COUNT

/** The arenas (defined in em_app_model.c only, each in its region's linker section), 16-byte
 *  aligned, and their sizes in bytes: EM_APP_ARENAS of each. */
extern uint8_t *const *const em_app_arenas;
extern const uint32_t *const em_app_arena_sizes;

/** Copies the weights the app pinned to RAM (app.yaml memory: pin:) into their arenas: once,
 *  after loading, before the first invoke (em_app_model_open does it). */
em_status em_app_copy_constants(em_program *program);

/** Gives a program that keeps state between invokes (ember.h, em_program_reset_state) its reset
 *  value, so that its first invoke starts a stream: once after loading (em_app_model_open and
 *  the serving firmware do it), and again to start a new stream. EM_OK for a program without. */
em_status em_app_reset_state(em_program *program);

#ifndef EM_SEALED
#define EM_SEALED 0
#endif

/**
 * Opens a program linked into this firmware. Sealed firmware (the default app build, EM_SEALED=1)
 * checks only its CRC-32: the build verified the bytes on the host (runtime/README.md, "Who
 * verifies what"); a `verify=1` build verifies them here with em_program_load().
 * @return EM_OK, EM_ERR_PROGRAM_CORRUPT (sealed: not the bytes the build verified), or the
 *         verifier's status.
 */
static inline em_status em_app_open_linked(em_program *program, const uint8_t *data, size_t size, uint32_t crc32)
{
#if EM_SEALED
    return em_program_open_sealed(program, data, size, crc32);
#else
    (void)crc32;
    return em_program_load(program, data, size);
#endif
}

/** A loaded program and views of its input 0 and output 0 in the arenas. */
typedef struct {
    em_program program;
    em_tensor input;  /**< the program's input 0: the app's input provider fills input.data (input.size bytes) */
    em_tensor output; /**< the program's output 0, valid after em_app_model_invoke() */
} em_app_model;

/**
 * Prints `EM error <what> <status name>`.
 * @return (int)@p status, the exit status of the firmware that stops here.
 */
int em_app_fail(const char *what, em_status status);

/**
 * Loads the embedded program (em_model_program.h), takes views of input 0 and output 0, and
 * prints the `EM program ...` line.
 * @return EM_OK; or the failing status after printing `EM error load ...` / `EM error io ...`.
 */
em_status em_app_model_open(em_app_model *model);

/**
 * The same for a firmware with several programs (its em_model_program.h defines
 * EM_MODEL_PROGRAMS and em_model_program_<name>, and em_app_model_open is not defined): loads
 * @p program (@p size bytes, 16-byte aligned, CRC-32 @p crc32: em_model_program_<name>_crc32).
 * The programs share em_app_arenas (sized for the largest plan per region): their views are
 * valid only until another program runs.
 * @return as em_app_model_open().
 */
em_status em_app_model_open_program(em_app_model *model, const uint8_t *program, size_t size, uint32_t crc32);

/**
 * Runs one inference over em_app_arenas, timed by the board's counter.
 * @param count  out: counter units the invoke took less the counter's own overhead
 *               (instructions in QEMU, cycles on silicon, ns on the host: em_bsp_counter_unit()).
 * @return EM_OK; or the runtime's status after printing `EM error invoke ...`.
 */
em_status em_app_model_invoke(em_app_model *model, uint64_t *count);

/**
 * Prints `EM vector <index> instructions=<count> score_bits=<hex> output=<hex bytes>`: @p score
 * as its float32 bits, big endian; @p output the @p size bytes of the program's output.
 */
void em_app_print_vector(uint32_t index, uint64_t count, float score, const void *output, size_t size);

/** Prints `EM stack peak=<bytes>` (0 where the board cannot measure it) and `EM done`; returns 0. */
int em_app_model_finish(void);

#endif
