/*
 * snake_head.c - the soft snake's head controller (thesis 2.1.1; spec A6, option 2): the host streams every
 * chamber's valve duty, the head forwards each module's three duties to its peripheral controller over I2C, and
 * reports what it forwarded at 20 Hz.
 *
 * set_valves is refused (OUT_OF_RANGE, nothing changed) when its module count is not SNAKE_MODULES or a duty
 * exceeds 100 %. Safe state: every chamber vented (duty 0 forwarded to every module). Besides the link's
 * watchdog, the head vents when duties stop arriving for COMMAND_TIMEOUT_MS while the link is up (soft_snake/
 * valves.py COMMAND_TIMEOUT_S), and says so.
 *
 * STUB: the I2C side. module_forward() only records what a real head would write to module i's controller, and
 * the chambers' pressures are not measured (reported as PRESSURE_UNMEASURED); the physics behind the valves lives
 * in the Python stand-in (soft_snake/device.py).
 */
#include <string.h>

#include "soro_board.h"
#include "snake_head_messages.h"

#ifndef SNAKE_MODULES
#define SNAKE_MODULES 4u        /* the modules on this snake's I2C bus (3-5) */
#endif
#define CHAMBERS 3u
#define SLOTS 15u               /* 5 modules x 3 chambers on the wire, the first SNAKE_MODULES x 3 used */
#define COMMAND_TIMEOUT_MS 500u
#define TELEMETRY_MS 50u        /* 20 Hz */
#define PRESSURE_UNMEASURED 0xFFFFu

const char board_kind[] = "soft_snake_head";
const char board_firmware_version[] = "1.0.0";

static uint8_t forwarded[SNAKE_MODULES][CHAMBERS];   /* the duties each module controller holds, % */
static uint32_t last_command_ms;
static uint32_t next_telemetry_ms;

/* STUB: a real head writes the three duties to module i's I2C address here (TWI). */
static void module_forward(uint8_t module, const uint8_t *duty_pct)
{
    memcpy(forwarded[module], duty_pct, CHAMBERS);
}

static void forward_all(const uint8_t *duty_pct)
{
    uint8_t i;
    for (i = 0; i < SNAKE_MODULES; i++) {
        module_forward(i, duty_pct + i * CHAMBERS);
    }
}

void board_init(void)
{
}

void board_safe_state(void)
{
    static const uint8_t vented[SNAKE_MODULES * CHAMBERS];
    forward_all(vented);
}

uint8_t board_command(uint8_t type, const uint8_t *body, uint8_t body_len, uint32_t now_ms)
{
    const snake_set_valves_t *command = (const snake_set_valves_t *)body;
    uint8_t k;
    if (type != SNAKE_SET_VALVES) {
        return SORO_NACK_UNKNOWN_TYPE;
    }
    if (body_len != SNAKE_SET_VALVES_SIZE) {
        return SORO_NACK_BAD_BODY;
    }
    if (command->modules != SNAKE_MODULES) {
        return SORO_NACK_OUT_OF_RANGE;
    }
    for (k = 0; k < SLOTS; k++) {
        if (command->duty_pct[k] > 100u) {
            return SORO_NACK_OUT_OF_RANGE;
        }
    }
    forward_all(command->duty_pct);
    last_command_ms = now_ms;
    return 0;
}

void board_tick(uint32_t now_ms)
{
    snake_chambers_t report;
    uint8_t k;
    /* signed, as in soro_board.c: a tick made up for can be older than the last command */
    if (!soro_is_safe() && (int32_t)(now_ms - last_command_ms) > (int32_t)COMMAND_TIMEOUT_MS) {
        soro_enter_safe_state(SORO_LOGCODE_WATCHDOG, "no valve duties for 500 ms: every chamber vented");
    }
    if (!soro_send_due(&next_telemetry_ms, now_ms, TELEMETRY_MS)) {
        return;
    }
    memset(&report, 0, sizeof report);
    report.modules = SNAKE_MODULES;
    memcpy(report.duty_pct, forwarded, sizeof forwarded);
    for (k = 0; k < SNAKE_MODULES * CHAMBERS; k++) {
        report.pressure_hpa[k] = PRESSURE_UNMEASURED;
    }
    report.vented = soro_is_safe();
    soro_send(SNAKE_CHAMBERS, &report, SNAKE_CHAMBERS_SIZE);
}
