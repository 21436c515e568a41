/*
 * golden_c_check: holds firmware/soro_link.h to the golden vectors shared with soro_link/framing.py.
 *
 *   golden_c_check GOLDEN_FILE             check every vector; one line per failure, then "N vectors checked";
 *                                          exit 0 only if every check passed
 *   golden_c_check encode TYPE SEQ BODYHEX print the wire hex of one frame (BODYHEX "-" for an empty body)
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror -pedantic -I ../firmware golden_c_check.c
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soro_link.h"

#define LINE_MAX_CHARS 4096
#define HEX_MAX_BYTES 1024

static int failures;

static void fail(const char *where, const char *what, const char *detail)
{
    failures++;
    printf("FAIL %s: %s%s\n", where, what, detail ? detail : "");
}

static void to_hex(const uint8_t *data, size_t len, char *out, size_t out_size)
{
    size_t i;
    if (out_size == 0) {
        return;
    }
    out[0] = '\0';
    for (i = 0; i < len && 2 * i + 2 < out_size; i++) {
        sprintf(out + 2 * i, "%02x", data[i]);
    }
}

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Parses hex text ("-" is empty) into out; returns the byte count, or -1 if malformed or longer than cap. */
static long parse_hex(const char *text, uint8_t *out, size_t cap)
{
    size_t len = strlen(text);
    size_t i;
    if (strcmp(text, "-") == 0) {
        return 0;
    }
    if (len % 2 != 0 || len / 2 > cap) {
        return -1;
    }
    for (i = 0; i < len / 2; i++) {
        int hi = hex_nibble(text[2 * i]);
        int lo = hex_nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return -1;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

static int parse_uint(const char *text, unsigned long max, unsigned long *value)
{
    char *end;
    if (text[0] < '0' || text[0] > '9') {
        return 0;
    }
    errno = 0;
    *value = strtoul(text, &end, 10);
    return errno == 0 && *end == '\0' && *value <= max;
}

static const char *status_name(soro_status_t status)
{
    switch (status) {
    case SORO_PENDING: return "PENDING";
    case SORO_OK: return "OK";
    case SORO_CRC_ERROR: return "CRC_ERROR";
    case SORO_FORMAT_ERROR: return "FORMAT_ERROR";
    case SORO_OVERFLOW: return "OVERFLOW";
    }
    return "?";
}

/* Feeds data to rx; returns the last non-PENDING status (PENDING if none) and counts them in *reports. */
static soro_status_t feed(soro_rx_t *rx, const uint8_t *data, size_t len, soro_frame_t *frame, int *reports)
{
    soro_status_t last = SORO_PENDING;
    size_t i;
    *reports = 0;
    for (i = 0; i < len; i++) {
        soro_status_t status = soro_rx_push(rx, data[i], frame);
        if (status != SORO_PENDING) {
            last = status;
            (*reports)++;
        }
    }
    return last;
}

static int same_bytes(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0);
}

static void expect_bytes(const char *where, const char *what, const uint8_t *got, size_t got_len,
                         const uint8_t *want, size_t want_len)
{
    char detail[2 * (2 * HEX_MAX_BYTES + 1) + 32];
    size_t at;
    if (same_bytes(got, got_len, want, want_len)) {
        return;
    }
    strcpy(detail, " got ");
    at = strlen(detail);
    to_hex(got, got_len, detail + at, 2 * HEX_MAX_BYTES + 1);
    strcat(detail, " want ");
    at = strlen(detail);
    to_hex(want, want_len, detail + at, 2 * HEX_MAX_BYTES + 1);
    fail(where, what, detail);
}

/* Expects rx to decode wire (delimiter included) into exactly the given frame, reporting only on the last byte. */
static void expect_frame(const char *where, const char *what, soro_rx_t *rx, const uint8_t *wire, size_t wire_len,
                         unsigned version, unsigned type, unsigned seq, const uint8_t *body, size_t body_len)
{
    soro_frame_t frame;
    char detail[128];
    int reports;
    soro_status_t status;
    memset(&frame, 0, sizeof frame);
    status = feed(rx, wire, wire_len, &frame, &reports);
    if (status != SORO_OK || reports != 1) {
        sprintf(detail, ": receiver reported %s (%d reports), want one OK", status_name(status), reports);
        fail(where, what, detail);
        return;
    }
    if (frame.version != version || frame.type != type || frame.seq != seq) {
        sprintf(detail, ": decoded version/type/seq %u/%u/%u, want %u/%u/%u", (unsigned)frame.version,
                (unsigned)frame.type, (unsigned)frame.seq, version, type, seq);
        fail(where, what, detail);
    }
    expect_bytes(where, what, frame.body, frame.body_len, body, body_len);
}

static void check_cobs(const char *where, const uint8_t *raw, size_t raw_len, const uint8_t *enc, size_t enc_len)
{
    uint8_t out[HEX_MAX_BYTES];
    size_t out_len = soro_cobs_encode(raw, raw_len, out);
    expect_bytes(where, "cobs_encode", out, out_len, enc, enc_len);
    if (!soro_cobs_decode(enc, enc_len, out, &out_len)) {
        fail(where, "cobs_decode rejected a valid encoding", NULL);
        return;
    }
    expect_bytes(where, "cobs_decode", out, out_len, raw, raw_len);
    memcpy(out, enc, enc_len);
    if (!soro_cobs_decode(out, enc_len, out, &out_len)) {
        fail(where, "in-place cobs_decode rejected a valid encoding", NULL);
        return;
    }
    expect_bytes(where, "in-place cobs_decode", out, out_len, raw, raw_len);
}

static void check_cobs_rejects(const char *where, const uint8_t *enc, size_t enc_len)
{
    uint8_t out[HEX_MAX_BYTES];
    size_t out_len = 12345;
    if (soro_cobs_decode(enc, enc_len, out, &out_len)) {
        fail(where, "cobs_decode accepted malformed input", NULL);
    }
}

static void self_checks(void)
{
    static const uint8_t check_input[] = "123456789";
    static const uint8_t a_raw[] = {0x11, 0x22, 0x00, 0x33}, a_enc[] = {0x03, 0x11, 0x22, 0x02, 0x33};
    static const uint8_t b_raw[] = {0x00, 0x00}, b_enc[] = {0x01, 0x01, 0x01};
    static const uint8_t empty_enc[] = {0x01};
    static const uint8_t zero_inside[] = {0x03, 0x11, 0x00}, past_end[] = {0x04, 0x11, 0x22};
    static const uint8_t zero_code[] = {0x00}, past_end_later[] = {0x02, 0x11, 0x05, 0x22};
    uint8_t raw[600], enc[700];
    uint8_t body[SORO_LINK_MAX_BODY + 1];
    uint8_t wire[SORO_LINK_MAX_ENCODED];
    char detail[64];
    size_t i;
    uint16_t crc = soro_crc16_ccitt_false(check_input, 9);
    soro_rx_t rx;

    if (crc != 0x29B1) {
        sprintf(detail, " is 0x%04X, want 0x29B1", (unsigned)crc);
        fail("self-check", "CRC(\"123456789\")", detail);
    }
    check_cobs("self-check 11 22 00 33", a_raw, sizeof a_raw, a_enc, sizeof a_enc);
    check_cobs("self-check 00 00", b_raw, sizeof b_raw, b_enc, sizeof b_enc);
    check_cobs("self-check empty", NULL, 0, empty_enc, sizeof empty_enc);

    for (i = 0; i < 254; i++) {
        raw[i] = (uint8_t)(i + 1);
        enc[i + 1] = (uint8_t)(i + 1);
    }
    enc[0] = 0xFF;
    check_cobs("self-check 254 bytes 01..FE", raw, 254, enc, 255);
    raw[254] = 0x00;
    enc[255] = 0x01;
    enc[256] = 0x01;
    check_cobs("self-check 01..FE 00", raw, 255, enc, 257);
    raw[254] = 0x42;
    enc[255] = 0x02;
    enc[256] = 0x42;
    check_cobs("self-check 01..FE 42", raw, 255, enc, 257);
    for (i = 0; i < 508; i++) {
        raw[i] = 0x5A;
    }
    for (i = 0; i < 510; i++) {
        enc[i] = (i == 0 || i == 255) ? 0xFF : 0x5A;
    }
    check_cobs("self-check 508 x 5A", raw, 508, enc, 510);

    check_cobs_rejects("self-check COBS zero inside", zero_inside, sizeof zero_inside);
    check_cobs_rejects("self-check COBS code past end", past_end, sizeof past_end);
    check_cobs_rejects("self-check COBS zero code", zero_code, sizeof zero_code);
    check_cobs_rejects("self-check COBS later code past end", past_end_later, sizeof past_end_later);

    memset(body, 0xFF, sizeof body);
    if (soro_frame_encode(1, 2, body, SORO_LINK_MAX_BODY + 1, wire) != 0) {
        fail("self-check", "frame_encode accepted a 241-byte body", NULL);
    }
    if (soro_frame_encode(1, 2, body, SORO_LINK_MAX_BODY, wire) != SORO_LINK_MAX_ENCODED) {
        fail("self-check", "frame_encode of a 240-byte 0xFF body is not SORO_LINK_MAX_ENCODED bytes", NULL);
    }

    soro_rx_init(&rx);
    {
        soro_frame_t frame;
        int reports;
        soro_status_t status;
        static const uint8_t idle[] = {0x00, 0x00, 0x00};
        static const uint8_t too_short[] = {0x04, 0x01, 0x02, 0x03, 0x00};
        memset(raw, 0x77, 300);
        raw[300] = 0x00;
        status = feed(&rx, raw, 301, &frame, &reports);
        if (status != SORO_OVERFLOW || reports != 1) {
            sprintf(detail, " %s x%d, want OVERFLOW once", status_name(status), reports);
            fail("self-check", "300-byte run", detail);
        }
        status = feed(&rx, idle, sizeof idle, &frame, &reports);
        if (reports != 0) {
            sprintf(detail, " reported %s", status_name(status));
            fail("self-check", "idle delimiters", detail);
        }
        status = feed(&rx, too_short, sizeof too_short, &frame, &reports);
        if (status != SORO_FORMAT_ERROR || reports != 1) {
            sprintf(detail, " %s x%d, want FORMAT_ERROR once", status_name(status), reports);
            fail("self-check", "3-byte frame", detail);
        }
        memset(raw, 0x77, SORO_LINK_MAX_ENCODED);
        raw[0] = SORO_LINK_MAX_ENCODED;
        raw[SORO_LINK_MAX_ENCODED] = 0x00;
        status = feed(&rx, raw, SORO_LINK_MAX_ENCODED + 1, &frame, &reports);
        if (status != SORO_FORMAT_ERROR || reports != 1) {
            sprintf(detail, " %s x%d, want FORMAT_ERROR once", status_name(status), reports);
            fail("self-check", "248-byte run decoding to 247 bytes", detail);
        }
    }
}

/* Checks one golden line; line_no names it in failures. */
static void check_vector(int line_no, unsigned version, unsigned type, unsigned seq, const uint8_t *body,
                         size_t body_len, const uint8_t *wire, size_t wire_len)
{
    char where[32];
    char detail[128];
    uint8_t encoded[SORO_LINK_MAX_ENCODED];
    uint8_t corrupt[SORO_LINK_MAX_ENCODED];
    uint8_t garbage[7] = {0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37};
    soro_frame_t frame;
    soro_rx_t rx;
    size_t i;
    int failures_before;
    sprintf(where, "line %d", line_no);

    if (wire_len < 2 || wire_len > SORO_LINK_MAX_ENCODED || wire[wire_len - 1] != 0x00) {
        fail(where, "wire_hex is not a frame of 2..248 bytes ending in 00", NULL);
        return;
    }
    if (version == SORO_LINK_PROTOCOL_VERSION) {
        size_t n = soro_frame_encode((uint8_t)type, (uint16_t)seq, body, body_len, encoded);
        expect_bytes(where, "encode", encoded, n, wire, wire_len);
    }

    failures_before = failures;
    soro_rx_init(&rx);
    expect_frame(where, "decode", &rx, wire, wire_len, version, type, seq, body, body_len);
    if (failures > failures_before) {
        return; /* corruption checks need a frame that decodes */
    }

    memcpy(encoded, wire, wire_len);
    if (soro_frame_decode(encoded, wire_len - 1, &frame) != SORO_OK || frame.version != version ||
        frame.type != type || frame.seq != seq || !same_bytes(frame.body, frame.body_len, body, body_len)) {
        fail(where, "soro_frame_decode on the bytes between delimiters", NULL);
    }

    for (i = 0; i + 1 < wire_len; i++) {
        int reports;
        soro_status_t status;
        memcpy(corrupt, wire, wire_len);
        corrupt[i] ^= (corrupt[i] == 0xFF) ? 0x80 : 0xFF;
        status = feed(&rx, corrupt, wire_len, &frame, &reports);
        if ((status != SORO_CRC_ERROR && status != SORO_FORMAT_ERROR) || reports != 1) {
            sprintf(detail, ": flipping byte %lu gave %s (%d reports), want one CRC or format error",
                    (unsigned long)i, status_name(status), reports);
            fail(where, "corruption", detail);
        }
        sprintf(detail, "decode after flipping byte %lu", (unsigned long)i);
        expect_frame(where, detail, &rx, wire, wire_len, version, type, seq, body, body_len);
        if (failures > failures_before) {
            break; /* the first bad position says enough */
        }
    }

    {
        int reports;
        soro_status_t status = feed(&rx, garbage, sizeof garbage, &frame, &reports);
        if (reports != 0) {
            sprintf(detail, ": %s before any delimiter", status_name(status));
            fail(where, "garbage", detail);
        }
        status = feed(&rx, wire, wire_len, &frame, &reports);
        if (status == SORO_OK || reports != 1) {
            sprintf(detail, ": garbage + frame gave %s (%d reports), want one error", status_name(status), reports);
            fail(where, "resync", detail);
        }
        expect_frame(where, "decode after garbage", &rx, wire, wire_len, version, type, seq, body, body_len);
    }
}

static int run_golden(const char *path)
{
    static char line[LINE_MAX_CHARS];
    static uint8_t body[HEX_MAX_BYTES], wire[HEX_MAX_BYTES];
    FILE *file = fopen(path, "r");
    int line_no = 0;
    int vectors = 0;
    if (!file) {
        fprintf(stderr, "golden_c_check: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    self_checks();
    while (fgets(line, sizeof line, file)) {
        char where[32];
        char *fields[6];
        int count = 0;
        unsigned long version, type, seq;
        long body_len, wire_len;
        line_no++;
        sprintf(where, "line %d", line_no);
        if (!strchr(line, '\n') && !feof(file)) {
            fail(where, "longer than the line buffer", NULL);
            break;
        }
        if (line[0] == '#') {
            continue;
        }
        for (fields[count] = strtok(line, " \t\r\n"); fields[count] && count < 5;) {
            fields[++count] = strtok(NULL, " \t\r\n");
        }
        if (count == 0) {
            continue;
        }
        vectors++;
        if (count != 5 || fields[5]) {
            fail(where, "want 5 fields: version type seq body_hex wire_hex", NULL);
            continue;
        }
        body_len = parse_hex(fields[3], body, sizeof body);
        wire_len = parse_hex(fields[4], wire, sizeof wire);
        if (!parse_uint(fields[0], 255, &version) || !parse_uint(fields[1], 255, &type) ||
            !parse_uint(fields[2], 65535, &seq) || body_len < 0 || wire_len < 0) {
            fail(where, "unparsable fields", NULL);
            continue;
        }
        check_vector(line_no, (unsigned)version, (unsigned)type, (unsigned)seq, body, (size_t)body_len, wire,
                     (size_t)wire_len);
    }
    fclose(file);
    printf("%d vectors checked\n", vectors);
    return failures ? 1 : 0;
}

static int run_encode(const char *type_text, const char *seq_text, const char *body_text)
{
    uint8_t body[HEX_MAX_BYTES];
    uint8_t wire[SORO_LINK_MAX_ENCODED];
    char hex[2 * SORO_LINK_MAX_ENCODED + 1];
    unsigned long type, seq;
    long body_len = parse_hex(body_text, body, sizeof body);
    size_t n;
    if (!parse_uint(type_text, 255, &type) || !parse_uint(seq_text, 65535, &seq) || body_len < 0) {
        fprintf(stderr, "golden_c_check encode: want TYPE 0..255, SEQ 0..65535, BODYHEX (hex or -)\n");
        return 2;
    }
    n = soro_frame_encode((uint8_t)type, (uint16_t)seq, body, (size_t)body_len, wire);
    if (n == 0) {
        fprintf(stderr, "golden_c_check encode: body of %ld bytes exceeds %d\n", body_len, SORO_LINK_MAX_BODY);
        return 2;
    }
    to_hex(wire, n, hex, sizeof hex);
    printf("%s\n", hex);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2) {
        return run_golden(argv[1]);
    }
    if (argc == 5 && strcmp(argv[1], "encode") == 0) {
        return run_encode(argv[2], argv[3], argv[4]);
    }
    fprintf(stderr, "usage: %s GOLDEN_FILE | %s encode TYPE SEQ BODYHEX\n", argv[0], argv[0]);
    return 2;
}
