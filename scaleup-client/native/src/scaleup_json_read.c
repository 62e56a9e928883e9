/* scaleup_json_read.c -- reads one JSON object: strings and integers decoded, other values skipped.
 *
 * Strict RFC 8259 where it matters to us: no raw control characters in strings, \u escapes
 * must form valid code points (surrogate pairs joined, lone surrogates rejected), integers
 * must fit int64 and have no fraction or exponent. \u0000 is rejected so that decoded
 * strings stay C strings. Nesting of skipped values is limited to JSON_MAX_DEPTH. */
#include "scaleup_json.h"

#include <string.h>

#define JSON_MAX_DEPTH 32
#define JSON_KEY_MAX 32

static void jsonSkipWs(jsonReader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n'))
        r->p++;
}

/* Skips whitespace, then consumes c if it is next. */
static int jsonConsume(jsonReader *r, char c) {
    jsonSkipWs(r);
    if (r->p >= r->end || *r->p != c) return JSON_ERR;
    r->p++;
    return JSON_OK;
}

static int jsonHexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the four hex digits after "\u". Returns the value or -1. */
static long jsonReadHex4(jsonReader *r) {
    if (r->end - r->p < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = jsonHexDigit(r->p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    r->p += 4;
    return v;
}

/* Reads the code point of a \u escape (the cursor after "\u"), joining a surrogate pair. */
static long jsonReadCodePoint(jsonReader *r) {
    long hi = jsonReadHex4(r);
    if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF)) return -1;
    if (hi < 0xD800 || hi > 0xDBFF) return hi;
    if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') return -1;
    r->p += 2;
    long lo = jsonReadHex4(r);
    if (lo < 0xDC00 || lo > 0xDFFF) return -1;
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* Encodes cp as UTF-8 into out (4 bytes room). Returns the byte count. */
static size_t jsonUtf8(long cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the escape after a backslash into out (4 bytes room). Returns the byte count or 0. */
static size_t jsonReadEscape(jsonReader *r, char *out) {
    if (r->p >= r->end) return 0;
    char c = *r->p++;
    switch (c) {
    case '"': case '\\': case '/': out[0] = c; return 1;
    case 'b': out[0] = '\b'; return 1;
    case 'f': out[0] = '\f'; return 1;
    case 'n': out[0] = '\n'; return 1;
    case 'r': out[0] = '\r'; return 1;
    case 't': out[0] = '\t'; return 1;
    case 'u': {
        long cp = jsonReadCodePoint(r);
        return cp > 0 ? jsonUtf8(cp, out) : 0;
    }
    default: return 0;
    }
}

/* Reads a string value. Decodes up to cap-1 bytes into buf (NUL-terminated; buf may be NULL
 * with cap 0 to skip) and sets *len, if not NULL, to the full decoded length, so a caller
 * sees truncation as *len >= cap. */
int jsonReadString(jsonReader *r, char *buf, size_t cap, size_t *len) {
    if (jsonConsume(r, '"') != JSON_OK) return JSON_ERR;
    size_t n = 0;
    while (r->p < r->end && *r->p != '"') {
        char dec[4];
        size_t k;
        unsigned char c = (unsigned char)*r->p++;
        if (c < 0x20) return JSON_ERR;
        if (c == '\\') {
            if ((k = jsonReadEscape(r, dec)) == 0) return JSON_ERR;
        } else {
            dec[0] = (char)c;
            k = 1;
        }
        for (size_t i = 0; i < k; i++, n++)
            if (n + 1 < cap) buf[n] = dec[i];
    }
    if (r->p >= r->end) return JSON_ERR;
    r->p++;
    if (cap > 0) buf[n < cap ? n : cap - 1] = '\0';
    if (len) *len = n;
    return JSON_OK;
}

/* Reads an integer that fits int64_t; a fraction or exponent makes it not an integer. */
int jsonReadInt64(jsonReader *r, int64_t *v) {
    jsonSkipWs(r);
    int neg = r->p < r->end && *r->p == '-';
    if (neg) r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') return JSON_ERR;
    if (*r->p == '0' && r->end - r->p > 1 && r->p[1] >= '0' && r->p[1] <= '9') return JSON_ERR;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, acc = 0;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        unsigned d = (unsigned)(*r->p++ - '0');
        if (acc > (limit - d) / 10) return JSON_ERR;
        acc = acc * 10 + d;
    }
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E')) return JSON_ERR;
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return JSON_OK;
}

/* Skips a number leniently (digits, sign, dot, exponent characters): only unknown fields get here. */
static int jsonSkipNumber(jsonReader *r) {
    const char *start = r->p;
    if (r->p < r->end && *r->p == '-') r->p++;
    const char *digits = r->p;
    while (r->p < r->end && strchr("0123456789.eE+-", *r->p)) r->p++;
    return r->p > digits && r->p > start ? JSON_OK : JSON_ERR;
}

static int jsonSkipLiteral(jsonReader *r, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0) return JSON_ERR;
    r->p += n;
    return JSON_OK;
}

static int jsonSkipDepth(jsonReader *r, int depth);

/* Skips the rest of an array or object after its opening bracket. */
static int jsonSkipContainer(jsonReader *r, char close, int depth) {
    jsonSkipWs(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return JSON_OK;
    }
    for (;;) {
        if (close == '}' && (jsonReadString(r, NULL, 0, NULL) != JSON_OK || jsonConsume(r, ':') != JSON_OK))
            return JSON_ERR;
        if (jsonSkipDepth(r, depth + 1) != JSON_OK) return JSON_ERR;
        if (jsonConsume(r, ',') == JSON_OK) continue;
        return jsonConsume(r, close);
    }
}

static int jsonSkipDepth(jsonReader *r, int depth) {
    if (depth > JSON_MAX_DEPTH) return JSON_ERR;
    jsonSkipWs(r);
    if (r->p >= r->end) return JSON_ERR;
    switch (*r->p) {
    case '"': return jsonReadString(r, NULL, 0, NULL);
    case '{': r->p++; return jsonSkipContainer(r, '}', depth);
    case '[': r->p++; return jsonSkipContainer(r, ']', depth);
    case 't': return jsonSkipLiteral(r, "true");
    case 'f': return jsonSkipLiteral(r, "false");
    case 'n': return jsonSkipLiteral(r, "null");
    default: return jsonSkipNumber(r);
    }
}

int jsonSkipValue(jsonReader *r) {
    return jsonSkipDepth(r, 0);
}

/* Reads one member "key": value, handing the value to fn. */
static int jsonReadMember(jsonReader *r, jsonMemberFn *fn, void *ctx) {
    char key[JSON_KEY_MAX];
    size_t len;
    if (jsonReadString(r, key, sizeof(key), &len) != JSON_OK) return JSON_ERR;
    if (jsonConsume(r, ':') != JSON_OK) return JSON_ERR;
    jsonSkipWs(r);
    return fn(r, len < sizeof(key) ? key : NULL, ctx);
}

/* Reads a whole object, calling fn per member; only whitespace may follow it. */
int jsonReadObject(jsonReader *r, jsonMemberFn *fn, void *ctx) {
    if (jsonConsume(r, '{') != JSON_OK) return JSON_ERR;
    if (jsonConsume(r, '}') != JSON_OK) {
        do {
            if (jsonReadMember(r, fn, ctx) != JSON_OK) return JSON_ERR;
        } while (jsonConsume(r, ',') == JSON_OK);
        if (jsonConsume(r, '}') != JSON_OK) return JSON_ERR;
    }
    jsonSkipWs(r);
    return r->p == r->end ? JSON_OK : JSON_ERR;
}
