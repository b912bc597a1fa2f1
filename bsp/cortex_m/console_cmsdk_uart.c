/**
 * @file console_cmsdk_uart.c
 * @brief Console on a CMSDK APB UART (UART0 of AN547, AN385, AN386, AN505): polled, both ways.
 *
 * The UART's base address comes from board.yaml (console.base) as EM_BSP_CONSOLE_BASE.
 * Register layout: Arm CMSDK APB UART (DATA 0x00, STATE 0x04, CTRL 0x08, BAUDDIV 0x10).
 */
#include <stddef.h>
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

#ifndef EM_BSP_CONSOLE_BASE
#error "EM_BSP_CONSOLE_BASE must come from board.yaml (console.base)"
#endif
#ifndef EM_BSP_UART_CLOCK_HZ
#error "EM_BSP_UART_CLOCK_HZ must come from board.yaml (console.clock_hz)"
#endif

#define UART_REG(offset) (*(volatile uint32_t *)((uintptr_t)(EM_BSP_CONSOLE_BASE) + (offset)))
#define UART_DATA UART_REG(0x00)
#define UART_STATE UART_REG(0x04)
#define UART_CTRL UART_REG(0x08)
#define UART_BAUDDIV UART_REG(0x10)

#define UART_STATE_TXFULL (1u << 0)
#define UART_STATE_RXFULL (1u << 1)
#define UART_STATE_RX_OVERRUN (1u << 3) /* write 1 to clear */
#define UART_CTRL_TX_ENABLE (1u << 0)
#define UART_CTRL_RX_ENABLE (1u << 1)
#define UART_BAUD 115200u

void em_cortex_m_console_init(void)
{
    /* The UART ignores a divider below 16 (its reset value is 0), so program a real one. */
    UART_BAUDDIV = EM_BSP_UART_CLOCK_HZ / UART_BAUD;
    UART_CTRL = UART_CTRL_TX_ENABLE | UART_CTRL_RX_ENABLE;
}

void em_bsp_console_write(const char *text, size_t len)
{
    for (size_t i = 0; i < len; ++i) {
        while (UART_STATE & UART_STATE_TXFULL) {
        }
        UART_DATA = (uint8_t)text[i];
    }
}


int em_bsp_console_poll(void)
{
    const uint32_t state = UART_STATE;
    if (state & UART_STATE_RX_OVERRUN) {
        UART_STATE = UART_STATE_RX_OVERRUN;
    }
    return (state & UART_STATE_RXFULL) ? (int)(UART_DATA & 0xFFu) : -1;
}
