/*
 * terresoro_board.c - the TerreSoRo limb board: four DC tendon motors behind H-bridges (paper VI-A; spec 8).
 *
 * set_limbs drives each channel FORWARD (12 V, the tendon winds and the limb curls), REVERSE (the brief pulse that
 * slackens a tendon so the silicone limb springs back) or OFF (coast: the stalled gear motor holds its spool).
 * Pins: channel m's forward input on PC(m), its reverse input on PB(m); both low is off. The board cannot sense
 * curl: it estimates each limb's curl from its drive history (SETTLE_MS from flat to curled, as the Python
 * stand-in terresoro_gait/device.py does) and reports it with the drive read back from its port image at 50 Hz.
 * It does not know which limb is on which channel, so the vertex it reports is 0 ("unknown"): the executor
 * works it out from the curls and its own motor_of_limb. Safe state: every motor off and every tendon counted
 * as released.
 */
#include <avr/io.h>

#include "soro_board.h"
#include "terresoro_messages.h"

#define MOTORS 4u
#define FORWARD 1
#define REVERSE (-1)
#define SETTLE_MS 300u          /* flat to fully curled, or back */
#define TELEMETRY_MS 20u        /* 50 Hz */
#define CHANNEL_MASK 0x0Fu      /* PB0-PB3 and PC0-PC3 */

const char board_kind[] = "terresoro";
const char board_firmware_version[] = "1.0.0";

static uint8_t forward_pins;    /* image of PORTC's channel bits */
static uint8_t reverse_pins;    /* image of PORTB's channel bits */
static uint8_t curled;          /* bit m: channel m's limb is heading for curled */
static uint16_t curl_ms[MOTORS];        /* 0 flat .. SETTLE_MS curled */
static uint32_t next_telemetry_ms;

static void write_outputs(uint8_t forward, uint8_t reverse)
{
    forward &= (uint8_t)~reverse;   /* never both inputs of one bridge high (a shoot-through) */
    if (forward != forward_pins || reverse != reverse_pins) {
        forward_pins = forward;
        reverse_pins = reverse;
        PORTC = (uint8_t)((PORTC & ~CHANNEL_MASK) | forward);
        PORTB = (uint8_t)((PORTB & ~CHANNEL_MASK) | reverse);
    }
}

static int8_t drive_of(uint8_t m)
{
    if (forward_pins & (1u << m)) {
        return FORWARD;
    }
    return (reverse_pins & (1u << m)) ? REVERSE : 0;
}

void board_init(void)
{
    PORTC &= (uint8_t)~CHANNEL_MASK;   /* low before they become outputs */
    PORTB &= (uint8_t)~CHANNEL_MASK;
    DDRC |= CHANNEL_MASK;
    DDRB |= CHANNEL_MASK;
}

void board_safe_state(void)
{
    write_outputs(0, 0);
    curled = 0;
}

uint8_t board_command(uint8_t type, const uint8_t *body, uint8_t body_len, uint32_t now_ms)
{
    const terresoro_set_limbs_t *command = (const terresoro_set_limbs_t *)body;
    uint8_t forward = 0;
    uint8_t reverse = 0;
    uint8_t m;
    (void)now_ms;
    if (type != TERRESORO_SET_LIMBS) {
        return SORO_NACK_UNKNOWN_TYPE;
    }
    if (body_len != TERRESORO_SET_LIMBS_SIZE) {
        return SORO_NACK_BAD_BODY;
    }
    for (m = 0; m < MOTORS; m++) {
        if (command->drive[m] < REVERSE || command->drive[m] > FORWARD) {
            return SORO_NACK_OUT_OF_RANGE;
        }
    }
    for (m = 0; m < MOTORS; m++) {    /* forward curls, a reversal releases, off keeps what it had */
        if (command->drive[m] == FORWARD) {
            forward |= (uint8_t)(1u << m);
        } else if (command->drive[m] == REVERSE) {
            reverse |= (uint8_t)(1u << m);
        }
    }
    curled = (uint8_t)((curled | forward) & ~reverse);
    write_outputs(forward, reverse);
    return 0;
}

/* A limb's curl, counted in milliseconds of tendon travel: one per tick toward where its tendon takes it. */
static void estimate_curl(void)
{
    uint8_t m;
    for (m = 0; m < MOTORS; m++) {
        if ((curled & (1u << m)) && curl_ms[m] < SETTLE_MS) {
            curl_ms[m]++;
        } else if (!(curled & (1u << m)) && curl_ms[m] > 0) {
            curl_ms[m]--;
        }
    }
}

void board_tick(uint32_t now_ms)
{
    terresoro_limbs_t limbs;
    uint8_t m;
    estimate_curl();
    if (!soro_send_due(&next_telemetry_ms, now_ms, TELEMETRY_MS)) {
        return;
    }
    for (m = 0; m < MOTORS; m++) {
        limbs.curl_pct[m] = (uint8_t)((curl_ms[m] * 100u + SETTLE_MS / 2u) / SETTLE_MS);
        limbs.drive[m] = drive_of(m);
    }
    limbs.vertex = 0;
    limbs.safe = soro_is_safe();
    soro_send(TERRESORO_LIMBS, &limbs, TERRESORO_LIMBS_SIZE);
}
