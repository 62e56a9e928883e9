/* fuzz_answer.c -- libFuzzer target for libscaleup's two line parsers: answers and give-back requests
 * (docs/security.md, "Fuzzing"). Every input goes through both: a watch connection carries both kinds.
 *
 * The answer line comes from whatever listens on the agent's socket. Built with clang
 * -fsanitize=fuzzer,address,undefined (make fuzz), so any out-of-bounds access, overflow or undefined
 * behaviour aborts. Beyond that the target checks what scaleup.h promises the caller: the parser
 * says SCALEUP_OK or SCALEUP_EPROTO and nothing else; on SCALEUP_OK the status is one of the four,
 * the counts are not negative and both strings are NUL-terminated inside their arrays.
 *
 * The line is cut as scaleupExchange cuts it: at the first '\n', at most SCALEUP_ANSWER_MAX bytes
 * (it may hold NUL bytes: nothing on the way filters them). The parser is static in scaleup.c, so
 * that file is included here rather than linked. */
#include "../src/scaleup.c"

#include <stdio.h>

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_answer: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nl = memchr(data, '\n', size);
    size_t len = nl != NULL ? (size_t)(nl - data) : size;
    if (len > SCALEUP_ANSWER_MAX) return 0; /* scaleupExchange answers SCALEUP_ETOOBIG before parsing */
    /* A heap copy of exactly the line, so AddressSanitizer sees any read past its end. */
    char *line = malloc(len > 0 ? len : 1);
    check(line != NULL, "out of memory");
    memcpy(line, data, len);
    scaleup_response out;
    int rc = scaleupParseAnswer(line, len, "edge-1", &out);
    check(rc == SCALEUP_OK || rc == SCALEUP_EPROTO, "a result other than OK or EPROTO");
    if (rc == SCALEUP_OK) {
        check((unsigned)out.status < 4, "a status outside the four");
        check(out.granted_mb >= 0 && out.pool_free_mb >= 0 && out.elapsed_us >= 0, "a negative count");
        check(memchr(out.client, '\0', sizeof(out.client)) != NULL, "client not NUL-terminated");
        check(memchr(out.message, '\0', sizeof(out.message)) != NULL, "message not NUL-terminated");
        check(out.status == SCALEUP_ERROR || strcmp(out.client, "edge-1") == 0, "an answer for another client");
    }
    scaleup_give_back gb;
    rc = scaleupParseGiveBack(line, len, "edge-1", &gb);
    check(rc == SCALEUP_OK || rc == SCALEUP_EPROTO, "a give-back result other than OK or EPROTO");
    if (rc == SCALEUP_OK) {
        check(gb.memory_mb >= 0 && gb.memory_mb <= SCALEUP_MEMORY_MAX_MB, "a give-back size out of range");
        check(gb.granted_mb >= 0 && gb.granted_mb <= SCALEUP_MEMORY_MAX_MB, "a grant out of range");
        check(gb.deadline_ms >= 0, "a negative deadline");
        check(memchr(gb.reason, '\0', sizeof(gb.reason)) != NULL, "reason not NUL-terminated");
        check(strcmp(gb.client, "edge-1") == 0, "a give-back request for another client");
    }
    free(line);
    return 0;
}
