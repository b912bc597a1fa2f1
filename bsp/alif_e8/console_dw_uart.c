/**
 * @file console_dw_uart.c
 * @brief Alif Ensemble E8 DevKit bring-up and console: UART4 (Synopsys DesignWare APB UART,
 *        16550-compatible), 115200 8N1, polled, both ways, on the PRG USB connector (J3).
 *
 * Runs once, from em_cortex_m_console_init(), which the shared reset handler
 * (bsp/cortex_m/startup.c) calls before anything else prints. The clock tree is not touched:
 * the Secure Enclave configures it before it releases the M55-HP core.
 *
 * Facts and where they come from (Alif Ensemble CMSIS DFP, github.com/alifsemi/
 * alif_ensemble-cmsis-dfp):
 * - UART4 is the DevKit-E8's stdio UART, on the PRG USB connector J3, with switch SW4 at "U4"
 *   (Boards/DevKit-e8/Layers/M55_HP/README.md, DevKit-E8.h RETARGET_STDIO_UART 4).
 * - Pins P12_1 = UART4_RX_B and P12_2 = UART4_TX_B, alternate function 2, pads as Alif sets
 *   them (Boards/DevKit-e8/pins.h, "UARTB").
 * - UART4 at 0x4901_C000, PINMUX at 0x1A60_3000, CLKCTL_PER_SLV at 0x4902_F000
 *   (Device/soc/AE822FA0E5597/include/rtss_hp/soc.h, peripheral address map).
 * - CLKCTL_PER_SLV.UART_CTRL at offset 0x08: bit n enables UARTn's clock, bit 8 + n selects
 *   SYST_PCLK (1) instead of HFOSC (0) (peripheral_types.h CLKCTL_PER_SLV_Type;
 *   sys_ctrl_uart.h enable_uart_clock, select_uart_clock_syst_pclk).
 * - A pin's mux/pad register is PINMUX + 32 port + 4 pin, value (pad << 16) | function
 *   (Alif pinconf.c pinconf_set; PADCTRL_* in pinconf.h).
 * - UART clock: SYST_PCLK, 100 MHz (board.yaml console.clock_hz), Alif's default for UART4
 *   (RTE_Device.h RTE_UART4_CLK_SOURCE 1 = "CLK_100MHz"; SOC_FEAT_PCLK_MAX_HZ).
 * - Registers: THR/DLL 0x00, DLH 0x04, FCR 0x08, LCR 0x0C, LSR 0x14 (THRE 5, TEMT 6),
 *   USR 0x7C (BUSY 0): the UART_Type of Alif's uart.h (DesignWare DW_apb_uart layout).
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

#define UART_INSTANCE 4u
#define CLKCTL_PER_SLV_UART_CTRL REG32(0x4902F000u + 0x08u)
#define UART_CTRL_CLK_ENABLE(n) (1u << (n))
#define UART_CTRL_SEL_SYST_PCLK(n) (1u << (8u + (n)))

#define PINMUX(port, pin) REG32(0x1A603000u + ((uint32_t)(port) << 5) + ((uint32_t)(pin) << 2))
#define PAD_READ_ENABLE 0x01u
#define PAD_PULL_UP 0x08u
#define PAD_DRIVE_4MA 0x20u
#define PIN_FUNCTION_UART4_B 2u

#define UART_THR REG32(EM_BSP_CONSOLE_BASE + 0x00u)
#define UART_RBR REG32(EM_BSP_CONSOLE_BASE + 0x00u)
#define UART_DLL REG32(EM_BSP_CONSOLE_BASE + 0x00u)
#define UART_DLH REG32(EM_BSP_CONSOLE_BASE + 0x04u)
#define UART_IER REG32(EM_BSP_CONSOLE_BASE + 0x04u)
#define UART_FCR REG32(EM_BSP_CONSOLE_BASE + 0x08u)
#define UART_LCR REG32(EM_BSP_CONSOLE_BASE + 0x0Cu)
#define UART_LSR REG32(EM_BSP_CONSOLE_BASE + 0x14u)
#define UART_USR REG32(EM_BSP_CONSOLE_BASE + 0x7Cu)
#define LCR_8N1 0x03u
#define LCR_DLAB 0x80u
#define FCR_ENABLE_AND_RESET 0x07u /* FIFOE, RFIFOR, XFIFOR */
#define LSR_DR (1u << 0)
#define LSR_RX_ERRORS (0x0Eu) /* OE, PE, FE: cleared by reading LSR */
#define LSR_THRE (1u << 5)
#define LSR_TEMT (1u << 6)
#define USR_BUSY (1u << 0)

#define UART_BAUD 115200u
/* clock / (16 divisor), rounded: 100 MHz -> 54, 115741 baud (+0.47 %). */
#define UART_DIVISOR ((EM_BSP_UART_CLOCK_HZ + 8u * UART_BAUD) / (16u * UART_BAUD))
_Static_assert(UART_DIVISOR >= 1u && UART_DIVISOR <= 0xFFFFu, "console.clock_hz gives no 16-bit divisor");

void em_cortex_m_console_init(void)
{
    em_silicon_enable_icache();

    CLKCTL_PER_SLV_UART_CTRL |= UART_CTRL_SEL_SYST_PCLK(UART_INSTANCE);
    CLKCTL_PER_SLV_UART_CTRL |= UART_CTRL_CLK_ENABLE(UART_INSTANCE);

    PINMUX(12, 1) = ((PAD_READ_ENABLE | PAD_PULL_UP | PAD_DRIVE_4MA) << 16) | PIN_FUNCTION_UART4_B;
    PINMUX(12, 2) = ((PAD_PULL_UP | PAD_DRIVE_4MA) << 16) | PIN_FUNCTION_UART4_B;

    /* LCR (and the divisor latch) can only be written while the UART is idle. */
    while (UART_USR & USR_BUSY) {
    }
    UART_IER = 0u;
    UART_LCR = LCR_DLAB;
    UART_DLL = UART_DIVISOR & 0xFFu;
    UART_DLH = (UART_DIVISOR >> 8) & 0xFFu;
    UART_LCR = LCR_8N1;
    UART_FCR = FCR_ENABLE_AND_RESET;
}

void em_bsp_console_write(const char *text, size_t len)
{
    for (size_t i = 0; i < len; ++i) {
        while ((UART_LSR & LSR_THRE) == 0u) {
        }
        UART_THR = (uint8_t)text[i];
    }
}

void em_silicon_console_flush(void)
{
    while ((UART_LSR & LSR_TEMT) == 0u) {
    }
}

int em_bsp_console_poll(void)
{
    const uint32_t lsr = UART_LSR; /* reading it clears the error bits */
    if ((lsr & LSR_DR) == 0u) {
        return -1;
    }
    const int byte = (int)(UART_RBR & 0xFFu);
    return (lsr & LSR_RX_ERRORS) ? -1 : byte;
}
