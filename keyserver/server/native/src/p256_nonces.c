/* p256_nonces.c -- a pool of precomputed ECDSA P-256 nonces (k^-1 mod n, r), filled by a thread at idle priority.
 *
 * Why: nine tenths of an ECDSA P-256 signature in OpenSSL 3.0 is the nonce: a random k, the point k*G and the
 * inverse of k (17.6 of 19.3 us here). None of it depends on the key or the message, so it can be made ahead, when
 * the machine has nothing else to do (p256_nonce_batch.c makes them 64 at a time, sharing the inversions); the
 * signature on the request path is then s = k^-1 (m + r d) mod n, under a microsecond. The filler runs under
 * SCHED_IDLE: the kernel gives it a core only when no other thread of any process wants one, so the work moved off
 * the request path never competes with requests. Under full load the pool runs dry
 * and each signature makes its own nonce, exactly as without the pool.
 *
 * Secrecy: a pair is as secret as the key it will sign with (k and a signature reveal d). Pairs live only in this
 * process's memory, are used once (a taker copies the pair out and wipes the slot before releasing it), and every
 * copy is wiped with OPENSSL_cleanse once used.
 * k comes from the kernel's generator (getrandom, p256_nonce_batch.c says why not OpenSSL's), as uniform as in a
 * signature made the usual way, minus the digest and key OpenSSL mixes into k as a hedge against a broken generator.
 *
 * The ring is a bounded multi-producer multi-consumer queue with one sequence number per slot (D. Vyukov's
 * design): a taker never waits, so a filler preempted halfway through publishing a slot (likely, at idle priority)
 * makes takers see an empty pool, never block behind it. The ring is allocated once and never freed, so a taker
 * racing with nonce_pool_close() cannot touch freed memory.
 *
 * A slot holds the pair as bytes, not as BIGNUMs the filler allocated and a taker freed: that free took the filler's
 * malloc arena lock, which a filler preempted inside malloc then held for as long as SCHED_IDLE kept it off a core
 * (closed-loop stalls of 1.2-1.5 s). The filler takes no lock a request thread takes (p256_nonce_batch.c says
 * which it avoids), and a taker touches nothing of the filler's but its slot. */
#include "p256_nonces.h"
#include "p256_nonce_batch.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NONCE_POOL_MAX 65536          /* ring slots, a power of two; 4.5 MB, static */
#define FULL_POOL_SLEEP_NANOS 2000000 /* the filler's pause when the pool is at its target */

typedef struct slot {
    atomic_size_t sequence;
    nonce_pair pair;
} slot;

static slot ring[NONCE_POOL_MAX];
static atomic_size_t enqueue_at;
static atomic_size_t dequeue_at;
static atomic_int target;              /* pairs to keep ready; 0: off */
static atomic_int stopping;
static atomic_flag filler_running = ATOMIC_FLAG_INIT;
static atomic_llong made, taken, missed;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void init_ring(void) {
    for (size_t i = 0; i < NONCE_POOL_MAX; i++) atomic_init(&ring[i].sequence, i);
}

/* Copies a pair into the pool. Returns 0 when it is full. The caller wipes its own copy either way. */
static int put(const nonce_pair *pair) {
    size_t at = atomic_load_explicit(&enqueue_at, memory_order_relaxed);
    for (;;) {
        slot *s = &ring[at & (NONCE_POOL_MAX - 1)];
        intptr_t lag = (intptr_t)atomic_load_explicit(&s->sequence, memory_order_acquire) - (intptr_t)at;
        if (lag == 0) {
            if (atomic_compare_exchange_weak_explicit(&enqueue_at, &at, at + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                memcpy(&s->pair, pair, sizeof(*pair));
                atomic_store_explicit(&s->sequence, at + 1, memory_order_release);
                return 1;
            }
        } else if (lag < 0) {
            return 0;
        } else {
            at = atomic_load_explicit(&enqueue_at, memory_order_relaxed);
        }
    }
}

/* Copies a pair out of the ring and wipes its slot; 0 when it is empty. */
static int take_slot(nonce_pair *pair) {
    size_t at = atomic_load_explicit(&dequeue_at, memory_order_relaxed);
    for (;;) {
        slot *s = &ring[at & (NONCE_POOL_MAX - 1)];
        intptr_t lag = (intptr_t)atomic_load_explicit(&s->sequence, memory_order_acquire) - (intptr_t)(at + 1);
        if (lag == 0) {
            if (atomic_compare_exchange_weak_explicit(&dequeue_at, &at, at + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                memcpy(pair, &s->pair, sizeof(*pair));
                OPENSSL_cleanse(&s->pair, sizeof(s->pair));
                atomic_store_explicit(&s->sequence, at + NONCE_POOL_MAX, memory_order_release);
                return 1;
            }
        } else if (lag < 0) {
            return 0;
        } else {
            at = atomic_load_explicit(&dequeue_at, memory_order_relaxed);
        }
    }
}

int nonce_pool_take(nonce_pair *pair) {
    if (!take_slot(pair)) return 0;
    atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed);
    return 1;
}

void nonce_pool_count_miss(void) {
    atomic_fetch_add_explicit(&missed, 1, memory_order_relaxed);
}

static long long pooled_now(void) {
    long long n = (long long)atomic_load(&enqueue_at) - (long long)atomic_load(&dequeue_at);
    return n < 0 ? 0 : n;
}

int nonce_pool_open(int wanted) {
    (void)pthread_once(&ring_once, init_ring);
    int capped = wanted < 0 ? 0 : wanted > NONCE_POOL_MAX ? NONCE_POOL_MAX : wanted;
    atomic_store(&target, capped);
    atomic_store(&stopping, 0);
    return capped;
}

void nonce_pool_close(void) {
    atomic_store(&stopping, 1);
}

int nonce_pool_lower_priority(void) {
    struct sched_param none = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &none) == 0) return 1; /* 0: the calling thread, on Linux */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19) == 0) return 2;
    return 0;
}

static void pause_briefly(void) {
    struct timespec pause = {0, FULL_POOL_SLEEP_NANOS};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

/* Pairs the filler makes at a time: a whole batch, whose two inversions all of them share (fewer for a target
 * below one). */
static int batch_size(void) {
    int wanted = atomic_load(&target);
    return wanted < NONCE_BATCH_MAX ? wanted : NONCE_BATCH_MAX;
}

/* Makes a batch of pairs and pools them (the pool may pass its target by less than a batch). Returns 0 when the
 * library failed (the filler then gives up). Pairs the full ring has no room for are dropped. */
static int make_batch(nonce_batch *batch, BN_CTX *ctx, nonce_pair *pairs) {
    int made_now = nonce_batch_make(batch, ctx, batch_size(), pairs);
    if (made_now < 0) return 0;
    for (int i = 0; i < made_now; i++) {
        if (put(&pairs[i])) atomic_fetch_add_explicit(&made, 1, memory_order_relaxed);
    }
    OPENSSL_cleanse(pairs, sizeof(*pairs) * (size_t)made_now);
    return 1;
}

static void drain(void) {
    nonce_pair pair;
    while (take_slot(&pair)) {
    }
    OPENSSL_cleanse(&pair, sizeof(pair));
}

void nonce_pool_fill(void) {
    (void)pthread_once(&ring_once, init_ring);
    if (atomic_load(&target) == 0 || atomic_flag_test_and_set(&filler_running)) return;
    nonce_batch *batch = nonce_batch_new();
    BN_CTX *ctx = BN_CTX_secure_new();
    nonce_pair pairs[NONCE_BATCH_MAX];
    /* From empty, and whenever the pool lacks a whole batch, fill it to its target; in between, sleep. Topping it up
     * a few pairs at a time would pay the batch's two inversions for each few. */
    int filling = 1;
    while (batch != NULL && ctx != NULL && !atomic_load(&stopping)) {
        long long lacking = atomic_load(&target) - pooled_now();
        if (lacking <= 0) {
            filling = 0;
        } else if (lacking >= batch_size()) {
            filling = 1;
        }
        if (!filling) {
            pause_briefly();
        } else if (!make_batch(batch, ctx, pairs)) {
            break;
        }
    }
    BN_CTX_free(ctx);
    nonce_batch_free(batch);
    drain();
    atomic_flag_clear(&filler_running);
}

void nonce_pool_stats(nonce_stats *out) {
    out->made = atomic_load(&made);
    out->taken = atomic_load(&taken);
    out->missed = atomic_load(&missed);
    out->pooled = pooled_now();
}
