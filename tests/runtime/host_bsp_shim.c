/**
 * @file host_bsp_shim.c
 * @brief TEMPORARY minimal host BSP for the runtime tests, until bsp/host/ lands.
 *
 * Implements em_bsp.h with POSIX stdio: main() keeps argv (argv[0] dropped, as the boards'
 * semihosting em_bsp_args() does), calls em_app_main() and exits with its value.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "em_bsp.h"

static int saved_argc;
static char **saved_argv;

void em_bsp_console_write(const char *text, size_t len)
{
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

uint64_t em_bsp_counter_read(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *em_bsp_counter_unit(void) { return "ns (host)"; }

uint64_t em_bsp_counter_overhead(void) { return 0; }

void em_bsp_exit(int status)
{
    fflush(stdout);
    exit(status);
}

int em_bsp_file_read(const char *path, void *buf, size_t capacity, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    size_t n = fread(buf, 1, capacity, f);
    int status = ferror(f) ? -1 : 0;
    if (status == 0 && n == capacity && fgetc(f) != EOF) {
        status = -2;
    }
    fclose(f);
    *len = n;
    return status;
}

int em_bsp_file_write(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    const int status = fwrite(buf, 1, len, f) == len ? 0 : -1;
    return fclose(f) == 0 ? status : -1;
}

int em_bsp_args(char *storage, size_t capacity, const char **argv, int max_args)
{
    size_t used = 0;
    int argc = 0;
    for (int i = 1; i < saved_argc; i++) {
        const size_t n = strlen(saved_argv[i]) + 1;
        if (argc == max_args || used + n > capacity) {
            return -1;
        }
        memcpy(storage + used, saved_argv[i], n);
        argv[argc++] = storage + used;
        used += n;
    }
    return argc;
}

int main(int argc, char **argv)
{
    saved_argc = argc;
    saved_argv = argv;
    em_bsp_exit(em_app_main());
}
