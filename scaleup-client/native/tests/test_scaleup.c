/* test_scaleup.c -- libscaleup against the scripted fake agent: requests, answers, failures, threads. */
#include "fake_agent.h"
#include "scaleup.h"
#include "test.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

TEST_GLOBALS;

#define TIMEOUT_MS 5000


/* Starts an agent that answers with line (which must end in '\n' to be a complete answer). */
static void startAnswering(fakeAgent *a, const char *line) {
    CHECK(fakeAgentStart(a, FAKE_ANSWER) == 0);
    fakeAgentScript(a, line, strlen(line));
}

/* One rescale against an agent scripted with line; returns the code. */
static int rescaleAgainst(const char *line, scaleup_response *r) {
    fakeAgent a;
    startAnswering(&a, line);
    int rc = scaleup_rescale(a.path, "c", 512, "test", TIMEOUT_MS, r);
    fakeAgentStop(&a);
    return rc;
}

static void rescaleSendsEscapedRequestAndParsesAnswer(void) {
    fakeAgent a;
    scaleup_response r;
    char req[8192];
    startAnswering(&a, "{\"status\":\"granted\",\"client\":\"store-1\",\"granted_mb\":512,\"pool_free_mb\":1536,"
                       "\"elapsed_us\":870,\"message\":\"l1\\nq\\\"b\\\\ \\u00e9 \\ud83d\\ude00 \\/\"}\n");
    CHECK_EQ_INT(SCALEUP_OK, scaleup_rescale(a.path, "store-1", 512, "grow \"now\"\\ok\n\t\x01\x7f \xc3\xa9",
                                             TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"rescale\",\"client\":\"store-1\",\"memory_mb\":512,"
                 "\"reason\":\"grow \\\"now\\\"\\\\ok\\n\\t\\u0001\\u007f \xc3\xa9\"}\n", req);
    CHECK_EQ_INT(SCALEUP_GRANTED, r.status);
    CHECK_EQ_STR("store-1", r.client);
    CHECK_EQ_INT(512, r.granted_mb);
    CHECK_EQ_INT(1536, r.pool_free_mb);
    CHECK_EQ_INT(870, r.elapsed_us);
    CHECK_EQ_STR("l1\nq\"b\\ \xc3\xa9 \xf0\x9f\x98\x80 /", r.message);
    fakeAgentStop(&a);
}

static void statusAndReleaseSendTheirRequests(void) {
    fakeAgent a;
    scaleup_response r;
    char req[8192];
    CHECK(fakeAgentStart(&a, FAKE_ECHO) == 0); /* answers for whichever client asks */
    CHECK_EQ_INT(SCALEUP_OK, scaleup_status(a.path, "a.b_C-9", TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"status\",\"client\":\"a.b_C-9\"}\n", req);
    CHECK_EQ_STR("a.b_C-9", r.client);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_release(a.path, "a.b_C-9", TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"release\",\"client\":\"a.b_C-9\"}\n", req);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_rescale(a.path, "x", 0, NULL, TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"rescale\",\"client\":\"x\",\"memory_mb\":0,\"reason\":\"\"}\n", req);
    fakeAgentStop(&a);
}

static void everyStatusIsReported(void) {
    static const char *names[] = {"granted", "partial", "denied", "error"};
    for (int i = 0; i < 4; i++) {
        char line[256];
        scaleup_response r;
        snprintf(line, sizeof(line), "{\"status\":\"%s\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,"
                 "\"elapsed_us\":3,\"message\":\"m%d\"}\n", names[i], i);
        CHECK_EQ_INT(SCALEUP_OK, rescaleAgainst(line, &r));
        CHECK_EQ_INT(i, r.status);
        CHECK_EQ_STR(names[i], scaleup_status_name(r.status));
        CHECK(r.message[0] == 'm' && r.message[1] == '0' + i);
    }
}

static void fieldOrderWhitespaceAndUnknownFieldsDoNotMatter(void) {
    scaleup_response r;
    CHECK_EQ_INT(SCALEUP_OK, rescaleAgainst(
        " { \"extra\" : {\"a\":[1,2.5e3,{\"b\":null}],\"c\":\"}\"}, \"elapsed_us\":7 ,\"message\":\"\","
        "\"pool_free_mb\":-0,\"flag\":true,\"f\":false,\"n\":null,\"x\":-1.25E-2,"
        "\"a_very_long_unknown_key_that_is_longer_than_any_known_one\":1,"
        "\"client\":\"c\",\"granted_mb\":9223372036854775807,\"status\":\"partial\"}\t\r\n", &r));
    CHECK_EQ_INT(SCALEUP_PARTIAL, r.status);
    CHECK_EQ_STR("c", r.client);
    CHECK_EQ_INT(INT64_MAX, r.granted_mb);
    CHECK_EQ_INT(0, r.pool_free_mb);
    CHECK_EQ_INT(7, r.elapsed_us);
    CHECK_EQ_STR("", r.message);
    CHECK_EQ_INT(SCALEUP_OK, rescaleAgainst(
        "{\"status\":\"error\",\"client\":\"\",\"granted_mb\":0,\"pool_free_mb\":0,\"elapsed_us\":0,"
        "\"message\":\"unknown op\"}\n", &r));
    CHECK_EQ_STR("unknown op", r.message); /* an error answer may not know which client asked */
    CHECK_EQ_INT(SCALEUP_ERROR, r.status);
}

static void malformedAnswersAreEPROTO(void) {
    static const char *lines[] = {
        "not json\n", "\n", "[]\n", "\"granted\"\n", "{}\n",
        "{\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2}\n",
        "{\"status\":\"maybe\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":1,\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":7,\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":\"1\",\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1.5,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1e3,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":null,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":01,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":9223372036854775808,\"pool_free_mb\":2,"
        "\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":5}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"\\ud800\"}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"\\u0000\"}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"\\x\"}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"raw\ttab\"}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3} x\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"deep\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n",
        "{\"status\":\"granted\",\"client\":\"0123456789012345678901234567890123456789012345678901234567890123X\","
        "\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        /* Every field is required, once, counts are not negative, and the answer is for the caller. */
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":-1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"\"}\n",
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":-3,"
        "\"message\":\"\"}\n",
        "{\"status\":\"granted\",\"status\":\"denied\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,"
        "\"elapsed_us\":3,\"message\":\"\"}\n",
        "{\"status\":\"granted\",\"client\":\"someone-else\",\"granted_mb\":1,\"pool_free_mb\":2,"
        "\"elapsed_us\":3,\"message\":\"\"}\n",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        scaleup_response r;
        int rc = rescaleAgainst(lines[i], &r);
        if (rc != SCALEUP_EPROTO) fprintf(stderr, "  answer %zu: %s", i, lines[i]);
        CHECK_EQ_INT(SCALEUP_EPROTO, rc);
    }
}

/* The agent closes before the '\n': the exchange failed, whatever arrived (as the Java client has it). */
static void anAnswerCutShortIsEIO(void) {
    static const char *lines[] = {
        "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,\"elapsed_us\":3,"
        "\"message\":\"\"}",
        "{\"status\":\"gra",
        "",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        scaleup_response r;
        CHECK_EQ_INT(SCALEUP_EIO, rescaleAgainst(lines[i], &r));
    }
}

/* An answer line of exactly n bytes before its '\n', padded inside the message. */
static char *answerOfLength(size_t n) {
    const char *head = "{\"status\":\"granted\",\"client\":\"c\",\"granted_mb\":1,\"pool_free_mb\":2,"
                       "\"elapsed_us\":3,\"message\":\"";
    char *line = malloc(n + 2);
    size_t h = strlen(head);
    memcpy(line, head, h);
    memset(line + h, 'm', n - h - 2);
    memcpy(line + n - 2, "\"}\n", 4);
    return line;
}

static void answerSizeLimitIs4096Bytes(void) {
    scaleup_response r;
    char *fits = answerOfLength(SCALEUP_ANSWER_MAX), *over = answerOfLength(SCALEUP_ANSWER_MAX + 1);
    CHECK_EQ_INT(SCALEUP_OK, rescaleAgainst(fits, &r));
    CHECK(strlen(r.message) > SCALEUP_ANSWER_MAX - 100 && r.message[0] == 'm');
    CHECK_EQ_INT(SCALEUP_ETOOBIG, rescaleAgainst(over, &r));
    char *huge = malloc(100000);
    memset(huge, 'x', 100000 - 1);
    huge[100000 - 1] = '\0';
    CHECK_EQ_INT(SCALEUP_ETOOBIG, rescaleAgainst(huge, &r));
    free(fits);
    free(over);
    free(huge);
}

static void silentAgentTimesOut(void) {
    fakeAgent a;
    scaleup_response r;
    CHECK(fakeAgentStart(&a, FAKE_SILENT) == 0);
    CHECK_EQ_INT(SCALEUP_ETIMEOUT, scaleup_status(a.path, "c", 200, &r));
    fakeAgentStop(&a);
}

static void hangupIsAnErrorNotASignal(void) {
    fakeAgent a;
    scaleup_response r;
    CHECK(fakeAgentStart(&a, FAKE_HANGUP) == 0);
    for (int i = 0; i < 20; i++) {
        int rc = scaleup_rescale(a.path, "c", 1, "r", TIMEOUT_MS, &r);
        CHECK_EQ_INT(SCALEUP_EIO, rc);
    }
    fakeAgentStop(&a);
}

static void noAgentIsENOAGENT(void) {
    char path[108];
    scaleup_response r;
    fakeAgentUnusedPath(path, sizeof(path));
    CHECK_EQ_INT(SCALEUP_ENOAGENT, scaleup_status(path, "c", TIMEOUT_MS, &r));
    CHECK_EQ_INT(SCALEUP_ENOAGENT, scaleup_status("/nonexistent-dir/x.sock", "c", TIMEOUT_MS, &r));
    /* Bound but not listening: the socket file exists, nobody accepts. */
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
    CHECK_EQ_INT(SCALEUP_ENOAGENT, scaleup_release(path, "c", TIMEOUT_MS, &r));
    close(fd);
    unlink(path);
}

static void invalidArgumentsAreEINVAL(void) {
    scaleup_response r;
    char longName[66], longReason[258], longPath[200];
    memset(longName, 'a', 65), longName[65] = '\0';
    memset(longReason, 'r', 257), longReason[257] = '\0';
    memset(longPath, 'p', 199), longPath[0] = '/', longPath[199] = '\0';
    const char *p = "/nonexistent-dir/x.sock";
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, NULL, 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, longName, 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "a b", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "a\"b", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_release(p, "\xc3\xa9", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_rescale(p, "c", -1, "", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_rescale(p, "c", SCALEUP_MEMORY_MAX_MB + 1, "", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_rescale(p, "c", 1, longReason, 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "c", 0, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "c", -5, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(p, "c", 100, NULL));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status(longPath, "c", 100, &r));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_status("", "c", 100, &r));
    /* The limits themselves are valid: the call gets as far as looking for the agent. */
    longName[64] = '\0';
    longReason[256] = '\0';
    CHECK_EQ_INT(SCALEUP_ENOAGENT, scaleup_rescale(p, longName, SCALEUP_MEMORY_MAX_MB, longReason, 100, &r));
}

static void maximalRequestIsSentWhole(void) {
    fakeAgent a;
    scaleup_response r;
    char reason[257], req[8192];
    memset(reason, '\x01', 256), reason[256] = '\0';
    CHECK(fakeAgentStart(&a, FAKE_ECHO) == 0);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_rescale(a.path, "c", SCALEUP_MEMORY_MAX_MB, reason, TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_INT(strlen("{\"op\":\"rescale\",\"client\":\"c\",\"memory_mb\":1099511627776,\"reason\":\"\"}\n")
                 + 256 * 6, strlen(req));
    fakeAgentStop(&a);
}

static void environmentNamesTheSocket(void) {
    fakeAgent a;
    scaleup_response r;
    CHECK(fakeAgentStart(&a, FAKE_ECHO) == 0);
    setenv(SCALEUP_SOCKET_ENV, a.path, 1);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_status(NULL, "c", TIMEOUT_MS, &r));
    CHECK_EQ_INT(1, a.served);
    unsetenv(SCALEUP_SOCKET_ENV);
    fakeAgentStop(&a);
}

#define THREADS 8
#define CALLS 200

typedef struct callerArgs {
    const char *path;
    int id;
    int correct;
} callerArgs;

static void *caller(void *arg) {
    callerArgs *c = arg;
    char name[32];
    snprintf(name, sizeof(name), "caller-%d", c->id);
    for (int i = 0; i < CALLS; i++) {
        scaleup_response r;
        int64_t mb = (int64_t)c->id * 100000 + i;
        if (scaleup_rescale(c->path, name, mb, "concurrent", TIMEOUT_MS * 6, &r) == SCALEUP_OK &&
            r.status == SCALEUP_GRANTED && r.granted_mb == mb && strcmp(r.client, name) == 0)
            c->correct++;
    }
    return NULL;
}

static void concurrentCallersEachGetTheirAnswer(void) {
    fakeAgent a;
    pthread_t threads[THREADS];
    callerArgs args[THREADS];
    CHECK(fakeAgentStart(&a, FAKE_ECHO) == 0);
    for (int t = 0; t < THREADS; t++) {
        args[t] = (callerArgs){a.path, t, 0};
        CHECK(pthread_create(&threads[t], NULL, caller, &args[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        CHECK_EQ_INT(CALLS, args[t].correct);
    }
    CHECK_EQ_INT(THREADS * CALLS, a.served);
    fakeAgentStop(&a);
}

#define WATCH_ANSWER "{\"status\":\"granted\",\"client\":\"store-1\",\"granted_mb\":800,\"pool_free_mb\":0," \
                     "\"elapsed_us\":5,\"message\":\"watching\"}\n"

static void watchReadsTheAnswerThenEachGiveBackRequest(void) {
    fakeAgent a;
    scaleup_response r;
    scaleup_give_back g;
    char req[8192];
    int fd;
    startAnswering(&a, WATCH_ANSWER
                   "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":512,\"granted_mb\":800,"
                   "\"deadline_ms\":10000,\"reason\":\"the pool shrank \\u00e9\"}\n"
                   "{\"deadline_ms\":0,\"reason\":\"\",\"extra\":[1,{}],\"granted_mb\":512,\"memory_mb\":0,"
                   "\"client\":\"store-1\",\"op\":\"give_back\"}\n");
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_open(a.path, "store-1", TIMEOUT_MS, &r, &fd));
    CHECK(fd >= 0);
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"watch\",\"client\":\"store-1\"}\n", req);
    CHECK_EQ_INT(SCALEUP_GRANTED, r.status);
    CHECK_EQ_INT(800, r.granted_mb);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_next(fd, "store-1", TIMEOUT_MS, &g));
    CHECK_EQ_STR("store-1", g.client);
    CHECK_EQ_INT(512, g.memory_mb);
    CHECK_EQ_INT(800, g.granted_mb);
    CHECK_EQ_INT(10000, g.deadline_ms);
    CHECK_EQ_STR("the pool shrank \xc3\xa9", g.reason);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_next(fd, "store-1", TIMEOUT_MS, &g));
    CHECK_EQ_INT(0, g.memory_mb);
    CHECK_EQ_INT(0, g.deadline_ms);
    CHECK_EQ_INT(SCALEUP_EIO, scaleup_watch_next(fd, "store-1", TIMEOUT_MS, &g)); /* the agent closed */
    scaleup_watch_close(fd);
    fakeAgentStop(&a);
}

static void aBadGiveBackLineIsEPROTOAndTheNextOneStillReads(void) {
    fakeAgent a;
    scaleup_response r;
    scaleup_give_back g;
    int fd;
    static const char *const bad[] = {
        "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":1,\"granted_mb\":2,\"reason\":\"\"}",
        "{\"op\":\"take\",\"client\":\"store-1\",\"memory_mb\":1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
        "{\"op\":\"give_back\",\"client\":\"other\",\"memory_mb\":1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
        "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":1,\"memory_mb\":1,\"granted_mb\":2,"
        "\"deadline_ms\":1,\"reason\":\"\"}",
        "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":-1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
        "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":1099511627777,\"granted_mb\":2,\"deadline_ms\":1,"
        "\"reason\":\"\"}",
        "{\"status\":\"granted\",\"client\":\"store-1\",\"granted_mb\":1,\"pool_free_mb\":0,\"elapsed_us\":0,\"message\":\"\"}",
    };
    char script[4096] = WATCH_ANSWER;
    size_t n = sizeof(bad) / sizeof(bad[0]);
    for (size_t i = 0; i < n; i++) {
        strcat(script, bad[i]);
        strcat(script, "\n");
    }
    strcat(script, "{\"op\":\"give_back\",\"client\":\"store-1\",\"memory_mb\":7,\"granted_mb\":9,\"deadline_ms\":3,"
                   "\"reason\":\"ok\"}\n");
    startAnswering(&a, script);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_open(a.path, "store-1", TIMEOUT_MS, &r, &fd));
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(SCALEUP_EPROTO, scaleup_watch_next(fd, "store-1", TIMEOUT_MS, &g));
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_next(fd, "store-1", TIMEOUT_MS, &g));
    CHECK_EQ_INT(7, g.memory_mb);
    CHECK_EQ_STR("ok", g.reason);
    scaleup_watch_close(fd);
    fakeAgentStop(&a);
}

static void aRefusedWatchLeavesNothingOpen(void) {
    fakeAgent a;
    scaleup_response r;
    int fd = 42;
    startAnswering(&a, "{\"status\":\"error\",\"client\":\"store-1\",\"granted_mb\":64,\"pool_free_mb\":0,"
                       "\"elapsed_us\":1,\"message\":\"watch of client store-1 refused\"}\n");
    CHECK_EQ_INT(SCALEUP_OK, scaleup_watch_open(a.path, "store-1", TIMEOUT_MS, &r, &fd));
    CHECK_EQ_INT(SCALEUP_ERROR, r.status);
    CHECK_EQ_INT(-1, fd);
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_watch_next(-1, "store-1", TIMEOUT_MS, NULL));
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_watch_open(a.path, "bad name", TIMEOUT_MS, &r, &fd));
    fakeAgentStop(&a);
}

static void poolSendsItsRequest(void) {
    fakeAgent a;
    scaleup_response r;
    char req[8192];
    CHECK(fakeAgentStart(&a, FAKE_ECHO) == 0);
    CHECK_EQ_INT(SCALEUP_OK, scaleup_pool(a.path, "admin", 2048, TIMEOUT_MS, &r));
    fakeAgentLastRequest(&a, req, sizeof(req));
    CHECK_EQ_STR("{\"op\":\"pool\",\"client\":\"admin\",\"memory_mb\":2048}\n", req);
    CHECK_EQ_INT(SCALEUP_EINVAL, scaleup_pool(a.path, "admin", -1, TIMEOUT_MS, &r));
    fakeAgentStop(&a);
}

static void strerrorNamesEveryCode(void) {
    for (int code = SCALEUP_EIO; code <= SCALEUP_OK; code++) CHECK(strcmp(scaleup_strerror(code), "unknown error") != 0);
    CHECK_EQ_STR("unknown error", scaleup_strerror(-99));
    CHECK(scaleup_status_name((scaleup_status_t)9) == NULL);
}

int main(void) {
    RUN(rescaleSendsEscapedRequestAndParsesAnswer);
    RUN(statusAndReleaseSendTheirRequests);
    RUN(everyStatusIsReported);
    RUN(fieldOrderWhitespaceAndUnknownFieldsDoNotMatter);
    RUN(malformedAnswersAreEPROTO);
    RUN(anAnswerCutShortIsEIO);
    RUN(answerSizeLimitIs4096Bytes);
    RUN(silentAgentTimesOut);
    RUN(hangupIsAnErrorNotASignal);
    RUN(noAgentIsENOAGENT);
    RUN(invalidArgumentsAreEINVAL);
    RUN(maximalRequestIsSentWhole);
    RUN(environmentNamesTheSocket);
    RUN(concurrentCallersEachGetTheirAnswer);
    RUN(watchReadsTheAnswerThenEachGiveBackRequest);
    RUN(aBadGiveBackLineIsEPROTOAndTheNextOneStillReads);
    RUN(aRefusedWatchLeavesNothingOpen);
    RUN(poolSendsItsRequest);
    RUN(strerrorNamesEveryCode);
    return TEST_SUMMARY("test_scaleup");
}
