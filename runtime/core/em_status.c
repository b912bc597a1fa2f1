/**
 * @file em_status.c
 * @brief em_status_name(): the enumerator's name of each status.
 *
 * The names are one string of NUL-terminated names in enum order, walked at call time: no table
 * of pointers (56 bytes) for a function that only error messages call.
 */
#include "em_status.h"

static const char names[] =
    "EM_OK\0EM_ERR_TRUNCATED\0EM_ERR_BAD_MAGIC\0EM_ERR_BAD_VERSION\0EM_ERR_WRONG_TIER\0"
    "EM_ERR_MALFORMED\0EM_ERR_BAD_TENSOR_INDEX\0EM_ERR_BAD_OFFSET\0EM_ERR_BAD_SIZE\0"
    "EM_ERR_UNKNOWN_OP\0EM_ERR_BAD_OPERATOR\0EM_ERR_ARENA_TOO_SMALL\0EM_ERR_BAD_ARGUMENT\0"
    "EM_ERR_UNALIGNED\0EM_ERR_CONSTANTS_NOT_COPIED\0EM_ERR_VARIANT_NOT_LINKED\0"
    "EM_ERR_PROGRAM_CORRUPT\0EM_ERR_STATE_NOT_RESET\0EM_ERR_UNKNOWN_STATUS";
#define N_NAMED 18u /* EM_OK .. EM_ERR_STATE_NOT_RESET; the last name is for every other value */

const char *em_status_name(em_status status)
{
    unsigned skip = (unsigned)status < N_NAMED ? (unsigned)status : N_NAMED;
    const char *name = names;
    while (skip-- > 0u) {
        while (*name++ != '\0') {
        }
    }
    return name;
}
