/* test_p256_nonces.c -- the nonce pool shares no allocator and no lock with the threads that take from it.
 *
 * Why: the filler runs under SCHED_IDLE. Whatever lock it holds while the kernel starves it (both cores busy with
 * requests), a request thread that needs the same lock waits until the filler next gets a core, which can be a
 * second. Two locks did this: the filler's malloc arena (it allocated every pair's BIGNUMs and the takers freed
 * them) and OpenSSL 3.0's process-wide RAND lock (RAND_priv_bytes write-locks it on every call; a crypto worker's
 * ECDSA_do_sign does too). So this test counts, by thread, allocator calls and lock calls, through malloc, calloc,
 * realloc, free and the pthread lock functions defined here (the program's definitions win over libc's, for
 * libcrypto's calls too) and passed on to libc's own:
 *   - a take allocates, frees and locks nothing;
 *   - the filler, once warm, makes batch after batch with no allocation and no lock;
 *   - the pool hands out every pair once: no r twice among all taken.
 * Plain assertions, exit status 0 on success. */
#include "../src/p256_nonces.h"

#include <dlfcn.h>
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

/* Allocator and lock calls while `counting` is set: the calling thread's own, and the filler's, readable from
 * here. */
typedef struct calls {
    long allocator;
    long locks;
} calls;

static _Thread_local calls thread_calls;
static atomic_int counting;
static pthread_t filler;
static atomic_int filler_known;
static atomic_long filler_allocator_calls, filler_lock_calls;

static int on_filler(void) {
    return atomic_load_explicit(&filler_known, memory_order_acquire) && pthread_equal(pthread_self(), filler);
}

static void count_call(void) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
    thread_calls.allocator++;
    if (on_filler()) atomic_fetch_add_explicit(&filler_allocator_calls, 1, memory_order_relaxed);
}

static void count_lock(void) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
    thread_calls.locks++;
    if (on_filler()) atomic_fetch_add_explicit(&filler_lock_calls, 1, memory_order_relaxed);
}

/* The next definition of a lock function after this program's: libc's. */
static void *next_definition(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) abort();
    return f;
}

int pthread_mutex_lock(pthread_mutex_t *m) {
    static int (*next)(pthread_mutex_t *);
    if (next == NULL) next = (int (*)(pthread_mutex_t *))next_definition("pthread_mutex_lock");
    count_lock();
    return next(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    static int (*next)(pthread_rwlock_t *);
    if (next == NULL) next = (int (*)(pthread_rwlock_t *))next_definition("pthread_rwlock_rdlock");
    count_lock();
    return next(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    static int (*next)(pthread_rwlock_t *);
    if (next == NULL) next = (int (*)(pthread_rwlock_t *))next_definition("pthread_rwlock_wrlock");
    count_lock();
    return next(l);
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
    calls taker = {0, 0};
    for (int i = 0; i < TAKES && failures == 0; i++) {
        nonce_pair pair;
        calls before_take = thread_calls;
        int got = nonce_pool_take(&pair);
        taker.allocator += thread_calls.allocator - before_take.allocator;
        taker.locks += thread_calls.locks - before_take.locks;
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
    long filler_allocations = atomic_load(&filler_allocator_calls), filler_locks = atomic_load(&filler_lock_calls);
    nonce_pool_close();
    pthread_join(filler, NULL);

    long long batches = (after.made - before.made) / NONCE_BATCH_MAX;
    printf("p256 nonce pool: %d pairs taken with %ld allocator and %ld lock calls; the filler made %lld batches with"
           " %ld and %ld\n", taken, taker.allocator, taker.locks, batches, filler_allocations, filler_locks);
    check(taken == TAKES, "every take found a pair");
    check(taker.allocator == 0, "a take allocates and frees nothing");
    check(taker.locks == 0, "a take locks nothing");
    check(batches >= TAKES / NONCE_BATCH_MAX, "the filler made a batch per 64 pairs taken");
    check(filler_allocations == 0, "the warm filler allocates nothing");
    check(filler_locks == 0, "the warm filler takes no lock");
    qsort(rs, (size_t)taken, NONCE_SCALAR_BYTES, compare_r);
    for (int i = 1; i < taken; i++) check(memcmp(rs[i - 1], rs[i], NONCE_SCALAR_BYTES) != 0, "no r is handed out twice");
    if (failures) {
        fprintf(stderr, "test_p256_nonces: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_p256_nonces: ok\n");
    return 0;
}
