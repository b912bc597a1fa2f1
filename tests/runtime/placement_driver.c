/**
 * @file placement_driver.c
 * @brief Test firmware of tests/runtime/test_placement_device.py: a program planned over several
 *        memory regions, its arenas declared by the generated em_model_arena.h (one per region,
 *        each in `.em_arena.<region>`), weights pinned to RAM copied by em_program_copy_constants().
 *
 * Prints, for the test to check against the board's memory map and the reference:
 *   EM before <status>          invoke before the copy (must be EM_ERR_CONSTANTS_NOT_COPIED when pinned)
 *   EM tensor <i> <addr> <size> every tensor's address as the runtime resolves it
 *   EM out <hex>                output after the copy (must equal the reference)
 *   EM wiped <hex>              output after the pinned copies were zeroed (must differ: the
 *                               kernels read the RAM copy, not the program's flash bytes)
 *   EM again <hex>              output after copying once more (equal to the reference again)
 * The input is the pattern (int8)(i * 37 + 11). PLACEMENT_PINNED (placement_case.h) lists the
 * pinned tensors' indices.
 */
#include <stdint.h>
#include <string.h>

#include "em_bsp.h"
#include "em_model_arena.h"
#include "em_model_program.h"
#include "em_print.h"
#include "ember.h"
#include "placement_case.h"

EM_MODEL_ARENAS_DEFINE(arenas);

static const uint32_t pinned[] = PLACEMENT_PINNED;

static em_status run(const em_program *program, const char *label)
{
    em_tensor input, output;
    em_status s = em_program_input(program, 0, arenas, &input);
    if (s == EM_OK) s = em_program_output(program, 0, arenas, &output);
    if (s != EM_OK) {
        return s;
    }
    for (uint32_t i = 0; i < input.size; i++) {
        ((int8_t *)input.data)[i] = (int8_t)(uint8_t)(i * 37u + 11u);
    }
    s = em_program_invoke(program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT);
    em_print("EM ");
    em_print(label);
    em_print(" ");
    if (s == EM_OK) {
        em_print_hex(output.data, output.size);
    } else {
        em_print(em_status_name(s));
    }
    em_print("\n");
    return s;
}

int em_app_main(void)
{
    static em_program program;
    em_status s = em_program_load(&program, em_model_program, em_model_program_size);
    if (s != EM_OK) {
        em_print("EM load ");
        em_print(em_status_name(s));
        em_print("\n");
        return (int)s;
    }
    em_print("EM before ");
    em_print(em_status_name(em_program_invoke(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT)));
    em_print("\n");
    s = em_program_copy_constants(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT);
    if (s != EM_OK) {
        return (int)s;
    }
    for (uint32_t i = 0; i < program.n_tensors; i++) {
        em_tensor t;
        if (em_program_tensor(&program, i, arenas, &t) == EM_OK) {
            em_print("EM tensor ");
            em_print_u64(i);
            em_print(" ");
            em_print_u64((uint64_t)(uintptr_t)t.data);
            em_print(" ");
            em_print_u64(t.size);
            em_print("\n");
        }
    }
    if ((s = run(&program, "out")) != EM_OK) {
        return (int)s;
    }
    for (uint32_t k = 0; k < sizeof pinned / sizeof pinned[0]; k++) {
        em_tensor t;
        if (em_program_tensor(&program, pinned[k], arenas, &t) == EM_OK) {
            memset(t.data, 0, t.size);
        }
    }
    run(&program, "wiped");
    s = em_program_copy_constants(&program, arenas, arenas_sizes, EM_MODEL_ARENA_COUNT);
    if (s == EM_OK) s = run(&program, "again");
    em_print("EM done\n");
    return (int)s;
}
