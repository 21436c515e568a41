/*
 * soro_board.c - main() and the link side of every soro_link board on an ATmega328P at 16 MHz (see soro_board.h).
 *
 * Mirrors soro_link/device.py (SimulatedDevice), the Python stand-in the bridges were written against: the same
 * handshake, heartbeat, ack/nack rules, watchdog and safe state.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <stdlib.h>
#include <string.h>

#include "soro_board.h"

#define BAUD_DIVISOR 16u          /* 115200 baud with U2X0 at 16 MHz (2.1 % off, as every Arduino Uno) */
#define TIMER1_TOP 249u           /* 16 MHz / 64 / 250 = 1 kHz */
#define RX_RING 256u              /* holds 22 ms of bytes at 115200 baud; uint8_t indices wrap by themselves */
#define LOG_TEXT_MAX 64u

static volatile uint32_t millis_now;
static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head;
static volatile uint8_t rx_tail;
static volatile uint8_t rx_lost;     /* bytes the ring had no room for: their frame fails its CRC */

static soro_rx_t receiver;
static uint8_t tx_wire[SORO_LINK_MAX_ENCODED];
static uint16_t tx_seq;
static uint8_t linked;
static uint8_t safe = 1;
static uint32_t host_seen_ms;
static uint32_t next_heartbeat_ms;
static uint32_t next_rx_errors_ms;
static soro_rx_errors_t rx_errors;
static uint16_t rx_errors_sent_sum = 0;

/* A reset by the chip's watchdog leaves it enabled at 16 ms: disable it before anything else runs. */
void soro_early_init(void) __attribute__((naked, used, section(".init3")));
void soro_early_init(void)
{
    MCUSR = 0;
    wdt_disable();
}

ISR(TIMER1_COMPA_vect)
{
    millis_now++;
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_RING - 1u));
    if (next == rx_tail) {
        rx_lost = 1;
        return;
    }
    rx_ring[rx_head] = byte;
    rx_head = next;
}

uint32_t soro_millis(void)
{
    uint32_t now;
    cli();
    now = millis_now;
    sei();
    return now;
}

static void uart_put(uint8_t byte)
{
    while (!(UCSR0A & (1u << UDRE0))) {
    }
    UDR0 = byte;
}

void soro_send(uint8_t type, const void *body, uint8_t body_len)
{
    size_t n = soro_frame_encode(type, tx_seq++, (const uint8_t *)body, body_len, tx_wire);
    size_t i;
    for (i = 0; i < n; i++) {
        uart_put(tx_wire[i]);
    }
}

/* Appends a one-byte length and up to max bytes of text (the schemas' 's' format). */
static uint8_t put_string(uint8_t *out, const char *text, uint8_t max)
{
    uint8_t len = (uint8_t)strnlen(text, max);
    out[0] = len;
    memcpy(out + 1, text, len);
    return (uint8_t)(len + 1u);
}

void soro_log(soro_log_level_t level, soro_log_code_t code, const char *text)
{
    uint8_t body[2 + 1 + LOG_TEXT_MAX];
    body[0] = (uint8_t)level;
    body[1] = (uint8_t)code;
    soro_send(SORO_LOG, body, (uint8_t)(2u + put_string(body + 2, text, LOG_TEXT_MAX)));
}

static void send_identity(void)
{
    uint8_t body[1 + 2 * 33];
    uint8_t n = 0;
    body[n++] = SORO_LINK_PROTOCOL_VERSION;
    n = (uint8_t)(n + put_string(body + n, board_kind, 32));
    n = (uint8_t)(n + put_string(body + n, board_firmware_version, 32));
    soro_send(SORO_IDENTITY, body, n);
}

static void reply(uint8_t type, uint16_t ack_seq, uint8_t code)
{
    soro_nack_t nack;
    nack.ack_seq = ack_seq;
    nack.code = code;
    soro_send(type, &nack, type == SORO_ACK ? SORO_ACK_SIZE : SORO_NACK_SIZE);
}

uint8_t soro_is_safe(void)
{
    return safe;
}

uint8_t soro_linked(void)
{
    return linked;
}

uint8_t soro_send_due(uint32_t *next_ms, uint32_t now_ms, uint32_t period_ms)
{
    if (!linked || (int32_t)(now_ms - *next_ms) < 0) {
        return 0;
    }
    *next_ms = now_ms + period_ms;
    return 1;
}

void soro_enter_safe_state(soro_log_code_t code, const char *reason)
{
    board_safe_state();
    safe = 1;
    if (reason != NULL && linked) {
        soro_log(SORO_LOG_ERROR, code, reason);
    }
}

static void count(uint16_t *counter)
{
    if (*counter != 0xFFFFu) {
        (*counter)++;
    }
}

/* One decoded frame of our version: the link's rules, then the board's commands. */
static void handle(const soro_frame_t *frame, uint32_t now)
{
    if (frame->type == SORO_HELLO && frame->body_len == SORO_HELLO_SIZE) {
        linked = 1;
        host_seen_ms = now;
        send_identity();
    } else if (frame->type == SORO_HEARTBEAT && frame->body_len == SORO_HEARTBEAT_SIZE) {
        host_seen_ms = now;
    } else if (frame->type == SORO_SAFE_STATE && frame->body_len == SORO_SAFE_STATE_SIZE) {
        host_seen_ms = now;
        soro_enter_safe_state(SORO_LOGCODE_INFO, NULL);
        reply(SORO_ACK, frame->seq, 0);
    } else if (frame->type == SORO_HELLO || frame->type == SORO_HEARTBEAT || frame->type == SORO_SAFE_STATE) {
        count(&rx_errors.refused);
        reply(SORO_NACK, frame->seq, SORO_NACK_BAD_BODY);
    } else if (frame->type < 0x20u) {  /* device-to-host types sent the wrong way, or unknown */
        count(&rx_errors.refused);
        reply(SORO_NACK, frame->seq, SORO_NACK_UNKNOWN_TYPE);
    } else if (!linked) {
        count(&rx_errors.refused);
        reply(SORO_NACK, frame->seq, SORO_NACK_NOT_READY);
    } else {
        uint8_t code;
        host_seen_ms = now;
        code = board_command(frame->type, frame->body, frame->body_len, now);
        if (code == 0) {
            safe = 0;
            reply(SORO_ACK, frame->seq, 0);
        } else {
            count(&rx_errors.refused);
            reply(SORO_NACK, frame->seq, code);
        }
    }
}

static void receive(uint8_t byte, uint32_t now)
{
    soro_frame_t frame;
    switch (soro_rx_push(&receiver, byte, &frame)) {
    case SORO_OK:
        if (frame.version != SORO_LINK_PROTOCOL_VERSION) {
            count(&rx_errors.refused);
            reply(SORO_NACK, frame.seq, SORO_NACK_BAD_VERSION);
        } else {
            handle(&frame, now);
        }
        break;
    case SORO_CRC_ERROR:
        count(&rx_errors.crc);
        break;
    case SORO_FORMAT_ERROR:
        count(&rx_errors.format);
        break;
    case SORO_OVERFLOW:
        count(&rx_errors.overflow);
        break;
    default:
        break;
    }
}

static void drain_rx(uint32_t now)
{
    while (rx_tail != rx_head) {
        uint8_t byte = rx_ring[rx_tail];
        rx_tail = (uint8_t)((rx_tail + 1u) & (RX_RING - 1u));
        receive(byte, now);
    }
}

/* The link's periodic duties, once per millisecond. */
static void link_tick(uint32_t now)
{
    /* signed: a tick being made up for can be older than the frame that set host_seen_ms */
    if (!safe && (int32_t)(now - host_seen_ms) > (int32_t)SORO_WATCHDOG_MS) {
        char text[LOG_TEXT_MAX];    /* the silence as the board counted it, to the tick */
        strcpy(text, "no heartbeat or command for ");
        ultoa(now - host_seen_ms, text + strlen(text), 10);
        strcat(text, " ms: safe state");
        soro_enter_safe_state(SORO_LOGCODE_WATCHDOG, text);
    }
    if (soro_send_due(&next_heartbeat_ms, now, SORO_HEARTBEAT_MS)) {
        soro_heartbeat_t beat;
        beat.uptime_ms = now;
        beat.flags = safe ? 0x01u : 0x00u;   /* HEARTBEAT_SAFE */
        soro_send(SORO_HEARTBEAT, &beat, SORO_HEARTBEAT_SIZE);
    }
    if (linked && (int32_t)(now - next_rx_errors_ms) >= 0) {
        uint16_t sum = (uint16_t)(rx_errors.crc + rx_errors.format + rx_errors.overflow + rx_errors.refused);
        if (sum != rx_errors_sent_sum) {
            next_rx_errors_ms = now + SORO_RX_ERRORS_MS;
            rx_errors_sent_sum = sum;
            soro_send(SORO_RX_ERRORS, &rx_errors, SORO_RX_ERRORS_SIZE);
        }
    }
}

static void clock_and_uart_init(void)
{
    UCSR0A = (uint8_t)(1u << U2X0);
    UBRR0 = BAUD_DIVISOR;
    UCSR0C = (uint8_t)((1u << UCSZ01) | (1u << UCSZ00));
    UCSR0B = (uint8_t)((1u << RXEN0) | (1u << TXEN0) | (1u << RXCIE0));
    TCCR1A = 0;
    OCR1A = TIMER1_TOP;
    TCCR1B = (uint8_t)((1u << WGM12) | (1u << CS11) | (1u << CS10));   /* CTC on OCR1A, clk/64 */
    TIMSK1 = (uint8_t)(1u << OCIE1A);
}

int main(void)
{
    uint32_t last = 0;
    board_init();                 /* outputs safe before anything else: boot is safe */
    board_safe_state();
    soro_rx_init(&receiver);
    clock_and_uart_init();
    wdt_enable(WDTO_250MS);
    sei();
    soro_log(SORO_LOG_INFO, SORO_LOGCODE_BOOTED, "booted");   /* lost unless a host has the port open */
    for (;;) {
        uint32_t now = soro_millis();
        wdt_reset();
        drain_rx(now);
        if (rx_lost) {
            rx_lost = 0;
            count(&rx_errors.overflow);
        }
        while (last != now) {     /* one tick per millisecond: a loop held up catches up, none is skipped */
            last++;
            link_tick(last);
            board_tick(last);
        }
    }
}
