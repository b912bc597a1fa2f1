/**
 * @file em_profile.h
 * @brief Per-operator profiling: em_program_invoke_profiled() runs a program like
 *        em_program_invoke() and records, for every operator, the counter units its eval() took.
 *
 * Compile-time option: the runtime defines em_program_invoke_profiled() only when it is built
 * with EM_PROFILE=1 (e.g. `-DEM_PROFILE=1` on every runtime source). Without it nothing of this
 * file is compiled in, and em_program_invoke() is the same code either way: profiling costs
 * nothing when it is off, and an unprofiled invoke in a profiling build counts the same.
 *
 * The runtime knows no board: the caller hands it the counter to read (on Ember boards
 * em_bsp_counter_read(), instructions under QEMU or cycles on silicon) and the cost of one
 * read pair around nothing (em_bsp_counter_overhead()), which is subtracted from every entry.
 * An entry covers the operator's eval() only (adapter + kernel); opening the operator and
 * finding its registration, a few dozen instructions per operator, fall between entries, so
 * the entries sum to slightly less than an unprofiled whole invoke.
 *
 * Memory: no heap. The entry table belongs to the caller (usually a static array with one
 * entry per operator of the program: em_program.n_operators); the runtime writes into it
 * during the call and keeps no pointer to it afterwards.
 *
 *     static em_profile_entry entries[MODEL_OPS];
 *     em_profile profile = {em_bsp_counter_read, em_bsp_counter_overhead(), entries, MODEL_OPS, 0};
 *     em_status s = em_program_invoke_profiled(&program, arenas, sizes, 1, &profile);
 *     for (uint32_t i = 0; i < profile.count; i++) print(entries[i].name, entries[i].count);
 */
#ifndef EM_PROFILE_H
#define EM_PROFILE_H

#include <stdint.h>

#include "ember.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A free-running counter: monotonic, 64-bit (e.g. em_bsp_counter_read). */
typedef uint64_t (*em_profile_counter_fn)(void);

/** One operator's measurement, in program order. */
typedef struct {
    uint16_t opcode;   /**< EM_OP_* (em_registry.h) */
    const char *name;  /**< the adapter's name, e.g. "conv2d" (a string constant of the firmware) */
    uint64_t count;    /**< counter units of its eval(), read pair overhead subtracted (>= 0) */
} em_profile_entry;

/** What the caller hands em_program_invoke_profiled(). */
typedef struct {
    em_profile_counter_fn read; /**< the counter, read before and after every operator */
    uint64_t overhead;          /**< cost of one read pair around nothing; subtracted */
    em_profile_entry *entries;  /**< [capacity], caller-owned */
    uint32_t capacity;          /**< entries available; at least em_program.n_operators */
    uint32_t count;             /**< out: entries written (operators run, including a failed one) */
} em_profile;

#if defined(EM_PROFILE) && EM_PROFILE
/**
 * em_program_invoke() that also fills @p profile: entry i is operator i. On a kernel error the
 * entries up to and including the failing operator are written.
 * @return as em_program_invoke(); EM_ERR_BAD_ARGUMENT also when @p profile, its read function
 *         or its entries are NULL, or its capacity is below the program's operator count
 *         (checked before anything runs).
 */
em_status em_program_invoke_profiled(const em_program *program, uint8_t *const *arenas,
                                     const uint32_t *arena_sizes, uint32_t n_arenas,
                                     em_profile *profile);
#endif

#ifdef __cplusplus
}
#endif

#endif /* EM_PROFILE_H */
