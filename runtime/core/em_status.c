/**
 * @file em_status.c
 * @brief em_status_name(): the enumerator's name of each status.
 */
#include "em_status.h"

#include <stddef.h>

const char *em_status_name(em_status status)
{
    static const char *const names[] = {
        "EM_OK", "EM_ERR_TRUNCATED", "EM_ERR_BAD_MAGIC", "EM_ERR_BAD_VERSION",
        "EM_ERR_WRONG_TIER", "EM_ERR_MALFORMED", "EM_ERR_BAD_TENSOR_INDEX", "EM_ERR_BAD_OFFSET",
        "EM_ERR_BAD_SIZE", "EM_ERR_UNKNOWN_OP", "EM_ERR_BAD_OPERATOR", "EM_ERR_ARENA_TOO_SMALL",
        "EM_ERR_BAD_ARGUMENT", "EM_ERR_UNALIGNED",
    };
    const unsigned index = (unsigned)status;
    return index < sizeof names / sizeof names[0] ? names[index] : "EM_ERR_UNKNOWN_STATUS";
}
