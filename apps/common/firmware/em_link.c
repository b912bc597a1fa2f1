/**
 * @file em_link.c
 * @brief The device side of Ember's serial link (protocol in em_link.h).
 *
 * Receiving: hunt for the sync pair, read the header and payload with a per-byte deadline
 * (board time from em_bsp_counter_read / em_bsp_counter_hz), check the CRC, dispatch.
 * Sending: replies are streamed straight from their source (tensor bytes in the arena) with the
 * CRC computed on the way, so no reply is ever copied into a buffer.
 */
#include "em_link.h"

#include <string.h>

#include "em_bsp.h"
#include "em_status.h"
#if defined(EM_PROFILE) && EM_PROFILE
#include "em_profile.h"
#endif

#pragma weak em_link_app_result

#if defined(EM_PROFILE) && EM_PROFILE
#define PROFILE_BUILT 1u
#else
#define PROFILE_BUILT 0u
#endif

/* The fuzzing build (tests/fuzz/fuzz_link.c; the OSS-Fuzz macro) takes any CRC, so that mutated
 * frames reach the request handlers instead of stopping at the checksum. Never in firmware. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_CHECKED 0
#else
#define CRC_CHECKED 1
#endif

#define HEADER_BYTES 6u /* type, seq, length */
#define CLOSED (-2)     /* em_bsp_console_poll: the console is closed for good (host stdin EOF) */
#define TIMEOUT (-1)

static uint8_t payload[EM_LINK_MAX_PAYLOAD];
static uint64_t ticks_per_ms;

/* ---- CRC-32/ISO-HDLC, reflected, four bits at a time: 64 bytes of table instead of 1 KiB ---- */

static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t em_link_crc32(uint32_t crc, const void *data, uint32_t len)
{
    const uint8_t *bytes = (const uint8_t *)data;
    crc = ~crc;
    for (uint32_t i = 0; i < len; ++i) {
        crc ^= bytes[i];
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
    }
    return ~crc;
}

/* ---- little-endian fields ---- */

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct {
    uint8_t *data;
    uint32_t used, capacity;
    int overflow;
} cursor;

static void put(cursor *c, const void *bytes, uint32_t n)
{
    if (c->overflow || n > c->capacity - c->used) {
        c->overflow = 1;
        return;
    }
    memcpy(c->data + c->used, bytes, n);
    c->used += n;
}

static void put_u32(cursor *c, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(c, b, 4);
}

static void put_u8(cursor *c, uint32_t v)
{
    const uint8_t b = (uint8_t)v;
    put(c, &b, 1);
}

static void put_text(cursor *c, const char *text) /* u8 length, then the bytes (at most 255) */
{
    const size_t n = strlen(text);
    put_u8(c, n > 255u ? 255u : (uint32_t)n);
    put(c, text, n > 255u ? 255u : (uint32_t)n);
}

/* ---- sending ---- */

static uint32_t tx_crc;

static void tx_begin(uint32_t type, uint8_t seq, uint32_t length)
{
    const uint8_t head[8] = {EM_LINK_SYNC0, EM_LINK_SYNC1, (uint8_t)type, seq,
                             (uint8_t)length, (uint8_t)(length >> 8), (uint8_t)(length >> 16), (uint8_t)(length >> 24)};
    em_bsp_console_write((const char *)head, sizeof head);
    tx_crc = em_link_crc32(0, head + 2, HEADER_BYTES);
}

static void tx_data(const void *data, uint32_t n)
{
    em_bsp_console_write((const char *)data, n);
    tx_crc = em_link_crc32(tx_crc, data, n);
}

static void tx_end(void)
{
    const uint8_t crc[4] = {(uint8_t)tx_crc, (uint8_t)(tx_crc >> 8), (uint8_t)(tx_crc >> 16), (uint8_t)(tx_crc >> 24)};
    em_bsp_console_write((const char *)crc, sizeof crc);
}

static void reply(uint8_t request, uint8_t seq, const void *data, uint32_t n)
{
    tx_begin((uint32_t)request | EM_LINK_REPLY, seq, n);
    tx_data(data, n);
    tx_end();
}

static void send_error(em_link_error code, uint8_t request, uint8_t seq, const char *message)
{
    const uint32_t n = (uint32_t)strlen(message);
    const uint8_t head[2] = {(uint8_t)code, request};
    tx_begin(EM_LINK_ERROR, seq, 2u + n);
    tx_data(head, 2);
    tx_data(message, n);
    tx_end();
}

/* ---- receiving ---- */

static int byte_within(uint64_t ms)
{
    const uint64_t start = em_bsp_counter_read();
    for (;;) {
        const int b = em_bsp_console_poll();
        if (b != TIMEOUT) {
            return b;
        }
        if (em_bsp_counter_read() - start > ms * ticks_per_ms) {
            return TIMEOUT;
        }
    }
}

static int byte_whenever(void)
{
    int b;
    while ((b = em_bsp_console_poll()) == TIMEOUT) {
    }
    return b;
}

static void drain_until_idle(void)
{
    while (byte_within(EM_LINK_IDLE_MS) >= 0) {
    }
}

typedef struct {
    uint8_t type, seq;
    uint32_t length;
} frame;

/* 1: a whole, checked frame in *f and payload[]; 0: a bad frame (answered, dropped); CLOSED. */
static int receive(frame *f)
{
    for (int previous = -1;;) {
        const int b = byte_whenever();
        if (b == CLOSED) {
            return CLOSED;
        }
        if (previous == EM_LINK_SYNC0 && b == EM_LINK_SYNC1) {
            break;
        }
        previous = b;
    }
    uint8_t head[HEADER_BYTES];
    for (uint32_t i = 0; i < HEADER_BYTES; ++i) {
        const int b = byte_within(EM_LINK_BYTE_TIMEOUT_MS);
        if (b < 0) {
            send_error(EM_LINK_ERR_TRUNCATED, i > 0 ? head[0] : 0u, i > 1 ? head[1] : 0u, "frame header stopped mid-way");
            return b == CLOSED ? CLOSED : 0;
        }
        head[i] = (uint8_t)b;
    }
    f->type = head[0];
    f->seq = head[1];
    f->length = get_u32(head + 2);
    if (f->length > EM_LINK_MAX_PAYLOAD) {
        drain_until_idle(); /* first: a frame sent after this error must not be drained */
        send_error(EM_LINK_ERR_TOO_LONG, f->type, f->seq, "payload longer than max_payload (INFO): send it in chunks");
        return 0;
    }
    uint8_t crc[4];
    for (uint32_t i = 0; i < f->length + 4u; ++i) {
        const int b = byte_within(EM_LINK_BYTE_TIMEOUT_MS);
        if (b < 0) {
            send_error(EM_LINK_ERR_TRUNCATED, f->type, f->seq, "frame stopped before its CRC");
            return b == CLOSED ? CLOSED : 0;
        }
        if (i < f->length) {
            payload[i] = (uint8_t)b;
        } else {
            crc[i - f->length] = (uint8_t)b;
        }
    }
    if (CRC_CHECKED && em_link_crc32(em_link_crc32(0, head, HEADER_BYTES), payload, f->length) != get_u32(crc)) {
        send_error(EM_LINK_ERR_BAD_CRC, f->type, f->seq, "CRC mismatch: resend the frame");
        return 0;
    }
    return 1;
}

/* ---- requests ---- */

typedef struct {
    const em_link_model *model;
    em_status load_status; /* not EM_OK: every request is answered with it */
    uint32_t program_id;   /* CRC-32 of the program bytes */
    int ran;               /* a RUN succeeded since the last SET_INPUT */
    uint32_t consumed[EM_LINK_MAX_INPUTS / 32u]; /* bit i: a RUN overwrote input i (the plan reuses
                                                    its bytes) and no SET_INPUTs have rewritten it whole */
    uint32_t filling;      /* the input SET_INPUT is rewriting, in order from offset 0 ... */
    uint32_t filled;       /* ... and how many of its bytes so far (a consumed input is fresh at its size) */
    int stale;             /* a RUN_TO or a failed RUN may have written part of the state: RESET_STATE */
    struct {               /* the last RUN / RUN_TO that invoked, answered again to a resend of it */
        int valid;
        uint8_t type;
        uint32_t number, operators;
        em_status status;
        uint64_t count;
    } last;
#if defined(EM_PROFILE) && EM_PROFILE
    em_profile_entry entries[EM_LINK_MAX_OPS];
    uint32_t n_entries;
#endif
} server;

static void put_tensor(cursor *c, const em_tensor *t)
{
    put_u8(c, (uint32_t)t->dtype);
    put_u8(c, (uint32_t)t->rank);
    put_u32(c, t->size);
    uint32_t scale_bits;
    memcpy(&scale_bits, &t->scale, sizeof scale_bits);
    put_u32(c, scale_bits);
    put_u32(c, (uint32_t)t->zero_point);
    put(c, t->shape, 4u * (uint32_t)t->rank); /* already little-endian int32 in the program */
}

static void send_info(server *s, const frame *f)
{
    const em_program *p = s->model->program;
    cursor c = {payload, 0, sizeof payload, 0};
    const uint8_t version[2] = {(uint8_t)EM_LINK_PROTOCOL_VERSION, (uint8_t)(EM_LINK_PROTOCOL_VERSION >> 8)};
    put(&c, version, 2);
    put_u8(&c, (uint32_t)em_runtime_tier());
    put_u8(&c, p->n_inputs);
    put_u8(&c, p->n_outputs);
    put_u8(&c, p->n_arenas);
    put_u32(&c, EM_LINK_MAX_PAYLOAD);
    put_u32(&c, (uint32_t)p->size);
    put_u32(&c, s->program_id);
    for (uint32_t i = 0; i < p->n_arenas; ++i) {
        put_u32(&c, em_program_arena_size(p, i));
    }
    for (uint32_t i = 0; i < p->n_inputs + p->n_outputs; ++i) {
        em_tensor t;
        const em_status st = i < p->n_inputs ? em_program_input(p, i, s->model->arenas, &t)
                                              : em_program_output(p, i - p->n_inputs, s->model->arenas, &t);
        if (st != EM_OK) {
            send_error(EM_LINK_ERR_RUNTIME, f->type, f->seq, em_status_name(st));
            return;
        }
        put_tensor(&c, &t);
    }
    put_text(&c, s->model->app_name ? s->model->app_name : "");
    put_text(&c, em_bsp_counter_unit());
    put_u8(&c, (uint32_t)(PROFILE_BUILT | (em_link_app_result ? 2u : 0u)));
    const uint32_t n_state = em_program_state_count(p);
    put_u32(&c, n_state);
    for (uint32_t i = 0; i < n_state; ++i) {
        em_tensor t;
        uint32_t index;
        const em_status st = em_program_state_tensor(p, i, s->model->arenas, &t, &index);
        if (st != EM_OK) {
            send_error(EM_LINK_ERR_RUNTIME, f->type, f->seq, em_status_name(st));
            return;
        }
        put_u32(&c, index);
        put_tensor(&c, &t);
    }
    if (c.overflow) {
        send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "INFO does not fit max_payload");
        return;
    }
    reply(f->type, f->seq, payload, c.used);
}

/* The tensor a SET_INPUT / GET_OUTPUT names, and the checked byte range [offset, offset + n). */
static int tensor_range(server *s, const frame *f, int output, uint32_t n_fixed, em_tensor *t, uint32_t *offset, uint32_t *n)
{
    if (f->length < 5u + n_fixed) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "payload too short for its fields");
        return 0;
    }
    const uint32_t index = payload[0];
    const em_program *p = s->model->program;
    const em_status st = output ? em_program_output(p, index, s->model->arenas, t) : em_program_input(p, index, s->model->arenas, t);
    if (st != EM_OK) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, output ? "no such output index" : "no such input index");
        return 0;
    }
    *offset = get_u32(payload + 1);
    *n = output ? get_u32(payload + 5) : f->length - 5u;
    if (*offset > t->size || *n > t->size - *offset) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "offset + length past the end of the tensor");
        return 0;
    }
    return 1;
}

/* ---- consumed inputs: a RUN reads what SET_INPUT wrote, never what the last RUN left ---- */

/* After a RUN or RUN_TO (whether it succeeded or not): every input the plan reuses is consumed. */
static void consume_inputs(server *s)
{
    const em_program *p = s->model->program;
    for (uint32_t i = 0; i < p->n_inputs && i < EM_LINK_MAX_INPUTS; ++i) {
        if (!em_program_input_kept(p, i)) {
            s->consumed[i / 32u] |= 1u << (i % 32u);
        }
    }
}

/* Refuses a RUN or RUN_TO that would read a consumed input: answers INPUT_CONSUMED naming it. */
static int inputs_fresh(const server *s, const frame *f)
{
    for (uint32_t i = 0; i < EM_LINK_MAX_INPUTS; ++i) {
        if (s->consumed[i / 32u] & (1u << (i % 32u))) {
            char message[96] = "input ";
            char *at = message + strlen(message);
            if (i >= 100u) *at++ = (char)('0' + i / 100u);
            if (i >= 10u) *at++ = (char)('0' + i / 10u % 10u);
            *at++ = (char)('0' + i % 10u);
            strcpy(at, " was overwritten by the last RUN (the plan reuses its bytes): SET_INPUT it again");
            send_error(EM_LINK_ERR_INPUT_CONSUMED, f->type, f->seq, message);
            return 0;
        }
    }
    return 1;
}

static void set_input(server *s, const frame *f)
{
    em_tensor t;
    uint32_t offset, n;
    if (tensor_range(s, f, 0, 0, &t, &offset, &n)) {
        memcpy((uint8_t *)t.data + offset, payload + 5, n);
        /* Fresh only once every byte is rewritten: chunks in order from 0 (Link.set_input's) */
        const uint32_t index = payload[0];
        if (offset == 0u || index != s->filling || offset != s->filled) {
            s->filling = index;
            s->filled = offset == 0u ? 0u : UINT32_MAX; /* out of order: not counted */
        }
        if (s->filled != UINT32_MAX) {
            s->filled += n;
        }
        if (s->filled == t.size) {
            s->consumed[index / 32u] &= ~(1u << (index % 32u));
        }
        s->ran = 0;
        s->last.valid = 0; /* the arena changed: a resent RUN cannot be answered from memory */
        reply(f->type, f->seq, NULL, 0);
    }
}

static void get_output(server *s, const frame *f)
{
    em_tensor t;
    uint32_t offset, n;
    if (tensor_range(s, f, 1, 4, &t, &offset, &n)) {
        reply(f->type, f->seq, (const uint8_t *)t.data + offset, n);
    }
}

static void reply_count(const frame *f, uint64_t count)
{
    uint8_t bytes[8];
    for (uint32_t i = 0; i < 8u; ++i) {
        bytes[i] = (uint8_t)(count >> (8u * i));
    }
    reply(f->type, f->seq, bytes, sizeof bytes);
}

/* ---- RUN and RUN_TO: state, and resends answered from memory ---- */

/* A resend of the last RUN / RUN_TO that invoked (same type, number and operator count):
 * answered as it was, without invoking again. */
static int answered_again(const server *s, const frame *f, uint32_t number, uint32_t operators)
{
    if (!s->last.valid || s->last.type != f->type || s->last.number != number || s->last.operators != operators) {
        return 0;
    }
    if (s->last.status != EM_OK) {
        send_error(EM_LINK_ERR_RUNTIME, f->type, f->seq, em_status_name(s->last.status));
    } else {
        reply_count(f, s->last.count);
    }
    return 1;
}

/* Refuses a RUN or RUN_TO over state that a RUN_TO or a failed RUN may have written part of. */
static int state_usable(const server *s, const frame *f)
{
    if (s->stale) {
        send_error(EM_LINK_ERR_STATE_STALE, f->type, f->seq,
                   "the last RUN_TO or failed RUN may have written part of the state: RESET_STATE first");
        return 0;
    }
    return 1;
}

/* After an invoke: inputs consumed, the state stale unless a whole invoke succeeded, remembered. */
static void ran(server *s, const frame *f, uint32_t number, uint32_t operators, em_status st, uint64_t count, int whole)
{
    consume_inputs(s);
    if (em_program_state_count(s->model->program) > 0u && (st != EM_OK || !whole)) {
        s->stale = 1;
    }
    s->last.valid = 1;
    s->last.type = f->type;
    s->last.number = number;
    s->last.operators = operators;
    s->last.status = st;
    s->last.count = count;
    if (st != EM_OK) {
        send_error(EM_LINK_ERR_RUNTIME, f->type, f->seq, em_status_name(st));
    } else {
        reply_count(f, count);
    }
}

static void run_to(server *s, const frame *f)
{
    const em_link_model *m = s->model;
    if (f->length != 8u) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq,
                   "RUN_TO takes a u32 operator count and a u32 run number (link protocol 2)");
        return;
    }
    const uint32_t n = get_u32(payload), number = get_u32(payload + 4);
    if (n > m->program->n_operators) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "operator count past the program's operators");
        return;
    }
    if (answered_again(s, f, number, n) || !state_usable(s, f) || !inputs_fresh(s, f)) {
        return;
    }
    const uint64_t start = em_bsp_counter_read();
    const em_status st = em_program_invoke_until(m->program, m->arenas, m->arena_sizes, m->n_arenas, n);
    const uint64_t count = em_bsp_counter_read() - start - em_bsp_counter_overhead();
    s->ran = 0; /* the outputs are not the model's: no result, no profile */
    ran(s, f, number, n, st, count, 0);
}

static void get_tensor(server *s, const frame *f)
{
    em_tensor t;
    if (f->length < 12u) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "GET_TENSOR takes u32 tensor, offset, length");
        return;
    }
    if (em_program_tensor(s->model->program, get_u32(payload), s->model->arenas, &t) != EM_OK) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "no such tensor index");
        return;
    }
    const uint32_t offset = get_u32(payload + 4), n = get_u32(payload + 8);
    if (offset > t.size || n > t.size - offset) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "offset + length past the end of the tensor");
        return;
    }
    reply(f->type, f->seq, (const uint8_t *)t.data + offset, n);
}

static void run(server *s, const frame *f)
{
    const em_link_model *m = s->model;
    if (f->length != 4u) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "RUN takes a u32 run number (link protocol 2)");
        return;
    }
    const uint32_t number = get_u32(payload);
    if (answered_again(s, f, number, 0u) || !state_usable(s, f) || !inputs_fresh(s, f)) {
        return;
    }
    const uint64_t start = em_bsp_counter_read();
#if defined(EM_PROFILE) && EM_PROFILE
    em_profile profile = {em_bsp_counter_read, em_bsp_counter_overhead(), s->entries, EM_LINK_MAX_OPS, 0};
    const em_status st = em_program_invoke_profiled(m->program, m->arenas, m->arena_sizes, m->n_arenas, &profile);
    s->n_entries = profile.count;
#else
    const em_status st = em_program_invoke(m->program, m->arenas, m->arena_sizes, m->n_arenas);
#endif
    const uint64_t count = em_bsp_counter_read() - start - em_bsp_counter_overhead();
    s->ran = st == EM_OK;
    ran(s, f, number, 0u, st, count, 1);
}

static void reset_state(server *s, const frame *f)
{
    if (f->length != 0u) {
        send_error(EM_LINK_ERR_BAD_REQUEST, f->type, f->seq, "RESET_STATE takes no payload");
        return;
    }
    const uint32_t n = em_program_state_count(s->model->program);
    if (n > 0u && s->model->reset_state == NULL) {
        send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "this firmware cannot reset the program's state");
        return;
    }
    const em_status st = n > 0u ? s->model->reset_state() : EM_OK; /* no state: nothing to reset */
    s->last.valid = 0; /* the state changed: a resent RUN cannot be answered from memory */
    if (st != EM_OK) {
        s->stale = 1;
        send_error(EM_LINK_ERR_RUNTIME, f->type, f->seq, em_status_name(st));
        return;
    }
    s->stale = 0;
    const uint8_t bytes[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    reply(f->type, f->seq, bytes, sizeof bytes);
}

static void get_profile(server *s, const frame *f)
{
#if defined(EM_PROFILE) && EM_PROFILE
    if (!s->ran) {
        send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "no profile: RUN first");
        return;
    }
    uint32_t length = 4;
    for (uint32_t i = 0; i < s->n_entries; ++i) {
        const size_t name = strlen(s->entries[i].name);
        length += 11u + (uint32_t)(name > 255u ? 255u : name);
    }
    uint8_t head[4] = {(uint8_t)s->n_entries, (uint8_t)(s->n_entries >> 8), (uint8_t)(s->n_entries >> 16), (uint8_t)(s->n_entries >> 24)};
    tx_begin((uint32_t)f->type | EM_LINK_REPLY, f->seq, length);
    tx_data(head, 4);
    for (uint32_t i = 0; i < s->n_entries; ++i) {
        const em_profile_entry *e = &s->entries[i];
        uint8_t fixed[11];
        fixed[0] = (uint8_t)e->opcode;
        fixed[1] = (uint8_t)(e->opcode >> 8);
        for (uint32_t k = 0; k < 8u; ++k) {
            fixed[2 + k] = (uint8_t)(e->count >> (8u * k));
        }
        const size_t name = strlen(e->name);
        fixed[10] = (uint8_t)(name > 255u ? 255u : name);
        tx_data(fixed, sizeof fixed);
        tx_data(e->name, fixed[10]);
    }
    tx_end();
#else
    (void)s;
    send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "this firmware has no profiling: build it with profile=1");
#endif
}

static void get_result(server *s, const frame *f)
{
    if (!em_link_app_result) {
        send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "this app has no post-processing result");
        return;
    }
    const int32_t n = s->ran ? em_link_app_result(s->model->program, s->model->arenas, payload, sizeof payload) : -1;
    if (n < 0) {
        send_error(EM_LINK_ERR_NOT_AVAILABLE, f->type, f->seq, "no result: RUN first");
        return;
    }
    reply(f->type, f->seq, payload, (uint32_t)n);
}

typedef void (*handler)(server *s, const frame *f);

static const handler handlers[] = {
    [EM_LINK_INFO] = send_info,          [EM_LINK_SET_INPUT] = set_input,     [EM_LINK_RUN] = run,
    [EM_LINK_GET_OUTPUT] = get_output,   [EM_LINK_GET_PROFILE] = get_profile, [EM_LINK_GET_RESULT] = get_result,
    [EM_LINK_RUN_TO] = run_to,           [EM_LINK_GET_TENSOR] = get_tensor,   [EM_LINK_RESET_STATE] = reset_state,
};

int em_link_serve(const em_link_model *model)
{
    static server s;
    memset(&s, 0, sizeof s); /* each serve starts afresh: nothing consumed, no result */
    s.model = model;
    s.load_status = model->load_status;
    s.program_id = model->load_status == EM_OK ? em_link_crc32(0, model->program->data, (uint32_t)model->program->size) : 0u;
    ticks_per_ms = em_bsp_counter_hz() / 1000u;
    for (;;) {
        frame f;
        const int got = receive(&f);
        if (got == CLOSED) {
            return 0;
        }
        if (got == 0) {
            continue;
        }
        if (f.type == EM_LINK_SHUTDOWN) {
            const int status = f.length >= 4u ? (int)(int32_t)get_u32(payload) : 0;
            reply(f.type, f.seq, NULL, 0);
            return status;
        }
        if (s.load_status != EM_OK) {
            send_error(EM_LINK_ERR_RUNTIME, f.type, f.seq, em_status_name(s.load_status));
            continue;
        }
        const handler h = f.type < sizeof handlers / sizeof handlers[0] ? handlers[f.type] : NULL;
        if (h == NULL) {
            send_error(EM_LINK_ERR_UNKNOWN_TYPE, f.type, f.seq, "unknown request type");
            continue;
        }
        h(&s, &f);
    }
}
