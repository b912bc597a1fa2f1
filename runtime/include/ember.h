/**
 * @file ember.h
 * @brief Ember runtime: load a program file in place, then run it over caller-owned arenas.
 *
 * Lifetimes and ownership
 * - The program bytes belong to the caller (usually a const array in flash). They must stay
 *   valid and unchanged for as long as the em_program that refers to them; nothing is copied.
 * - Arenas (one per memory region, sizes from em_program_arena_size()) belong to the caller,
 *   typically static arrays placed in the board's memories. The runtime never allocates.
 * - The em_program struct belongs to the caller too (a local or static); it is plain data that
 *   points into the program bytes. Copying it is fine; editing its fields is not.
 *
 * Verify once, then trust
 * - A program is verified once, where it crosses a trust boundary: a program linked into sealed
 *   firmware was verified by the build on the host (em_program_open_sealed() checks its CRC-32);
 *   one that arrives at run time is verified on the device by em_program_load().
 * - em_program_load() verifies everything invoke will read: every table, vector and string in
 *   bounds, every tensor's bytes inside its buffer or arena, every operator's operands, options
 *   and opcode (each operator's own check()). Only on success does it mark the em_program as
 *   loaded; on any failure the struct is cleared (it only names the failing operator).
 * - em_program_invoke(), em_program_input() and em_program_output() accept only a loaded
 *   em_program (else EM_ERR_BAD_ARGUMENT) and then read the program bytes WITHOUT bounds checks
 *   (em_fb.h, "trusted reads"): no re-verification per invoke, a few dozen instructions of
 *   bookkeeping per operator. Hence the rule above: if the program bytes change after a
 *   successful load, load them again before the next invoke. The checks on the caller's
 *   arguments (arena count, sizes, alignment) stay, since those can change at every call.
 * - No memory besides the em_program struct is needed: invoke resolves each operator's
 *   operands from the verified bytes as it goes (nothing is cached between calls).
 */
#ifndef EMBER_H
#define EMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_schema.h"
#include "em_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Schema versions this runtime reads (compiler/schema/program.fbs, Program.schema_version): 1, a
 *  program without state, and 2, one with persistent tensors (Program.state). */
#define EM_SCHEMA_VERSION 1u
#define EM_SCHEMA_VERSION_STATE 2u

/** Maximum number of arenas (memory regions) a program may use. */
#define EM_MAX_ARENAS 4

/** ISA tiers: the schema's Tier enum (EM_TIER_SCALAR, EM_TIER_DSP, EM_TIER_MVE; em_schema.h,
 *  generated from compiler/schema/program.fbs). */
typedef enum em_tier em_tier;

/** Element types: the schema's DType enum (EM_DTYPE_INT8, EM_DTYPE_INT32, EM_DTYPE_FLOAT32,
 *  EM_DTYPE_INT16, EM_DTYPE_INT4; em_schema.h). EM_DTYPE_INT4 is weights only, two to a byte
 *  (compiler/int4.py): a constant, or one pinned to RAM, never an activation; its size is its
 *  packed bytes. */
typedef enum em_dtype em_dtype;

/** A verified program. Plain data pointing into the caller's program bytes. */
typedef struct {
    const uint8_t *data;   /**< program file bytes (caller-owned) */
    size_t size;           /**< their length (the whole file, its CRC-32 trailer included) */
    uint32_t root;         /**< offset of the Program table */
    uint32_t n_tensors;
    uint32_t n_operators;
    uint32_t n_inputs;
    uint32_t n_outputs;
    uint32_t n_arenas;
    uint32_t arena_size[EM_MAX_ARENAS];
    /** After a failed load: the operator that failed (EM_NO_OPERATOR if none) and its opcode,
     *  so that a message can name it (e.g. an opcode missing from the registry). */
    uint32_t error_operator;
    uint32_t error_opcode;
    /* Runtime-internal, set by a successful load: positions (in the program bytes) of element 0
     * of the Program's verified vectors, and a token marking the struct as loaded. */
    uint32_t tensors_pos;
    uint32_t operators_pos;
    uint32_t inputs_pos;
    uint32_t outputs_pos;
    uint32_t buffers_pos;
    uint32_t loaded;
    /** Constants pinned to RAM (Tensor.initial_buffer >= 0), and how many of them
     *  em_program_copy_constants() has copied: invoke refuses to run until they are equal. */
    uint32_t n_pinned;
    uint32_t n_copied;
    /** Persistent tensors (Program.state): how many, the position of their vector, and, once
     *  em_program_reset_state() has given them their first value, what carries them from one
     *  invoke to the next (NULL before: invoke refuses). A pointer the reset sets, so that
     *  firmware that never resets state (its program has none) links none of the state code. */
    uint32_t n_state;
    uint32_t state_pos;
    void (*carry_state)(const void *program, uint8_t *const *arenas);
} em_program;

/** em_program.error_operator when the failure was not in an operator. */
#define EM_NO_OPERATOR 0xFFFFFFFFu

/** A tensor as the application sees it: where its bytes are and how to read them. */
typedef struct {
    void *data;            /**< in an arena (inputs/outputs) or in the program (constants) */
    uint32_t size;         /**< bytes */
    em_dtype dtype;
    int32_t rank;
    const int32_t *shape;  /**< little-endian int32[rank], inside the program bytes */
    float scale;           /**< first (or only) quantization scale; 0 when unquantized */
    int32_t zero_point;    /**< first (or only) zero point */
} em_tensor;

/** The tier this runtime was compiled for (from the compiler's target feature macros). */
em_tier em_runtime_tier(void);

/**
 * Verifies @p data as a program for this runtime and fills @p program.
 * Checks: size and alignment, file identifier "EMBR", the CRC-32 trailer over every other byte
 * (EM_ERR_PROGRAM_CORRUPT: any byte changed since the compiler wrote it), schema version, tier, every table and
 * vector inside the buffer, every tensor index, every tensor's size against its shape and
 * dtype and its bytes inside its buffer or arena, every operator's arity and options, and
 * that every opcode is in this firmware's registry.
 * Not in sealed firmware (EM_SEALED=1), which verifies nothing at run time.
 * @param data  program bytes, 4-byte aligned (16 recommended for in-place constants)
 * @return EM_OK, or the status naming the first problem found.
 */
em_status em_program_load(em_program *program, const void *data, size_t size);

/**
 * Opens a program that the build verified on the host, in firmware sealed to it (the default app
 * build, EM_SEALED=1; runtime/README.md, "Who verifies what"). It checks only that the bytes
 * are the verified ones, by their CRC-32, and then trusts them as em_program_load() would after
 * verifying: no structural check and no operator's check() is linked. Never pass bytes that
 * arrive at run time (over a link, from a file or external flash): em_program_load() them.
 * @param data   program bytes, 4-byte aligned, as the build verified them
 * @param crc32  em_program_crc32() of those bytes, recorded by the build (<symbol>_crc32 in the
 *               generated em_model_program.c)
 * @return EM_OK; EM_ERR_BAD_ARGUMENT; EM_ERR_UNALIGNED; EM_ERR_PROGRAM_CORRUPT when the bytes'
 *         CRC-32 is not @p crc32 (the struct is then cleared and nothing may run).
 */
em_status em_program_open_sealed(em_program *program, const void *data, size_t size, uint32_t crc32);

/** CRC-32 of @p size bytes (IEEE 802.3, as zlib's crc32): a program file's trailer is the CRC-32
 *  of the bytes before it, and the CRC-32 of the whole file binds a sealed program. */
uint32_t em_program_crc32(const void *data, size_t size);

/**
 * Copies the program's constants pinned to RAM (app.yaml `memory: pin:`, e.g. the weights of the
 * hottest layers to DTCM) from the program bytes into their planned places in @p arenas, once,
 * after em_program_load() and before the first invoke. No heap: the places are arena bytes the
 * plan keeps alive over every step, so no operator overwrites them and later invokes must be
 * given the same arenas. A program without pinned constants copies nothing.
 * @param arenas  @p n_arenas pointers, arena i of em_program_arena_size(program, i) bytes or more
 * @return EM_OK; EM_ERR_BAD_ARGUMENT if @p program is not loaded or arenas are NULL;
 *         EM_ERR_ARENA_TOO_SMALL / EM_ERR_UNALIGNED as for em_program_invoke().
 */
em_status em_program_copy_constants(em_program *program, uint8_t *const *arenas, const uint32_t *arena_sizes,
                                    uint32_t n_arenas);

/**
 * Gives the program's persistent tensors (recurrent state, the frames a streamed convolution
 * keeps; Program.state) their reset value, a real 0 (each tensor's zero point), in @p arenas:
 * once after load, before the first invoke, and again whenever a new sequence starts. Each
 * invoke then continues from what the one before left (em_program_invoke); a program without
 * state has nothing to reset and runs without this call.
 * @param arenas  the arenas every later invoke is given (the state lives in them)
 * @return EM_OK; EM_ERR_BAD_ARGUMENT if @p program is not loaded or arenas are NULL;
 *         EM_ERR_ARENA_TOO_SMALL / EM_ERR_UNALIGNED as for em_program_invoke().
 */
em_status em_program_reset_state(em_program *program, uint8_t *const *arenas, const uint32_t *arena_sizes,
                                 uint32_t n_arenas);

/** How many persistent tensors the program keeps between invokes (0: none; 0 if not loaded). */
uint32_t em_program_state_count(const em_program *program);

/**
 * Persistent tensor @p index (0..em_program_state_count()-1) as a view into @p arenas: what the
 * next invoke reads (after em_program_reset_state(), each tensor's zero point). For hosts and
 * debuggers (the serial link's INFO lists them, GET_TENSOR reads them); write it only through
 * em_program_reset_state().
 * @param tensor_index  out, may be NULL: its index in the program file's numbering (em_program_tensor)
 * @return EM_OK or EM_ERR_BAD_ARGUMENT (not loaded, no such state, NULL arenas or @p tensor).
 */
em_status em_program_state_tensor(const em_program *program, uint32_t index, uint8_t *const *arenas, em_tensor *tensor,
                                  uint32_t *tensor_index);

/** Bytes arena @p index needs (0 if there is no such arena). */
uint32_t em_program_arena_size(const em_program *program, uint32_t index);

/**
 * Runs every operator in order, trusting the verification done by em_program_load(). Inputs
 * the plan reuses hold other bytes afterwards: write them again first (em_program_input_kept).
 * A program with state (em_program_state_count() > 0) reads the state the invoke before left,
 * and leaves its next value for the one after: give every invoke the same arenas.
 * @param program a program em_program_load() accepted, its bytes unchanged since
 * @param arenas  @p n_arenas pointers, arena i of at least em_program_arena_size(program, i)
 *                bytes, 16-byte aligned.
 * @return EM_OK; EM_ERR_BAD_ARGUMENT for a NULL or not (successfully) loaded @p program, or
 *         NULL arenas; EM_ERR_ARENA_TOO_SMALL if fewer or smaller arenas than the program needs
 *         are given; EM_ERR_UNALIGNED; EM_ERR_STATE_NOT_RESET for a program with state that
 *         em_program_reset_state() has not reset; or a kernel's status.
 */
em_status em_program_invoke(const em_program *program, uint8_t *const *arenas,
                            const uint32_t *arena_sizes, uint32_t n_arenas);

/**
 * Runs only the first @p n_operators operators (0..n_operators), like em_program_invoke(): for
 * debuggers, which then read the last one's outputs with em_program_tensor() before a later
 * operator reuses their memory (tools/debug_numerics.py over the serial link). The state is not
 * carried forward, and may be partly overwritten: reset it before the next full invoke.
 * @return as em_program_invoke(); EM_ERR_BAD_ARGUMENT if @p n_operators exceeds the program's.
 */
em_status em_program_invoke_until(const em_program *program, uint8_t *const *arenas,
                                  const uint32_t *arena_sizes, uint32_t n_arenas, uint32_t n_operators);

/**
 * Tensor @p index (0..n_tensors-1, the program file's numbering) as a view into @p arenas
 * (activations) or into the program (constants). An activation's bytes are meaningful only
 * while the plan keeps it alive (see em_program_invoke_until). @return EM_OK or EM_ERR_BAD_ARGUMENT.
 */
em_status em_program_tensor(const em_program *program, uint32_t index, uint8_t *const *arenas, em_tensor *tensor);

/** Program input @p index (0..n_inputs-1) as a view into @p arenas. @return EM_OK or EM_ERR_BAD_ARGUMENT. */
em_status em_program_input(const em_program *program, uint32_t index, uint8_t *const *arenas,
                           em_tensor *tensor);

/**
 * Whether program input @p index still holds what the caller wrote after an invoke. The plan
 * may reuse an input's bytes for later tensors (it does on all four MLPerf models: keeping them
 * would cost 4-83 % more arena); such an input is consumed by every invoke (and
 * em_program_invoke_until), and must be written again before the next one, or that invoke reads
 * whatever the plan left there. The serial link enforces this (em_link.h: RUN after RUN with no
 * SET_INPUT is refused with INPUT_CONSUMED); a caller of this API writes its inputs before every
 * invoke, as the apps do, or asks here.
 * @return true when no operator writes over the input's bytes (the program's inputs_kept);
 *         false when they are reused, for an index out of range, or a program not loaded.
 */
bool em_program_input_kept(const em_program *program, uint32_t index);

/** Program output @p index, like em_program_input(). */
em_status em_program_output(const em_program *program, uint32_t index, uint8_t *const *arenas,
                            em_tensor *tensor);

#ifdef __cplusplus
}
#endif

#endif /* EMBER_H */
