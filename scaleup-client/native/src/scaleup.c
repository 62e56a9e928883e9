/* scaleup.c -- the libscaleup API: validate arguments, build the request line, parse the answer.
 *
 * A call is three steps, each in its own place: scaleupBuildRequest writes the JSON line,
 * scaleupExchange (scaleup_io.c) carries it to the agent and brings one line back, and
 * scaleupParseAnswer fills the caller's struct. No state outlives a call. */
#include "scaleup.h"

#include "scaleup_io.h"
#include "scaleup_json.h"

#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

/* Request line: op, client (64), memory_mb, reason (256 bytes, 6 per byte escaped), '\n'. */
#define SCALEUP_REQUEST_MAX 2048

/* Fields an answer must carry, as bits in parseState.seen. */
#define SEEN_STATUS 1
#define SEEN_CLIENT 2
#define SEEN_GRANTED 4
#define SEEN_FREE 8
#define SEEN_ELAPSED 16
#define SEEN_MESSAGE 32
#define SEEN_REQUIRED 63

static const char *const statusNames[] = {"granted", "partial", "denied", "error"};

const char *scaleup_status_name(scaleup_status_t status) {
    return (unsigned)status < 4 ? statusNames[status] : NULL;
}

const char *scaleup_strerror(int code) {
    switch (code) {
    case SCALEUP_OK: return "success";
    case SCALEUP_ENOAGENT: return "no scale-up agent listening on the socket";
    case SCALEUP_ETIMEOUT: return "the scale-up agent did not answer in time";
    case SCALEUP_EPROTO: return "malformed answer from the scale-up agent";
    case SCALEUP_ETOOBIG: return "answer from the scale-up agent too large";
    case SCALEUP_EINVAL: return "invalid argument";
    case SCALEUP_EIO: return "socket error talking to the scale-up agent";
    default: return "unknown error";
    }
}

/* 1..64 bytes of [A-Za-z0-9._-]. */
static int validClient(const char *client) {
    if (client == NULL) return 0;
    size_t len = strspn(client, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
    return len >= 1 && len <= SCALEUP_CLIENT_MAX && client[len] == '\0';
}

/* The socket path to use, or NULL when it is empty or too long for sun_path. */
static const char *resolvePath(const char *path) {
    if (path == NULL) {
        path = getenv(SCALEUP_SOCKET_ENV);
        if (path == NULL || path[0] == '\0') path = SCALEUP_DEFAULT_SOCKET;
    }
    size_t len = strlen(path);
    return len > 0 && len < sizeof(((struct sockaddr_un *)0)->sun_path) ? path : NULL;
}

/* Writes the request line into buf (SCALEUP_REQUEST_MAX bytes). reason is NULL for status and
 * release, which carry no memory_mb either. Returns the line's length or 0 if it did not fit. */
static size_t scaleupBuildRequest(char *buf, const char *op, const char *client, int64_t memory_mb,
                                  const char *reason) {
    jsonWriter w;
    jsonWriterInit(&w, buf, SCALEUP_REQUEST_MAX);
    jsonWriteRaw(&w, "{\"op\":");
    jsonWriteString(&w, op);
    jsonWriteRaw(&w, ",\"client\":");
    jsonWriteString(&w, client);
    if (reason != NULL) {
        jsonWriteRaw(&w, ",\"memory_mb\":");
        jsonWriteInt(&w, memory_mb);
        jsonWriteRaw(&w, ",\"reason\":");
        jsonWriteString(&w, reason);
    }
    jsonWriteRaw(&w, "}\n");
    return jsonWriterFinish(&w) == JSON_OK ? w.len : 0;
}

static int parseStatus(jsonReader *r, scaleup_response *out) {
    char name[16];
    size_t len;
    if (jsonReadString(r, name, sizeof(name), &len) != JSON_OK) return JSON_ERR;
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, statusNames[i]) == 0) {
            out->status = (scaleup_status_t)i;
            return JSON_OK;
        }
    }
    return JSON_ERR;
}

typedef struct parseState {
    scaleup_response *out;
    int seen;
} parseState;

/* Reads a string member into buf[cap], failing if it does not fit. */
static int parseText(jsonReader *r, char *buf, size_t cap) {
    size_t len;
    return jsonReadString(r, buf, cap, &len) == JSON_OK && len < cap ? JSON_OK : JSON_ERR;
}

/* Reads a count (megabytes, microseconds): a JSON integer that is not negative. */
static int parseCount(jsonReader *r, int64_t *out) {
    return jsonReadInt64(r, out) == JSON_OK && *out >= 0 ? JSON_OK : JSON_ERR;
}

/* jsonMemberFn: one member of the answer object. A known field given twice is an error, as the
 * Java client has it: which of the two to believe is not ours to guess. */
static int parseMember(jsonReader *r, const char *key, void *ctx) {
    parseState *st = ctx;
    scaleup_response *out = st->out;
    int bit = 0, rc;
    if (key == NULL) return jsonSkipValue(r);
    if (strcmp(key, "status") == 0) bit = SEEN_STATUS, rc = parseStatus(r, out);
    else if (strcmp(key, "client") == 0) bit = SEEN_CLIENT, rc = parseText(r, out->client, sizeof(out->client));
    else if (strcmp(key, "granted_mb") == 0) bit = SEEN_GRANTED, rc = parseCount(r, &out->granted_mb);
    else if (strcmp(key, "pool_free_mb") == 0) bit = SEEN_FREE, rc = parseCount(r, &out->pool_free_mb);
    else if (strcmp(key, "elapsed_us") == 0) bit = SEEN_ELAPSED, rc = parseCount(r, &out->elapsed_us);
    else if (strcmp(key, "message") == 0) bit = SEEN_MESSAGE, rc = parseText(r, out->message, sizeof(out->message));
    else return jsonSkipValue(r);
    if (st->seen & bit) return JSON_ERR;
    st->seen |= bit;
    return rc;
}

/* Fills *out from one answer line to a request of client. Every field is required; an answer naming
 * another client is malformed unless it is an error answer (which may not know who asked).
 * Returns SCALEUP_OK or SCALEUP_EPROTO. */
static int scaleupParseAnswer(const char *line, size_t len, const char *client, scaleup_response *out) {
    parseState st = {out, 0};
    jsonReader r = {line, line + len};
    memset(out, 0, sizeof(*out));
    if (jsonReadObject(&r, parseMember, &st) != JSON_OK || st.seen != SEEN_REQUIRED) return SCALEUP_EPROTO;
    if (out->status != SCALEUP_ERROR && strcmp(out->client, client) != 0) return SCALEUP_EPROTO;
    return SCALEUP_OK;
}

/* The common path of the three calls; reason is NULL for status and release. */
static int scaleupCall(const char *socket_path, const char *op, const char *client, int64_t memory_mb,
                       const char *reason, int timeout_ms, scaleup_response *out) {
    char req[SCALEUP_REQUEST_MAX], line[SCALEUP_ANSWER_MAX + 1];
    const char *path = resolvePath(socket_path);
    if (path == NULL || !validClient(client) || timeout_ms <= 0 || out == NULL) return SCALEUP_EINVAL;
    size_t reqlen = scaleupBuildRequest(req, op, client, memory_mb, reason);
    if (reqlen == 0) return SCALEUP_EINVAL;
    size_t linelen = 0;
    int rc = scaleupExchange(path, req, reqlen, timeout_ms, line, &linelen);
    return rc == SCALEUP_OK ? scaleupParseAnswer(line, linelen, client, out) : rc;
}

int scaleup_rescale(const char *socket_path, const char *client, int64_t memory_mb, const char *reason,
                    int timeout_ms, scaleup_response *out) {
    if (reason == NULL) reason = "";
    if (memory_mb < 0 || memory_mb > SCALEUP_MEMORY_MAX_MB || strlen(reason) > SCALEUP_REASON_MAX)
        return SCALEUP_EINVAL;
    return scaleupCall(socket_path, "rescale", client, memory_mb, reason, timeout_ms, out);
}

int scaleup_status(const char *socket_path, const char *client, int timeout_ms, scaleup_response *out) {
    return scaleupCall(socket_path, "status", client, 0, NULL, timeout_ms, out);
}

int scaleup_release(const char *socket_path, const char *client, int timeout_ms, scaleup_response *out) {
    return scaleupCall(socket_path, "release", client, 0, NULL, timeout_ms, out);
}
