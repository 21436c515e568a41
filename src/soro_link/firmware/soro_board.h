/*
 * soro_board.h - the device side of soro_link that every ATmega328P board runs (soro_board.c holds main()).
 *
 * The runtime owns the UART (115200 8N1, received bytes queued by the RX interrupt), a 1 kHz clock on Timer1 and
 * the link: it answers hello with identity, sends heartbeats carrying the safe-state flag every
 * SORO_HEARTBEAT_MS once a host said hello, acks or nacks commands, counts and drops malformed frames (reported in
 * rx_errors), and runs the link watchdog: no heartbeat or command from the host for SORO_WATCHDOG_MS puts the board
 * in its safe state within one tick and says so in a WATCHDOG log. The board boots in its safe state. The chip's
 * own watchdog (WDTO_250MS) resets a board whose loop hangs, and a reset boots safe.
 *
 * A board supplies the functions below and its message bodies (generated from the Python schemas by
 * soro_link.c_header, so both sides read the same layout).
 */
#ifndef SORO_BOARD_H
#define SORO_BOARD_H

#include <stdint.h>

#include "soro_link.h"
#include "soro_link_messages.h"

#ifndef SORO_WATCHDOG_MS
#define SORO_WATCHDOG_MS 500u    /* the Python stand-in's default (soro_link.device.SimulatedDevice) */
#endif
#ifndef SORO_HEARTBEAT_MS
#define SORO_HEARTBEAT_MS 100u
#endif
#define SORO_RX_ERRORS_MS 1000u  /* rx_errors goes out at most this often, and only when a count changed */

/* ---- what each board defines */

extern const char board_kind[];             /* identity.device_kind, e.g. "terresoro" */
extern const char board_firmware_version[]; /* identity.firmware_version */

/* Configures the board's pins with every output in its safe level. Called first, before interrupts are on. */
void board_init(void);

/* A robot command (type >= 0x20) arrived after the handshake. Returns 0 to ack it, or a NACK code (soro_nack_code_t)
 * to refuse it with nothing changed. The body length is checked against the schema by the board. */
uint8_t board_command(uint8_t type, const uint8_t *body, uint8_t body_len, uint32_t now_ms);

/* Every output to its safe level now (motors off, chambers vented, actuators held). Must not fail. */
void board_safe_state(void);

/* Called once for every millisecond, with that millisecond (late ticks are made up for, in order); may send
 * telemetry with soro_send while soro_linked(). */
void board_tick(uint32_t now_ms);

/* ---- what the runtime offers */

typedef enum {
    SORO_NACK_UNKNOWN_TYPE = 1,
    SORO_NACK_BAD_BODY = 2,
    SORO_NACK_OUT_OF_RANGE = 3,
    SORO_NACK_BAD_VERSION = 4,
    SORO_NACK_NOT_READY = 5
} soro_nack_code_t;

typedef enum { SORO_LOG_INFO = 0, SORO_LOG_WARN = 1, SORO_LOG_ERROR = 2 } soro_log_level_t;
typedef enum { SORO_LOGCODE_INFO = 0, SORO_LOGCODE_BOOTED = 1, SORO_LOGCODE_WATCHDOG = 2, SORO_LOGCODE_FAULT = 3 }
    soro_log_code_t;

/* Milliseconds since boot (wraps after 49 days). */
uint32_t soro_millis(void);

/* Sends one frame of the given type and body to the host. */
void soro_send(uint8_t type, const void *body, uint8_t body_len);

/* Sends a LOG frame (text truncated to 64 bytes). */
void soro_log(soro_log_level_t level, soro_log_code_t code, const char *text);

/* The board is in its safe state (every output safe, waiting for a fresh command). */
uint8_t soro_is_safe(void);

/* Puts the board in its safe state (board_safe_state) and marks it so; reason goes to the host as a log when
 * non-NULL. A board calls it for its own faults. */
void soro_enter_safe_state(soro_log_code_t code, const char *reason);

/* A host has said hello since boot: telemetry has someone to go to. */
uint8_t soro_linked(void);

/* 1 when a host is linked and *next_ms has come (then *next_ms moves period_ms past now_ms), else 0: the beat of
 * a periodic message such as a board's telemetry. */
uint8_t soro_send_due(uint32_t *next_ms, uint32_t now_ms, uint32_t period_ms);

#endif /* SORO_BOARD_H */
