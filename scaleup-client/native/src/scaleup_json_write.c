/* scaleup_json_write.c -- writes JSON objects into a fixed buffer, escaping strings. */
#include "scaleup_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void jsonWriterInit(jsonWriter *w, char *buf, size_t cap) {
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->overflow = 0;
}

/* Appends n bytes, keeping one byte free for the terminating NUL. */
static void jsonAppend(jsonWriter *w, const char *s, size_t n) {
    if (w->overflow || w->cap - w->len <= n) {
        w->overflow = 1;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

void jsonWriteRaw(jsonWriter *w, const char *s) {
    jsonAppend(w, s, strlen(s));
}

/* The two-character escape of c, or 0 when c has none. */
static char jsonShortEscape(unsigned char c) {
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return 0;
    }
}

/* Writes s quoted. Control characters and DEL are escaped; other bytes (UTF-8) pass as they are. */
void jsonWriteString(jsonWriter *w, const char *s) {
    jsonAppend(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc = jsonShortEscape(*p);
        if (esc) {
            char two[2] = {'\\', esc};
            jsonAppend(w, two, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            char six[7];
            snprintf(six, sizeof(six), "\\u%04x", *p);
            jsonAppend(w, six, 6);
        } else {
            jsonAppend(w, (const char *)p, 1);
        }
    }
    jsonAppend(w, "\"", 1);
}

void jsonWriteInt(jsonWriter *w, int64_t v) {
    char num[24];
    int n = snprintf(num, sizeof(num), "%" PRId64, v);
    jsonAppend(w, num, (size_t)n);
}

/* NUL-terminates the buffer. Returns JSON_OK, or JSON_ERR if anything did not fit. */
int jsonWriterFinish(jsonWriter *w) {
    if (w->overflow) return JSON_ERR;
    w->buf[w->len] = '\0';
    return JSON_OK;
}
