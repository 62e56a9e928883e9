/* scaleup.c -- the libscaleup API: validate arguments, build the request line, parse the answer.
 *
 * A call is three steps, each in its own place: scaleupBuildRequest writes the JSON line,
 * scaleupExchange (scaleup_io.c) carries it to the agent and brings one line back, and
 * scaleupParseAnswer fills the caller's struct. No state outlives a call, except the open
 * connection of a watch (scaleup_watch_open), which the caller holds and closes; on it,
 * scaleupParseGiveBack reads the agent's give-back requests. */
#include "scaleup.h"

#include "scaleup_io.h"
#include "scaleup_json.h"

#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

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

/* Writes the request line into buf (SCALEUP_REQUEST_MAX bytes). reason is NULL for status, release,
 * watch and pool, which carry no reason; memory_mb goes with rescale and pool. Returns the line's
 * length or 0 if it did not fit. */
static size_t scaleupBuildRequest(char *buf, const char *op, const char *client, int64_t memory_mb,
                                  const char *reason) {
    jsonWriter w;
    jsonWriterInit(&w, buf, SCALEUP_REQUEST_MAX);
    jsonWriteRaw(&w, "{\"op\":");
    jsonWriteString(&w, op);
    jsonWriteRaw(&w, ",\"client\":");
    jsonWriteString(&w, client);
    if (reason != NULL || strcmp(op, "pool") == 0) {
        jsonWriteRaw(&w, ",\"memory_mb\":");
        jsonWriteInt(&w, memory_mb);
    }
    if (reason != NULL) {
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

/* Fields a give-back request must carry, as bits in giveBackState.seen. */
#define GB_OP 1
#define GB_CLIENT 2
#define GB_MEMORY 4
#define GB_GRANTED 8
#define GB_DEADLINE 16
#define GB_REASON 32
#define GB_REQUIRED 63

typedef struct giveBackState {
    scaleup_give_back *out;
    int seen;
} giveBackState;

/* The op member of a give-back request: the string "give_back" and nothing else. */
static int parseGiveBackOp(jsonReader *r) {
    char op[16];
    return parseText(r, op, sizeof(op)) == JSON_OK && strcmp(op, "give_back") == 0 ? JSON_OK : JSON_ERR;
}

/* A memory size: a count no larger than the protocol's 2^40 MiB. */
static int parseMemory(jsonReader *r, int64_t *out) {
    return parseCount(r, out) == JSON_OK && *out <= SCALEUP_MEMORY_MAX_MB ? JSON_OK : JSON_ERR;
}

/* jsonMemberFn: one member of a give-back request; a known field twice is an error, as in answers. */
static int parseGiveBackMember(jsonReader *r, const char *key, void *ctx) {
    giveBackState *st = ctx;
    scaleup_give_back *out = st->out;
    int bit = 0, rc;
    if (key == NULL) return jsonSkipValue(r);
    if (strcmp(key, "op") == 0) bit = GB_OP, rc = parseGiveBackOp(r);
    else if (strcmp(key, "client") == 0) bit = GB_CLIENT, rc = parseText(r, out->client, sizeof(out->client));
    else if (strcmp(key, "memory_mb") == 0) bit = GB_MEMORY, rc = parseMemory(r, &out->memory_mb);
    else if (strcmp(key, "granted_mb") == 0) bit = GB_GRANTED, rc = parseMemory(r, &out->granted_mb);
    else if (strcmp(key, "deadline_ms") == 0) bit = GB_DEADLINE, rc = parseCount(r, &out->deadline_ms);
    else if (strcmp(key, "reason") == 0) bit = GB_REASON, rc = parseText(r, out->reason, sizeof(out->reason));
    else return jsonSkipValue(r);
    if (st->seen & bit) return JSON_ERR;
    st->seen |= bit;
    return rc;
}

/* Fills *out from one give-back line for client: every field required, the client must be the
 * caller's. Returns SCALEUP_OK or SCALEUP_EPROTO. */
static int scaleupParseGiveBack(const char *line, size_t len, const char *client, scaleup_give_back *out) {
    giveBackState st = {out, 0};
    jsonReader r = {line, line + len};
    memset(out, 0, sizeof(*out));
    if (jsonReadObject(&r, parseGiveBackMember, &st) != JSON_OK || st.seen != GB_REQUIRED) return SCALEUP_EPROTO;
    return strcmp(out->client, client) == 0 ? SCALEUP_OK : SCALEUP_EPROTO;
}

/* The common path of the calls; reason is NULL for status, release and pool. */
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

int scaleup_pool(const char *socket_path, const char *client, int64_t pool_mb, int timeout_ms,
                 scaleup_response *out) {
    if (pool_mb < 0 || pool_mb > SCALEUP_MEMORY_MAX_MB) return SCALEUP_EINVAL;
    return scaleupCall(socket_path, "pool", client, pool_mb, NULL, timeout_ms, out);
}

int scaleup_watch_open(const char *socket_path, const char *client, int timeout_ms, scaleup_response *out,
                       int *fd_out) {
    char req[SCALEUP_REQUEST_MAX], line[SCALEUP_ANSWER_MAX + 1];
    const char *path = resolvePath(socket_path);
    if (fd_out == NULL) return SCALEUP_EINVAL;
    *fd_out = -1;
    if (path == NULL || !validClient(client) || timeout_ms <= 0 || out == NULL) return SCALEUP_EINVAL;
    size_t reqlen = scaleupBuildRequest(req, "watch", client, 0, NULL);
    if (reqlen == 0) return SCALEUP_EINVAL;
    int fd;
    int rc = scaleupConnectAndSend(path, req, reqlen, timeout_ms, &fd);
    if (rc != SCALEUP_OK) return rc;
    size_t linelen = 0;
    rc = scaleupReadLineExact(fd, timeout_ms, line, &linelen);
    if (rc == SCALEUP_OK) rc = scaleupParseAnswer(line, linelen, client, out);
    if (rc == SCALEUP_OK && out->status != SCALEUP_ERROR) {
        *fd_out = fd;
    } else {
        close(fd);
    }
    return rc;
}

int scaleup_watch_next(int fd, const char *client, int timeout_ms, scaleup_give_back *out) {
    char line[SCALEUP_ANSWER_MAX + 1];
    if (fd < 0 || !validClient(client) || timeout_ms <= 0 || out == NULL) return SCALEUP_EINVAL;
    size_t linelen = 0;
    int rc = scaleupReadLineExact(fd, timeout_ms, line, &linelen);
    return rc == SCALEUP_OK ? scaleupParseGiveBack(line, linelen, client, out) : rc;
}

void scaleup_watch_close(int fd) {
    if (fd >= 0) close(fd);
}

int scaleup_status(const char *socket_path, const char *client, int timeout_ms, scaleup_response *out) {
    return scaleupCall(socket_path, "status", client, 0, NULL, timeout_ms, out);
}

int scaleup_release(const char *socket_path, const char *client, int timeout_ms, scaleup_response *out) {
    return scaleupCall(socket_path, "release", client, 0, NULL, timeout_ms, out);
}
