/**
 * @file em_link.h
 * @brief Ember's serial link: one framed binary protocol over the console UART, spoken by every
 *        app's serving firmware (`scons app=<app> serve=1`) and by tools/ember_link.py.
 *
 * Frame (both directions; integers little-endian):
 *
 *     sync 0xA5 0x5A | type u8 | seq u8 | length u32 | payload[length] | crc32 u32
 *
 * crc32 is CRC-32/ISO-HDLC (zlib's crc32) over type, seq, length and payload. A reply carries
 * the request's seq and type | 0x80; a failed request is answered by an ERROR frame instead.
 *
 * Requests and their replies' payloads:
 *
 * | request | payload | reply payload |
 * |---|---|---|
 * | INFO 0x01 | — | see em_link.c `send_info`: protocol version, tier, tensor shapes and quantization, arena sizes, limits, program id, then the persistent tensors (u32 n, n × (u32 tensor index, tensor)) |
 * | SET_INPUT 0x02 | u8 input, u32 offset, bytes | — (the input is fresh again) |
 * | RUN 0x03 | u32 run number | u64 counter units of the invoke (em_bsp_counter_unit) |
 * | GET_OUTPUT 0x04 | u8 output, u32 offset, u32 length | the bytes |
 * | GET_PROFILE 0x05 | — | u32 n, n × (u16 opcode, u64 count, u8 name length, name) of the last RUN |
 * | GET_RESULT 0x06 | — | the app's post-processing of the last RUN (em_link_app_result) |
 * | SHUTDOWN 0x07 | i32 exit status | — (then the firmware exits with that status) |
 * | RUN_TO 0x08 | u32 n, u32 run number | u64 counter units: runs operators 0..n-1 only (numerics debugger) |
 * | GET_TENSOR 0x09 | u32 tensor, u32 offset, u32 length | the bytes of any tensor (program numbering) |
 * | RESET_STATE 0x0A | — | u32 persistent tensors reset (0 for a program without state: nothing to do, not an error) |
 * | ERROR 0x7F (device → host only) | | u8 code (em_link_error), u8 request type, message text |
 *
 * Protocol 2 (EM_LINK_PROTOCOL_VERSION) added the run numbers, RESET_STATE and INFO's persistent
 * tensors. A protocol-1 host is refused at its first INFO (it checks the version) and its
 * RUN without a run number gets BAD_REQUEST saying so; a protocol-2 host refuses a device whose
 * INFO says 1 before reading the rest of it.
 *
 * State between RUNs: a program with persistent tensors (ember.h, em_program_reset_state) is
 * reset once at start-up; each RUN continues from the state the RUN before left, and
 * RESET_STATE starts a new sequence (GET_TENSOR reads a persistent tensor, INFO gives its
 * index). RUN_TO, and a RUN whose invoke failed, may leave the state partly written: then RUN
 * and RUN_TO are refused with ERROR STATE_STALE until a RESET_STATE.
 *
 * Run numbers: a RUN or RUN_TO whose reply was lost is sent again by the host, and must not
 * invoke twice (a second invoke would advance the state twice, and find its inputs consumed).
 * So each new RUN / RUN_TO carries a number the host has not used for the one before (its
 * resends, the same number); the device remembers the last one that invoked, its request type,
 * operator count, status and counter units, and answers a request with the same type, number
 * (and count) from that memory, without invoking again: the reply (or ERROR RUNTIME) the lost
 * one carried. The next RUN / RUN_TO that invokes replaces the memory; SET_INPUT and
 * RESET_STATE forget it (they change the arena: the remembered reply would no longer describe
 * it). So a host resends a RUN alone, never after rewriting its inputs (an output may share
 * their bytes), as tools/ember_link.py does. A host that connects afresh starts its numbers
 * anywhere (tools/ember_link.py: at random), so as not to meet the last host's.
 *
 * Inputs are consumed: a RUN (or RUN_TO) leaves other bytes in every input whose bytes the plan
 * reuses for later tensors (em_program_input_kept: all four MLPerf models' inputs; keeping them
 * would cost 4-83 % more arena). A RUN or RUN_TO that would read such an input before
 * SET_INPUTs have rewritten all of it (its chunks in order from offset 0, as tools/ember_link.py
 * sends them) is refused with ERROR INPUT_CONSUMED naming the input, never run on what the last
 * RUN left. Inputs the plan keeps may be RUN again as they are. (Before the
 * first RUN nothing is consumed: the inputs hold what the host set, or the arena's zeros.)
 *
 * Robustness: the receiver hunts for the sync bytes, so garbage between frames is skipped. A
 * frame whose CRC is wrong, whose length exceeds EM_LINK_MAX_PAYLOAD, or whose bytes stop
 * arriving for EM_LINK_BYTE_TIMEOUT_MS is answered with an ERROR frame and dropped, and the
 * device goes back to hunting: it never blocks on a host that went away mid-frame. Requests
 * whose fields are out of range (an input index, an offset past the tensor) get ERROR
 * BAD_REQUEST; nothing is written outside the tensor.
 *
 * Memory: one static receive buffer of EM_LINK_MAX_PAYLOAD bytes, the last run's memory (24
 * bytes) and, with profiling built in, EM_LINK_MAX_OPS profile entries. No heap.
 */
#ifndef EM_LINK_H
#define EM_LINK_H

#include <stdint.h>

#include "ember.h"
#include "em_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EM_LINK_PROTOCOL_VERSION 2u
#define EM_LINK_SYNC0 0xA5u
#define EM_LINK_SYNC1 0x5Au

/** Largest request payload the device accepts; inputs larger than this arrive in chunks. */
#ifndef EM_LINK_MAX_PAYLOAD
#define EM_LINK_MAX_PAYLOAD 4096u
#endif
/** A frame whose next byte takes longer than this (board time) is dropped as truncated. */
#ifndef EM_LINK_BYTE_TIMEOUT_MS
#define EM_LINK_BYTE_TIMEOUT_MS 2000u
#endif
/** After an oversized header the device discards bytes until the line is quiet this long. */
#ifndef EM_LINK_IDLE_MS
#define EM_LINK_IDLE_MS 50u
#endif
/** Inputs whose consumption the link tracks: every index SET_INPUT's u8 can name. */
#define EM_LINK_MAX_INPUTS 256u
/** Operators a profile can hold (with EM_PROFILE). */
#ifndef EM_LINK_MAX_OPS
#define EM_LINK_MAX_OPS 256u
#endif

typedef enum {
    EM_LINK_INFO = 0x01,
    EM_LINK_SET_INPUT = 0x02,
    EM_LINK_RUN = 0x03,
    EM_LINK_GET_OUTPUT = 0x04,
    EM_LINK_GET_PROFILE = 0x05,
    EM_LINK_GET_RESULT = 0x06,
    EM_LINK_SHUTDOWN = 0x07,
    EM_LINK_RUN_TO = 0x08,
    EM_LINK_GET_TENSOR = 0x09,
    EM_LINK_RESET_STATE = 0x0A,
    EM_LINK_ERROR = 0x7F,
    EM_LINK_REPLY = 0x80, /* or-ed into a request's type */
} em_link_type;

typedef enum {
    EM_LINK_ERR_BAD_CRC = 1,      /**< the frame's CRC did not match: resend it */
    EM_LINK_ERR_TOO_LONG = 2,     /**< length > EM_LINK_MAX_PAYLOAD (see INFO's max_payload) */
    EM_LINK_ERR_TRUNCATED = 3,    /**< the frame stopped arriving mid-way */
    EM_LINK_ERR_UNKNOWN_TYPE = 4, /**< no such request */
    EM_LINK_ERR_BAD_REQUEST = 5,  /**< a field is out of range; the message says which */
    EM_LINK_ERR_RUNTIME = 6,      /**< the runtime refused; the message is the em_status name */
    EM_LINK_ERR_NOT_AVAILABLE = 7, /**< no profile (build with profile=1) or no app result */
    EM_LINK_ERR_INPUT_CONSUMED = 8, /**< RUN / RUN_TO after a RUN with no SET_INPUT of an input the
                                         plan reuses: the message names the input */
    EM_LINK_ERR_STATE_STALE = 9     /**< RUN / RUN_TO after a RUN_TO or a failed RUN of a program with
                                         state, which may have left it partly written: RESET_STATE */
} em_link_error;

/**
 * What an app's post-processing of the last run returns over GET_RESULT (boxes after NMS, a
 * keyword and its score …): writes at most @p capacity bytes to @p out.
 * @return bytes written, or -1 if there is no result (yet).
 * Weak: an app without post-processing does not define it, and GET_RESULT answers NOT_AVAILABLE.
 */
int32_t em_link_app_result(const em_program *program, uint8_t *const *arenas, uint8_t *out, uint32_t capacity);

/** The model the link serves: a loaded program and its arenas (sizes from the compiler's plan). */
typedef struct {
    em_status load_status; /**< EM_OK, or why the program did not load: then every request but
                                SHUTDOWN is answered with ERROR RUNTIME naming it */
    const em_program *program;
    uint8_t *const *arenas;
    const uint32_t *arena_sizes;
    uint32_t n_arenas;
    const char *app_name; /**< reported by INFO */
    /** Gives the program's persistent tensors their reset value (em_program_reset_state over
     *  the arenas above; link_main.c: em_app_reset_state): RESET_STATE. May be NULL for a
     *  program without state; with state, RESET_STATE then answers NOT_AVAILABLE. */
    em_status (*reset_state)(void);
} em_link_model;

/**
 * Serves requests on the console until a SHUTDOWN request.
 * @return the exit status the SHUTDOWN request carried.
 */
int em_link_serve(const em_link_model *model);

/** CRC-32/ISO-HDLC of @p len bytes, continuing from @p crc (0 to start). */
uint32_t em_link_crc32(uint32_t crc, const void *data, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* EM_LINK_H */
