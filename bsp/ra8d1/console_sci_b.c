/**
 * @file console_sci_b.c
 * @brief EK-RA8D1 bring-up and console: SCI9 (SCI_B) in asynchronous mode, 115200 8N1, polled,
 *        both ways, on the J-Link OB virtual COM port.
 *
 * Everything here runs once, from em_cortex_m_console_init(), which the shared reset handler
 * (bsp/cortex_m/startup.c) calls before anything else prints.
 *
 * Clocks: the system clock is left at its reset source; the firmware does not start the PLL
 * (see bsp/README.md, "ra8d1 clocks"). SCICLK, the clock of the SCI baud generator, is taken
 * from the HOCO, which this file starts. Its frequency (board.yaml console.clock_hz, 48 MHz)
 * is the value of Renesas' devicetree for the RA8D1 (Zephyr dts/arm/renesas/ra/ra8/
 * r7fa8d1xh.dtsi, node `hoco`); on the part it is selected by OFS1.HOCOFRQ, which this
 * firmware does not program.
 *
 * Facts and where they come from:
 * - SCI9 at 0x4035_8900, module stop bit MSTPCRB.22, console pins PA14 = TXD9, PA15 = RXD9
 *   with PSEL 5 (Zephyr dts/arm/renesas/ra/ra8/ra8x1.dtsi `sci9`, boards/renesas/ek_ra8d1/
 *   ek_ra8d1-pinctrl.dtsi `sci9_default`, ek_ra8d1.dts `zephyr,console = &uart9`;
 *   include/zephyr/dt-bindings/pinctrl/renesas/pinctrl-ra.h RA_PSEL_SCI_9 = 0x5).
 * - SCI_B registers: TDR 0x04, CCR0 0x08 (RE 0, TE 4, IDSEL 10), CCR1 0x0C (SPB2DT 4, SPB2IO 5),
 *   CCR2 0x10 (BRR 15..8, BGDM 4, ABCS 5), CCR3 0x14 (CHR 9..8, LSBF 12, STP 14, MOD 18..16,
 *   CKE 25..24), CCR4 0x18, CSR 0x48 (TDRE 29, TEND 30): Renesas' SCI_B register header
 *   (R_SCI_B0_Type) and the initialisation order of FSP r_sci_b_uart.c (R_SCI_B_UART_Open,
 *   r_sci_b_uart_config_set: CCR0 = IDSEL, CCR3, CCR2, CCR1, CCR4, then TE).
 * - Bit rate: async, BGDM = ABCS = ABCSE = 0, CKS = 0 gives SCICLK / (32 (BRR + 1))
 *   (FSP g_async_baud / g_div_coefficient, first entry with divisor 32).
 * - R_SYSTEM at 0x4001_E000 (PRCR 0x3FE, HOCOCR 0x036, OSCSF 0x03C, SCICKDIVCR 0x054,
 *   SCICKCR 0x055), R_MSTP 0x4020_3000, R_PFS 0x4040_0800, R_PMISC 0x4040_0D00: FSP RA8x1
 *   base addresses (also NuttX ra8m1_memorymap.h, Zephyr ra8x1.dtsi `system`, `pinctrl`).
 *   The register offsets inside R_SYSTEM and R_PMISC (PWPR 0x03) and the SCICKCR request /
 *   ready bits (6, 7) follow FSP's RA register headers but were not checked against the
 *   RA8D1 hardware manual here: see bsp/README.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "em_bsp.h"
#include "../cortex_m/em_cortex_m.h"
#include "../cortex_m/em_silicon.h"

#ifndef EM_BSP_CONSOLE_BASE
#error "EM_BSP_CONSOLE_BASE must come from board.yaml (console.base)"
#endif
#ifndef EM_BSP_UART_CLOCK_HZ
#error "EM_BSP_UART_CLOCK_HZ must come from board.yaml (console.clock_hz)"
#endif

#define REG32(address) (*(volatile uint32_t *)(uintptr_t)(address))
#define REG16(address) (*(volatile uint16_t *)(uintptr_t)(address))
#define REG8(address) (*(volatile uint8_t *)(uintptr_t)(address))

/* R_SYSTEM: clock generation. */
#define SYSTEM_BASE 0x4001E000u
#define PRCR REG16(SYSTEM_BASE + 0x3FEu)
#define PRCR_KEY (0xA5u << 8)
#define PRCR_PRC0 (1u << 0) /* clock generation registers */
#define HOCOCR REG8(SYSTEM_BASE + 0x036u)
#define HOCOCR_HCSTP (1u << 0)
#define OSCSF REG8(SYSTEM_BASE + 0x03Cu)
#define OSCSF_HOCOSF (1u << 0)
#define SCICKDIVCR REG8(SYSTEM_BASE + 0x054u)
#define SCICKCR REG8(SYSTEM_BASE + 0x055u)
#define SCICKCR_SEL_MASK 0x0Fu
#define SCICKCR_SEL_HOCO 0x00u
#define SCICKCR_REQ (1u << 6)
#define SCICKCR_RDY (1u << 7)

/* R_MSTP: module stop. */
#define MSTPCRB REG32(0x40203004u)
#define MSTPCRB_SCI9 (1u << 22)

/* Pin function select: PmnPFS at R_PFS + 0x40 * port + 4 * pin; write-enabled through PWPR. */
#define PFS(port, pin) REG32(0x40400800u + 0x40u * (port) + 4u * (pin))
#define PFS_PMR (1u << 16)
#define PFS_PSEL(code) ((uint32_t)(code) << 24)
#define PSEL_SCI_ODD 0x05u /* SCI1/3/5/7/9 */
#define PWPR REG8(0x40400D00u + 0x03u)
#define PWPR_PFSWE (1u << 6)
#define PWPR_B0WI (1u << 7)
#define PORT_A 10u
#define PIN_TXD9 14u
#define PIN_RXD9 15u

/* SCI_B channel registers. */
#define SCI_RDR REG32(EM_BSP_CONSOLE_BASE + 0x00u)
#define SCI_TDR REG32(EM_BSP_CONSOLE_BASE + 0x04u)
#define SCI_CCR0 REG32(EM_BSP_CONSOLE_BASE + 0x08u)
#define SCI_CCR1 REG32(EM_BSP_CONSOLE_BASE + 0x0Cu)
#define SCI_CCR2 REG32(EM_BSP_CONSOLE_BASE + 0x10u)
#define SCI_CCR3 REG32(EM_BSP_CONSOLE_BASE + 0x14u)
#define SCI_CCR4 REG32(EM_BSP_CONSOLE_BASE + 0x18u)
#define SCI_CSR REG32(EM_BSP_CONSOLE_BASE + 0x48u)
#define SCI_CFCLR REG32(EM_BSP_CONSOLE_BASE + 0x68u)
#define CCR0_RE (1u << 0)
#define CCR0_TE (1u << 4)
#define CCR0_IDSEL (1u << 10)
#define CCR1_SPB2_IDLE_HIGH (3u << 4) /* SPB2DT = SPB2IO = 1: TXD high while TE = 0 */
#define CCR3_CHR_8BIT (2u << 8)
#define CCR3_LSBF (1u << 12)
#define CCR2_BRR(value) ((uint32_t)(value) << 8)
#define CSR_TDRE (1u << 29)
#define CSR_TEND (1u << 30)
#define CSR_RDRF (1u << 31)
/* FER 28, PER 27, ORER 24; CFCLR clears each at the same bit (Renesas R_SCI_B0_Type). */
#define CSR_RX_ERRORS ((1u << 28) | (1u << 27) | (1u << 24))

#define UART_BAUD 115200u
/* SCICLK / (32 (BRR + 1)), rounded to the nearest BRR: 48 MHz -> BRR 12, 115385 baud (+0.16 %). */
#define SCI_BRR ((EM_BSP_UART_CLOCK_HZ + 16u * UART_BAUD) / (32u * UART_BAUD) - 1u)
_Static_assert(SCI_BRR >= 1u && SCI_BRR <= 255u, "console.clock_hz gives no 8-bit BRR for 115200 baud");

static void start_sciclk_from_hoco(void)
{
    PRCR = PRCR_KEY | PRCR_PRC0;
    HOCOCR = 0u; /* HCSTP = 0: HOCO runs */
    while ((OSCSF & OSCSF_HOCOSF) == 0u) {
    }
    /* Source change handshake (FSP bsp_peripheral_clock_set): request, wait ready, set divider
       (/1) and source, release, wait. */
    SCICKCR |= SCICKCR_REQ;
    while ((SCICKCR & SCICKCR_RDY) == 0u) {
    }
    SCICKDIVCR = 0u;
    SCICKCR = (uint8_t)((SCICKCR & ~SCICKCR_SEL_MASK) | SCICKCR_SEL_HOCO);
    SCICKCR &= (uint8_t)~SCICKCR_REQ;
    while ((SCICKCR & SCICKCR_RDY) != 0u) {
    }
    PRCR = PRCR_KEY;
}

static void route_pins(void)
{
    PWPR = 0u;
    PWPR = PWPR_PFSWE;
    PFS(PORT_A, PIN_TXD9) = PFS_PMR | PFS_PSEL(PSEL_SCI_ODD);
    PFS(PORT_A, PIN_RXD9) = PFS_PMR | PFS_PSEL(PSEL_SCI_ODD);
    PWPR = 0u;
    PWPR = PWPR_B0WI;
}

void em_cortex_m_console_init(void)
{
    em_silicon_enable_icache();
    start_sciclk_from_hoco();
    MSTPCRB &= ~MSTPCRB_SCI9;
    (void)MSTPCRB; /* read back: the write has reached the module-stop block */
    route_pins();

    SCI_CCR0 = CCR0_IDSEL; /* TE = RE = 0 while configuring */
    SCI_CCR3 = CCR3_LSBF | CCR3_CHR_8BIT; /* async, 8 data bits, 1 stop bit, internal clock */
    SCI_CCR2 = CCR2_BRR(SCI_BRR);
    SCI_CCR1 = CCR1_SPB2_IDLE_HIGH;
    SCI_CCR4 = 0u;
    SCI_CCR0 = CCR0_IDSEL | CCR0_TE | CCR0_RE;
}

void em_bsp_console_write(const char *text, size_t len)
{
    for (size_t i = 0; i < len; ++i) {
        while ((SCI_CSR & CSR_TDRE) == 0u) {
        }
        SCI_TDR = (uint8_t)text[i];
    }
}

void em_silicon_console_flush(void)
{
    while ((SCI_CSR & CSR_TEND) == 0u) {
    }
}

int em_bsp_console_poll(void)
{
    const uint32_t csr = SCI_CSR;
    if (csr & CSR_RX_ERRORS) {
        SCI_CFCLR = csr & CSR_RX_ERRORS;
        return -1;
    }
    return (csr & CSR_RDRF) ? (int)(SCI_RDR & 0xFFu) : -1;
}
