/*
 * soro_link.h - firmware side of the soro_link serial framing (header-only C99, no malloc).
 *
 * A frame on the wire is cobs(raw) followed by one 0x00 delimiter, where
 *
 *   raw = version u8 | type u8 | seq u16 LE | body (0..240 bytes) | crc u16 LE
 *
 * and crc is CRC-16/CCITT-FALSE over header and body. The host side is soro_link/framing.py; both are held to
 * the same golden vectors (test/golden_frames.txt, checked by test/golden_c_check.c).
 *
 * RAM use: encoding needs no buffer besides the caller's output (SORO_LINK_MAX_ENCODED bytes); decoding works in
 * place; a soro_rx_t is SORO_LINK_MAX_ENCODED + 2 bytes. Works with 16-bit int (AVR) and 32-bit int (ESP32), and
 * compiles as C++ for Arduino sketches.
 */
#ifndef SORO_LINK_H
#define SORO_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SORO_LINK_PROTOCOL_VERSION 1
#define SORO_LINK_HEADER_SIZE 4   /* version, type, seq (LE) */
#define SORO_LINK_CRC_SIZE 2      /* CRC-16/CCITT-FALSE, LE */
#define SORO_LINK_MAX_BODY 240
/* Largest raw frame (header + body + crc): 246 bytes. */
#define SORO_LINK_MAX_RAW (SORO_LINK_HEADER_SIZE + SORO_LINK_MAX_BODY + SORO_LINK_CRC_SIZE)
/* Upper bound on the COBS encoding of n bytes (no delimiter). */
#define SORO_COBS_MAX_ENCODED(n) ((n) + (n) / 254 + 1)
/* Largest frame on the wire, delimiter included: 248 bytes. */
#define SORO_LINK_MAX_ENCODED (SORO_COBS_MAX_ENCODED(SORO_LINK_MAX_RAW) + 1)

/* Result of soro_frame_decode and soro_rx_push. */
typedef enum {
    SORO_PENDING = 0,      /* soro_rx_push only: no complete frame yet */
    SORO_OK = 1,           /* a frame was decoded into the soro_frame_t */
    SORO_CRC_ERROR = 2,    /* well-formed, but the CRC does not match */
    SORO_FORMAT_ERROR = 3, /* bad COBS, shorter than header + CRC, or longer than SORO_LINK_MAX_RAW */
    SORO_OVERFLOW = 4      /* soro_rx_push only: more than SORO_LINK_MAX_ENCODED bytes without a delimiter */
} soro_status_t;

/* One decoded frame. body points into the buffer it was decoded from (no copy); body_len <= SORO_LINK_MAX_BODY. */
typedef struct {
    uint8_t version;
    uint8_t type;
    uint16_t seq;
    const uint8_t *body;
    uint8_t body_len;
} soro_frame_t;

/* ---- CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final xor; check("123456789") = 0x29B1 */

/* Feeds one byte into a running CRC (start from 0xFFFF). Bitwise: no 512-byte table. */
static inline uint16_t soro_crc16_update(uint16_t crc, uint8_t byte)
{
    uint8_t bit;
    crc = (uint16_t)(crc ^ (uint16_t)((uint16_t)byte << 8));
    for (bit = 0; bit < 8; bit++) {
        crc = (uint16_t)((crc & 0x8000u) ? (uint16_t)(crc << 1) ^ 0x1021u : (uint16_t)(crc << 1));
    }
    return crc;
}

/* CRC-16/CCITT-FALSE of len bytes. */
static inline uint16_t soro_crc16_ccitt_false(const uint8_t *data, size_t len)
{
    uint16_t crc = 0xFFFFu;
    size_t i;
    for (i = 0; i < len; i++) {
        crc = soro_crc16_update(crc, data[i]);
    }
    return crc;
}

/* ---- COBS (Cheshire & Baker), canonical: a 254-byte block that ends the data gets no closing code byte */

/* Incremental COBS encoder: bytes go in one at a time, so a frame is encoded without assembling it first. */
typedef struct {
    uint8_t *out;
    size_t code_at;     /* index of the pending code byte */
    size_t n;           /* bytes written, pending code byte included */
    uint8_t code;       /* 1 + bytes in the current block */
    uint8_t after_full; /* the last closed block was a full 0xFF block */
} soro_cobs_encoder_t;

static inline void soro_cobs_encoder_begin(soro_cobs_encoder_t *enc, uint8_t *out)
{
    enc->out = out;
    enc->code_at = 0;
    enc->n = 1;
    enc->code = 1;
    enc->after_full = 0;
}

static inline void soro_cobs_encoder_put(soro_cobs_encoder_t *enc, uint8_t byte)
{
    if (byte != 0) {
        enc->out[enc->n++] = byte;
        enc->code++;
        if (enc->code != 0xFF) {
            return;
        }
    }
    enc->out[enc->code_at] = enc->code;
    enc->after_full = (uint8_t)(enc->code == 0xFF);
    enc->code_at = enc->n++;
    enc->code = 1;
}

/* Closes the encoding; returns its length in bytes (at least 1). */
static inline size_t soro_cobs_encoder_end(soro_cobs_encoder_t *enc)
{
    if (enc->code == 1 && enc->after_full) {
        return enc->n - 1;
    }
    enc->out[enc->code_at] = enc->code;
    return enc->n;
}

/*
 * COBS-encodes len bytes into out (no delimiter appended). out needs SORO_COBS_MAX_ENCODED(len) bytes and must not
 * overlap in. Returns the encoded length, always >= 1 (the empty input encodes to 01); the output has no 0x00.
 */
static inline size_t soro_cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    soro_cobs_encoder_t enc;
    size_t i;
    soro_cobs_encoder_begin(&enc, out);
    for (i = 0; i < len; i++) {
        soro_cobs_encoder_put(&enc, in[i]);
    }
    return soro_cobs_encoder_end(&enc);
}

/*
 * COBS-decodes len bytes (no delimiter) into out, which needs len bytes and may be the same buffer as in (decoding
 * in place is safe). Returns 1 and sets *out_len on success; an empty result (*out_len == 0, e.g. from "01") is
 * valid. Returns 0 on malformed input (a 0x00 byte, or a code byte running past the end), leaving *out_len unset
 * and out partly written.
 */
static inline int soro_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t *out_len)
{
    size_t i = 0;
    size_t n = 0;
    while (i < len) {
        uint8_t code = in[i];
        size_t end;
        if (code == 0 || code > len - i) {
            return 0;
        }
        end = i + code;
        for (i++; i < end; i++) {
            if (in[i] == 0) {
                return 0;
            }
            out[n++] = in[i];
        }
        if (code != 0xFF && end < len) {
            out[n++] = 0;
        }
    }
    *out_len = n;
    return 1;
}

/* ---- Frames */

/*
 * Writes the wire bytes of one frame (version SORO_LINK_PROTOCOL_VERSION) into out, which needs
 * SORO_LINK_MAX_ENCODED (248) bytes. body may be NULL when body_len is 0. Returns the number of bytes written,
 * the trailing 0x00 delimiter included, or 0 (nothing written) if body_len > SORO_LINK_MAX_BODY.
 */
static inline size_t soro_frame_encode(uint8_t type, uint16_t seq, const uint8_t *body, size_t body_len,
                                       uint8_t *out)
{
    uint8_t header[SORO_LINK_HEADER_SIZE];
    soro_cobs_encoder_t enc;
    uint16_t crc;
    size_t i;
    size_t n;
    if (body_len > SORO_LINK_MAX_BODY) {
        return 0;
    }
    header[0] = SORO_LINK_PROTOCOL_VERSION;
    header[1] = type;
    header[2] = (uint8_t)(seq & 0xFFu);
    header[3] = (uint8_t)(seq >> 8);
    crc = soro_crc16_ccitt_false(header, sizeof header);
    for (i = 0; i < body_len; i++) {
        crc = soro_crc16_update(crc, body[i]);
    }
    soro_cobs_encoder_begin(&enc, out);
    for (i = 0; i < sizeof header; i++) {
        soro_cobs_encoder_put(&enc, header[i]);
    }
    for (i = 0; i < body_len; i++) {
        soro_cobs_encoder_put(&enc, body[i]);
    }
    soro_cobs_encoder_put(&enc, (uint8_t)(crc & 0xFFu));
    soro_cobs_encoder_put(&enc, (uint8_t)(crc >> 8));
    n = soro_cobs_encoder_end(&enc);
    out[n] = 0x00;
    return n + 1;
}

/*
 * Decodes the len bytes found between two delimiters (delimiter excluded), in place: buf is overwritten with the
 * raw frame and frame->body points into it. Returns SORO_OK (frame filled), SORO_CRC_ERROR or SORO_FORMAT_ERROR
 * (frame untouched). Any version is accepted and reported; checking it is the caller's business.
 */
static inline soro_status_t soro_frame_decode(uint8_t *buf, size_t len, soro_frame_t *frame)
{
    size_t raw_len;
    size_t data_len;
    uint16_t crc;
    if (!soro_cobs_decode(buf, len, buf, &raw_len)) {
        return SORO_FORMAT_ERROR;
    }
    if (raw_len < SORO_LINK_HEADER_SIZE + SORO_LINK_CRC_SIZE || raw_len > SORO_LINK_MAX_RAW) {
        return SORO_FORMAT_ERROR;
    }
    data_len = raw_len - SORO_LINK_CRC_SIZE;
    crc = (uint16_t)(buf[data_len] | (uint16_t)((uint16_t)buf[data_len + 1] << 8));
    if (crc != soro_crc16_ccitt_false(buf, data_len)) {
        return SORO_CRC_ERROR;
    }
    frame->version = buf[0];
    frame->type = buf[1];
    frame->seq = (uint16_t)(buf[2] | (uint16_t)((uint16_t)buf[3] << 8));
    frame->body = buf + SORO_LINK_HEADER_SIZE;
    frame->body_len = (uint8_t)(data_len - SORO_LINK_HEADER_SIZE);
    return SORO_OK;
}

/* ---- Stream receiver */

/* Byte-at-a-time receiver state (SORO_LINK_MAX_ENCODED + 2 bytes). Zero it, or call soro_rx_init, before use. */
typedef struct {
    uint8_t buf[SORO_LINK_MAX_ENCODED];
    uint8_t len;      /* bytes held since the last delimiter (<= 248) */
    uint8_t overflow; /* the current run outgrew buf and is being discarded */
} soro_rx_t;

static inline void soro_rx_init(soro_rx_t *rx)
{
    memset(rx, 0, sizeof *rx);
}

/*
 * Feeds one received byte; call it from the serial ISR or loop. Returns SORO_PENDING until a 0x00 delimiter ends a
 * non-empty run of bytes, then exactly one of SORO_OK (frame filled), SORO_CRC_ERROR, SORO_FORMAT_ERROR or
 * SORO_OVERFLOW (the run was longer than SORO_LINK_MAX_ENCODED and was dropped as it arrived). Idle delimiters
 * (empty runs) return SORO_PENDING. Whatever the result, the receiver is ready for the next frame: garbage costs at
 * most the frame it touches. frame is written only on SORO_OK, and frame->body points into rx: it stays valid until
 * the next soro_rx_push on rx.
 */
static inline soro_status_t soro_rx_push(soro_rx_t *rx, uint8_t byte, soro_frame_t *frame)
{
    size_t len;
    if (byte != 0) {
        if (rx->overflow) {
            return SORO_PENDING;
        }
        if (rx->len >= sizeof rx->buf) {
            rx->overflow = 1;
            rx->len = 0;
            return SORO_PENDING;
        }
        rx->buf[rx->len++] = byte;
        return SORO_PENDING;
    }
    if (rx->overflow) {
        rx->overflow = 0;
        return SORO_OVERFLOW;
    }
    len = rx->len;
    rx->len = 0;
    if (len == 0) {
        return SORO_PENDING;
    }
    return soro_frame_decode(rx->buf, len, frame);
}

#ifdef __cplusplus
}
#endif

#endif /* SORO_LINK_H */
