/**
 * @file em_conv2d_dot2x3_mve.c
 * @brief em_conv2d_s8() on Helium (MVE): the leaf that multiplies two columns by three weight
 *        rows at a time (em_nn_dot2x3_rows_mve), in assembly.
 */
#include <stdint.h>

#include "em_nn_conv2d_mve.h"

#if EM_NN_TIER_MVE

#define EM_NN_STR_(x) #x
#define EM_NN_STR(x) EM_NN_STR_(x)

#if !defined(__GNUC__)
/** sums[r] = Σ_{i<k} a[i]·w[r·k + i] and sums[r + EM_NN_CONV_CHUNK] = Σ_{i<k} b[i]·w[r·k + i]
 *  for the three weight rows r = 0..2 and two columns @p a and @p b (k >= 1 int8 each), one
 *  triple of em_nn_dot2x3_rows_mve(), tail-predicated by VCTP. */
static inline void em_nn_dot2x3_mve(const int8_t *a, const int8_t *b, const int8_t *w, int32_t k,
                                    int32_t *sums)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, b0 = 0, b1 = 0, b2 = 0;
    for (int32_t i = 0; i < k; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t av = vldrbq_z_s8(a + i, pr), bv = vldrbq_z_s8(b + i, pr);
        int8x16_t wv = vldrbq_z_s8(w + i, pr);
        a0 = vmladavaq_s8(a0, av, wv), b0 = vmladavaq_s8(b0, bv, wv);
        wv = vldrbq_z_s8(w + k + i, pr);
        a1 = vmladavaq_s8(a1, av, wv), b1 = vmladavaq_s8(b1, bv, wv);
        wv = vldrbq_z_s8(w + 2 * k + i, pr);
        a2 = vmladavaq_s8(a2, av, wv), b2 = vmladavaq_s8(b2, bv, wv);
    }
    sums[0] = a0, sums[1] = a1, sums[2] = a2;
    sums[EM_NN_CONV_CHUNK] = b0, sums[EM_NN_CONV_CHUNK + 1] = b1, sums[EM_NN_CONV_CHUNK + 2] = b2;
}
#endif

/* One 16-byte step of em_nn_dot2x3_rows_mve: columns at r5, r1; rows at r7, r9, r11; sums of
 * column a in r0, r2, r4 and of column b in r6, r8, r10. */
#define EM_NN_DOT2X3_STEP                 \
    "vldrb.8     q0, [r5], #16\n\t"       \
    "vldrb.8     q1, [r1], #16\n\t"       \
    "vldrb.8     q2, [r7], #16\n\t"       \
    "vmladava.s8 r0, q0, q2\n\t"          \
    "vmladava.s8 r6, q1, q2\n\t"          \
    "vldrb.8     q2, [r9], #16\n\t"       \
    "vmladava.s8 r2, q0, q2\n\t"          \
    "vmladava.s8 r8, q1, q2\n\t"          \
    "vldrb.8     q2, [r11], #16\n\t"      \
    "vmladava.s8 r4, q0, q2\n\t"          \
    "vmladava.s8 r10, q1, q2\n\t"
/* After a triple: store its sums, rewind the columns, step to the next triple (label @p top)
 * or return. */
#define EM_NN_DOT2X3_END(top)                                                      \
    "stmia   r12!, {r0, r2, r4}\n\t"                                               \
    "add     lr, r12, #(4 * " EM_NN_STR(EM_NN_CONV_CHUNK) " - 12)\n\t"            \
    "stm     lr, {r6, r8, r10}\n\t"                                                \
    "add     r9, r3, #15\n\t" /* the bytes the loop advanced */                   \
    "bic     r9, r9, #15\n\t"                                                      \
    "sub     r5, r5, r9\n\t"                                                       \
    "sub     r1, r1, r9\n\t"                                                       \
    "sub     r7, r11, r9\n\t"                                                      \
    "add     r7, r7, r3\n\t" /* row 3: the next triple */                         \
    "ldr     lr, [sp, #40]\n\t"                                                    \
    "cmp     r12, lr\n\t"                                                          \
    "bne     " top "\n\t"                                                          \
    "pop     {r4-r11, pc}\n"

#if defined(__GNUC__)
/**
 * em_nn_dot2x3_mve() for @p triples >= 1 consecutive groups of three weight rows (w, then
 * w + 3k, ...): triple t's sums of column a at sums[3t..3t+2] and of column b at
 * sums[EM_NN_CONV_CHUNK + 3t..], for two columns a and b of k >= 1 int8 (K = k). Per 16
 * inputs two column loads and three weight loads feed six VMLADAVA (12 instructions per 96 MACs;
 * em_nn_dot4_cols_mve: 10 per 64), tail-predicated (DLSTP / WLSTP / LETP: nothing past a
 * column or a row is read); with k >= 16 the first step is unpredicated and sets the sums
 * (VMLADAV), so they need no zeroing. A leaf in assembly: six even accumulators and five
 * pointers fill the register file, and C around an inline loop reloads its state from the stack
 * at every triple (runtime/kernels/README.md). AAPCS: r0 = a,
 * r1 = b, r2 = w, r3 = k, stack: sums, triples (its slot then holds the sums' end); q0-q2 only,
 * r4-r11 saved.
 */
#define EM_NN_ARG __attribute__((unused)) /* read by the assembly through r0-r3 and the stack */
__attribute__((naked, noinline)) void em_nn_dot2x3_rows_mve(EM_NN_ARG const int8_t *a, EM_NN_ARG const int8_t *b,
                                                            EM_NN_ARG const int8_t *w, EM_NN_ARG int32_t k,
                                                            EM_NN_ARG int32_t *sums, EM_NN_ARG int32_t triples)
{
    __asm__ volatile("push    {r4-r11, lr}\n\t"
                     "ldr     r12, [sp, #36]\n\t"       /* sums */
                     "ldr     r4, [sp, #40]\n\t"        /* triples */
                     "add     r4, r4, r4, lsl #1\n\t"
                     "add     r4, r12, r4, lsl #2\n\t"  /* end of column a's sums */
                     "str     r4, [sp, #40]\n\t"
                     "mov     r5, r0\n\t"               /* column a */
                     "mov     r7, r2\n\t"               /* row 0 of the triple */
                     "cmp     r3, #16\n\t"
                     "blt     4f\n"
                     /* k >= 16: the first step sets the sums (VMLADAV), then WLSTP runs the
                      * k − 16 left (none: no step) */
                     "1:\n\t"
                     "add     r9, r7, r3\n\t"           /* row 1 */
                     "add     r11, r9, r3\n\t"          /* row 2 */
                     "vldrb.8     q0, [r5], #16\n\t"
                     "vldrb.8     q1, [r1], #16\n\t"
                     "vldrb.8     q2, [r7], #16\n\t"
                     "vmladav.s8  r0, q0, q2\n\t"
                     "vmladav.s8  r6, q1, q2\n\t"
                     "vldrb.8     q2, [r9], #16\n\t"
                     "vmladav.s8  r2, q0, q2\n\t"
                     "vmladav.s8  r8, q1, q2\n\t"
                     "vldrb.8     q2, [r11], #16\n\t"
                     "vmladav.s8  r4, q0, q2\n\t"
                     "vmladav.s8  r10, q1, q2\n\t"
                     "sub     lr, r3, #16\n\t"
                     "wlstp.8 lr, lr, 3f\n"
                     "2:\n\t"
                     EM_NN_DOT2X3_STEP
                     "letp        lr, 2b\n"
                     "3:\n\t"
                     EM_NN_DOT2X3_END("1b")
                     /* k < 16: one predicated step from zeroed sums */
                     "4:\n\t"
                     "add     r9, r7, r3\n\t"
                     "add     r11, r9, r3\n\t"
                     "movs    r0, #0\n\t"
                     "movs    r2, #0\n\t"
                     "movs    r4, #0\n\t"
                     "movs    r6, #0\n\t"
                     "mov     r8, #0\n\t"
                     "mov     r10, #0\n\t"
                     "dlstp.8 lr, r3\n"
                     "5:\n\t"
                     EM_NN_DOT2X3_STEP
                     "letp        lr, 5b\n\t"
                     EM_NN_DOT2X3_END("4b"));
}
#else
void em_nn_dot2x3_rows_mve(const int8_t *a, const int8_t *b, const int8_t *w, int32_t k, int32_t *sums,
                           int32_t triples)
{
    for (int32_t t = 0; t < triples; t++) {
        em_nn_dot2x3_mve(a, b, w + 3 * t * k, k, sums + 3 * t);
    }
}
#endif

#endif /* EM_NN_TIER_MVE */
