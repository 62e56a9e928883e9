/* scaleup_cli.c -- the `scaleup` command: one libscaleup call from the shell, its answer on stdout.
 *
 *   scaleup rescale CLIENT MB [--reason TEXT] [--socket PATH] [--timeout MS]
 *   scaleup status CLIENT [--socket PATH] [--timeout MS]
 *   scaleup release CLIENT [--socket PATH] [--timeout MS]
 *   scaleup pool CLIENT MB [--socket PATH] [--timeout MS]
 *   scaleup watch CLIENT [--count N] [--ack] [--socket PATH] [--timeout MS]
 *
 * Exit codes (also in usage()): 0 granted, 1 partial, 2 denied, 3 error answer; 10 + n for
 * library error -n (11 no agent, 12 timeout, 13 malformed answer, 14 answer too large,
 * 15 invalid argument, 16 socket error); 64 usage error. */
#include "scaleup.h"
#include "scaleup_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 64
#define DEFAULT_TIMEOUT_MS 5000

typedef struct cliArgs {
    const char *op;
    const char *client;
    int64_t memory_mb;
    const char *reason;
    const char *socket;
    int timeout_ms;
    int64_t count; /* watch: give-back requests to wait for (0: until the connection ends) */
    int ack;       /* watch: acknowledge each with a rescale to its memory_mb */
} cliArgs;

static void usage(FILE *f) {
    fprintf(f,
            "Usage: scaleup rescale CLIENT MB [--reason TEXT] [--socket PATH] [--timeout MS]\n"
            "       scaleup status CLIENT [--socket PATH] [--timeout MS]\n"
            "       scaleup release CLIENT [--socket PATH] [--timeout MS]\n"
            "       scaleup pool CLIENT MB [--socket PATH] [--timeout MS]\n"
            "       scaleup watch CLIENT [--count N] [--ack] [--socket PATH] [--timeout MS]\n"
            "       scaleup --help\n"
            "\n"
            "Asks the scale-up agent for a total of MB MiB for CLIENT (rescale), shows the\n"
            "client's grant (status) or gives it back (release), and prints the answer.\n"
            "pool sets the agent's pool to MB MiB (root or the agent's user only; CLIENT names\n"
            "the caller in the agent's log). watch prints the agent's give-back requests for\n"
            "CLIENT, one line each, until N have come (--count) or the agent closes; --ack answers\n"
            "each with a rescale to what it asks. For watch the timeout is per request awaited.\n"
            "The socket is PATH, else $" SCALEUP_SOCKET_ENV ", else " SCALEUP_DEFAULT_SOCKET ".\n"
            "The timeout (default %d ms) covers connect, write and read.\n"
            "\n"
            "Exit codes: 0 granted, 1 partial, 2 denied, 3 error answer;\n"
            "  11 no agent, 12 timeout, 13 malformed answer, 14 answer too large,\n"
            "  15 invalid argument, 16 socket error; 64 usage error.\n",
            DEFAULT_TIMEOUT_MS);
}

/* Parses a decimal integer within [min, max]; returns 0 on success. */
static int parseNumber(const char *s, int64_t min, int64_t max, int64_t *v) {
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || n < min || n > max) return -1;
    *v = n;
    return 0;
}

/* Reads one --option VALUE pair at argv[*i]; returns 0, or -1 for an unknown or bad option. */
static int parseOption(cliArgs *a, int argc, char **argv, int *i) {
    const char *opt = argv[*i];
    if (*i + 1 >= argc && strcmp(opt, "--ack") != 0) return -1;
    const char *val = argv[++*i];
    int64_t n;
    if (strcmp(opt, "--ack") == 0 && strcmp(a->op, "watch") == 0) {
        a->ack = 1;
        --*i; /* a flag: no value */
        return 0;
    }
    if (strcmp(opt, "--reason") == 0 && strcmp(a->op, "rescale") == 0) a->reason = val;
    else if (strcmp(opt, "--count") == 0 && strcmp(a->op, "watch") == 0 && parseNumber(val, 1, INT32_MAX, &n) == 0)
        a->count = n;
    else if (strcmp(opt, "--socket") == 0) a->socket = val;
    else if (strcmp(opt, "--timeout") == 0 && parseNumber(val, 1, INT32_MAX, &n) == 0) a->timeout_ms = (int)n;
    else return -1;
    return 0;
}

/* Fills *a from the command line; returns 0, or -1 after printing what is wrong. */
static int parseArgs(cliArgs *a, int argc, char **argv) {
    int positional = 0, need;
    if (argc < 2) return -1;
    a->op = argv[1];
    if (strcmp(a->op, "rescale") == 0 || strcmp(a->op, "pool") == 0) need = 2;
    else if (strcmp(a->op, "status") == 0 || strcmp(a->op, "release") == 0 || strcmp(a->op, "watch") == 0) need = 1;
    else return -1;
    for (int i = 2; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0) {
            if (parseOption(a, argc, argv, &i) != 0) return -1;
        } else if (positional == 0) {
            a->client = argv[i], positional++;
        } else if (positional == 1 && need == 2 && parseNumber(argv[i], 0, INT64_MAX, &a->memory_mb) == 0) {
            positional++;
        } else {
            return -1;
        }
    }
    return positional == need ? 0 : -1;
}

/* Prints the answer as one line of key=value pairs; the message last, as a JSON string. */
static void printAnswer(const scaleup_response *r) {
    static char quoted[6 * SCALEUP_ANSWER_MAX + 3];
    jsonWriter w;
    jsonWriterInit(&w, quoted, sizeof(quoted));
    jsonWriteString(&w, r->message);
    jsonWriterFinish(&w);
    printf("%s client=%s granted_mb=%" PRId64 " pool_free_mb=%" PRId64 " elapsed_us=%" PRId64 " message=%s\n",
           scaleup_status_name(r->status), r->client, r->granted_mb, r->pool_free_mb, r->elapsed_us, quoted);
}

/* Prints a give-back request as one line of key=value pairs; the reason last, as a JSON string. */
static void printGiveBack(const scaleup_give_back *g) {
    static char quoted[6 * SCALEUP_REASON_MAX + 3];
    jsonWriter w;
    jsonWriterInit(&w, quoted, sizeof(quoted));
    jsonWriteString(&w, g->reason);
    jsonWriterFinish(&w);
    printf("give_back client=%s memory_mb=%" PRId64 " granted_mb=%" PRId64 " deadline_ms=%" PRId64 " reason=%s\n",
           g->client, g->memory_mb, g->granted_mb, g->deadline_ms, quoted);
    fflush(stdout);
}

/* scaleup watch: the watch answer, then each give-back request (acknowledged with --ack) until
 * --count have come. Returns the library code of what ended it, or SCALEUP_OK. */
static int watch(const cliArgs *a, scaleup_response *r) {
    int fd;
    int rc = scaleup_watch_open(a->socket, a->client, a->timeout_ms, r, &fd);
    if (rc != SCALEUP_OK || fd < 0) return rc;
    printAnswer(r);
    fflush(stdout);
    for (int64_t seen = 0; a->count == 0 || seen < a->count; seen++) {
        scaleup_give_back g;
        rc = scaleup_watch_next(fd, a->client, a->timeout_ms, &g);
        if (rc != SCALEUP_OK) break;
        printGiveBack(&g);
        if (a->ack) {
            rc = scaleup_rescale(a->socket, a->client, g.memory_mb, "give back", a->timeout_ms, r);
            if (rc != SCALEUP_OK) break;
            printAnswer(r);
            fflush(stdout);
        }
    }
    scaleup_watch_close(fd);
    return rc;
}

static int call(const cliArgs *a, scaleup_response *r) {
    if (strcmp(a->op, "pool") == 0) return scaleup_pool(a->socket, a->client, a->memory_mb, a->timeout_ms, r);
    if (strcmp(a->op, "rescale") == 0)
        return scaleup_rescale(a->socket, a->client, a->memory_mb, a->reason, a->timeout_ms, r);
    if (strcmp(a->op, "status") == 0) return scaleup_status(a->socket, a->client, a->timeout_ms, r);
    return scaleup_release(a->socket, a->client, a->timeout_ms, r);
}

int main(int argc, char **argv) {
    cliArgs a = {NULL, NULL, 0, "", NULL, DEFAULT_TIMEOUT_MS, 0, 0};
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (parseArgs(&a, argc, argv) != 0) {
        usage(stderr);
        return EXIT_USAGE;
    }
    scaleup_response *r = malloc(sizeof(*r));
    if (r == NULL) return 16;
    int rc;
    if (strcmp(a.op, "watch") == 0) {
        rc = watch(&a, r);
        if (rc == SCALEUP_OK && r->status == SCALEUP_ERROR) {
            printAnswer(r); /* the agent refused the watch */
            rc = 3;
        } else if (rc != SCALEUP_OK) {
            fprintf(stderr, "scaleup: %s (%d)\n", scaleup_strerror(rc), rc);
            rc = 10 - rc;
        }
        free(r);
        return rc;
    }
    rc = call(&a, r);
    if (rc == SCALEUP_OK) {
        printAnswer(r);
        rc = (int)r->status;
    } else {
        fprintf(stderr, "scaleup: %s (%d)\n", scaleup_strerror(rc), rc);
        rc = 10 - rc;
    }
    free(r);
    return rc;
}
