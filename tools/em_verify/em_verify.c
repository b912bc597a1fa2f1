/**
 * @file em_verify.c
 * @brief em_verify: the device's program verifier, built for the host (runtime/README.md, "Who
 *        verifies what").
 *
 * The runtime's own em_program_load() and every operator's check(), compiled for the host with
 * the tier of a board (EM_NN_SIZING_TIER) and no eval() (EM_VERIFY_ONLY): what firmware of that
 * tier would accept, decided on the host. The build runs it over the program it seals into an
 * app's firmware; the tests run it over the loader fuzzer's corpus against em_run on the device.
 *
 * Usage: em_verify FILE...   One line per file: "<file> EM_OK", or "<file> <status> operator=<i>
 * opcode=<n>" (operator=none when the failure is not an operator's). Exit status 0 when every
 * file is accepted, 1 when one is not, 2 for a file that cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember.h"

/** Reads @p path into a 16-byte aligned buffer (the alignment of a linked program array). */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        if (f != NULL) fclose(f);
        return NULL;
    }
    const long length = ftell(f);
    unsigned char *data = length >= 0 ? aligned_alloc(16, ((size_t)length + 16u) & ~(size_t)15u) : NULL;
    if (data == NULL || fseek(f, 0, SEEK_SET) != 0 || fread(data, 1, (size_t)length, f) != (size_t)length) {
        free(data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)length;
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...  (verifies each program file as tier %d firmware would)\n", argv[0],
                (int)em_runtime_tier());
        return 2;
    }
    int result = 0;
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        unsigned char *data = read_file(argv[i], &size);
        if (data == NULL) {
            fprintf(stderr, "em_verify: cannot read %s\n", argv[i]);
            return 2;
        }
        em_program program;
        const em_status status = em_program_load(&program, data, size);
        if (status == EM_OK) {
            printf("%s EM_OK\n", argv[i]);
        } else if (program.error_operator == EM_NO_OPERATOR) {
            printf("%s %s operator=none\n", argv[i], em_status_name(status));
        } else {
            printf("%s %s operator=%u opcode=%u\n", argv[i], em_status_name(status), (unsigned)program.error_operator,
                   (unsigned)program.error_opcode);
        }
        result = status == EM_OK ? result : 1;
        free(data);
    }
    return result;
}
