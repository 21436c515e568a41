/*
 * pom_board.c - the voxel quadruped's actuator board: four lead-screw linear actuators on stepper drivers, each
 * moving its control node along its stroke axis (spec A6; pom_voxel/actuators.py).
 *
 * set_strokes sets each actuator's target control-node displacement (um); a target beyond STROKE_LIMIT_UM is
 * refused (OUT_OF_RANGE, nothing moves). Each millisecond an actuator short of its target takes one step of
 * UM_PER_STEP (20 mm/s at most, the Python stand-in's speed_mm_s), so its position is the steps it was given:
 * the board knows it without a sensor. Pins: actuator a's STEP on PD(4 + a), its DIR on PB(a). Reports strokes
 * at 50 Hz. Safe state: hold, the target becomes where each actuator is (a lattice under load must not spring
 * back); the stepper drivers stay enabled so they keep their holding torque.
 */
#include <avr/io.h>

#include "soro_board.h"
#include "pom_messages.h"

#define ACTUATORS 4u
#define UM_PER_STEP 20           /* one step per tick: 20 mm/s */
#define STROKE_LIMIT_UM 5000     /* pom_voxel.planes_of_motion.STROKE_LIMIT_MM */
#define TELEMETRY_MS 20u         /* 50 Hz */
#define STEP_PINS 0xF0u          /* PD4-PD7 */
#define DIR_PINS 0x0Fu           /* PB0-PB3 */

const char board_kind[] = "pom_quadruped";
const char board_firmware_version[] = "1.0.0";

static int16_t position_um[ACTUATORS];
static int16_t target_um[ACTUATORS];
static uint32_t next_telemetry_ms;

void board_init(void)
{
    PORTD &= (uint8_t)~STEP_PINS;
    PORTB &= (uint8_t)~DIR_PINS;
    DDRD |= STEP_PINS;
    DDRB |= DIR_PINS;
}

void board_safe_state(void)
{
    uint8_t a;
    for (a = 0; a < ACTUATORS; a++) {
        target_um[a] = position_um[a];
    }
}

uint8_t board_command(uint8_t type, const uint8_t *body, uint8_t body_len, uint32_t now_ms)
{
    const pom_set_strokes_t *command = (const pom_set_strokes_t *)body;
    uint8_t a;
    (void)now_ms;
    if (type != POM_SET_STROKES) {
        return SORO_NACK_UNKNOWN_TYPE;
    }
    if (body_len != POM_SET_STROKES_SIZE) {
        return SORO_NACK_BAD_BODY;
    }
    for (a = 0; a < ACTUATORS; a++) {
        if (command->target_um[a] > STROKE_LIMIT_UM || command->target_um[a] < -STROKE_LIMIT_UM) {
            return SORO_NACK_OUT_OF_RANGE;
        }
    }
    for (a = 0; a < ACTUATORS; a++) {
        target_um[a] = command->target_um[a];
    }
    return 0;
}

/* One step toward the target for every actuator short of it: DIR set, then a STEP pulse (rising edge). */
static void step_actuators(void)
{
    uint8_t steps = 0;
    uint8_t dirs = 0;
    uint8_t a;
    for (a = 0; a < ACTUATORS; a++) {
        int16_t error = (int16_t)(target_um[a] - position_um[a]);
        if (error == 0) {
            continue;
        }
        int16_t step = error > UM_PER_STEP ? UM_PER_STEP : error < -UM_PER_STEP ? -UM_PER_STEP : error;
        position_um[a] = (int16_t)(position_um[a] + step);
        steps |= (uint8_t)(0x10u << a);
        dirs |= (uint8_t)(step > 0 ? 1u << a : 0u);
    }
    if (steps) {
        PORTB = (uint8_t)((PORTB & ~DIR_PINS) | dirs);
        PORTD |= steps;
        PORTD &= (uint8_t)~steps;
    }
}

void board_tick(uint32_t now_ms)
{
    pom_strokes_t report;
    uint8_t a;
    step_actuators();
    if (!soro_send_due(&next_telemetry_ms, now_ms, TELEMETRY_MS)) {
        return;
    }
    for (a = 0; a < ACTUATORS; a++) {
        report.position_um[a] = position_um[a];
        report.target_um[a] = target_um[a];
    }
    report.holding = soro_is_safe();
    soro_send(POM_STROKES, &report, POM_STROKES_SIZE);
}
