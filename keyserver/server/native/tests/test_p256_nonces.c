/* test_p256_nonces.c -- the nonce pool shares no allocator with the threads that take from it.
 *
 * Why: the filler runs under SCHED_IDLE. Whatever lock it holds while the kernel starves it (both cores busy with
 * requests), a request thread that needs the same lock waits until the filler next gets a core, which can be a
 * second. The lock that did this was the filler's malloc arena: it allocated every pair's BIGNUMs and the takers
 * freed them. So this test counts allocations by thread, through malloc/calloc/realloc/free defined here (the
 * program's definitions win over libc's, for libcrypto's calls too) and passed on to glibc's own:
 *   - a take allocates and frees nothing;
 *   - the filler, once warm, makes batch after batch with fewer allocations than batches (OpenSSL may allocate when
 *     its random generator reseeds, every few thousand batches; it allocated hundreds per batch before);
 *   - the pool hands out every pair once: no r twice among all taken.
 * Plain assertions, exit status 0 on success. */
#include "../src/p256_nonces.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

/* Allocator calls while `counting` is set: the calling thread's own, and the filler's, readable from here. */
static _Thread_local long thread_allocator_calls;
static atomic_int counting;
static pthread_t filler;
static atomic_int filler_known;
static atomic_long filler_calls;

static void count_call(void) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
    thread_allocator_calls++;
    if (atomic_load_explicit(&filler_known, memory_order_acquire) && pthread_equal(pthread_self(), filler)) {
        atomic_fetch_add_explicit(&filler_calls, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count_call();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_call();
    return __libc_calloc(count, size);
}

void *realloc(void *p, size_t size) {
    count_call();
    return __libc_realloc(p, size);
}

void free(void *p) {
    if (p != NULL) count_call();
    __libc_free(p);
}

#define TARGET 2048
#define TAKES 4096 /* twice the target: the filler refills while the test takes */
#define WAIT_SECONDS 120

static int failures;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static void *run_filler(void *unused) {
    (void)unused;
    nonce_pool_fill();
    return NULL;
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Waits until the pool holds at least `wanted` pairs; 0 on timeout. */
static int await_pooled(long long wanted) {
    for (int i = 0; i < WAIT_SECONDS * 100; i++) {
        nonce_stats stats;
        nonce_pool_stats(&stats);
        if (stats.pooled >= wanted) return 1;
        pause_ms(10);
    }
    return 0;
}

static int compare_r(const void *a, const void *b) {
    return memcmp(a, b, NONCE_SCALAR_BYTES);
}

int main(void) {
    static unsigned char rs[TAKES][NONCE_SCALAR_BYTES];
    nonce_pool_open(TARGET);
    check(pthread_create(&filler, NULL, run_filler, NULL) == 0, "the filler thread starts");
    atomic_store_explicit(&filler_known, 1, memory_order_release);
    check(await_pooled(TARGET), "the pool fills to its target");

    /* Warm: from here on count, until the pool is back at its target (the filler's own clean-up at the end frees
     * its maker, which is not what is measured). */
    nonce_stats before;
    nonce_pool_stats(&before);
    atomic_store(&counting, 1);
    int taken = 0;
    long taker_calls = 0;
    for (int i = 0; i < TAKES && failures == 0; i++) {
        nonce_pair pair;
        long calls_before = thread_allocator_calls;
        int got = nonce_pool_take(&pair);
        taker_calls += thread_allocator_calls - calls_before;
        if (!got) { /* the filler is behind: let it catch up */
            check(await_pooled(NONCE_BATCH_MAX), "the pool refills while taken from");
            i--;
            continue;
        }
        memcpy(rs[taken++], pair.r, NONCE_SCALAR_BYTES);
        OPENSSL_cleanse(&pair, sizeof(pair));
    }
    check(await_pooled(TARGET), "the pool refills to its target");
    nonce_stats after;
    nonce_pool_stats(&after);
    atomic_store(&counting, 0);
    long calls = atomic_load(&filler_calls);
    nonce_pool_close();
    pthread_join(filler, NULL);

    long long batches = (after.made - before.made) / NONCE_BATCH_MAX;
    printf("p256 nonce pool: %d pairs taken with %ld allocator calls; the filler made %lld batches with %ld\n",
           taken, taker_calls, batches, calls);
    check(taken == TAKES, "every take found a pair");
    check(taker_calls == 0, "a take allocates and frees nothing");
    check(batches >= TAKES / NONCE_BATCH_MAX, "the filler made a batch per 64 pairs taken");
    check(calls < batches, "the warm filler allocates less than once per batch");
    qsort(rs, (size_t)taken, NONCE_SCALAR_BYTES, compare_r);
    for (int i = 1; i < taken; i++) check(memcmp(rs[i - 1], rs[i], NONCE_SCALAR_BYTES) != 0, "no r is handed out twice");
    if (failures) {
        fprintf(stderr, "test_p256_nonces: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_p256_nonces: ok\n");
    return 0;
}
