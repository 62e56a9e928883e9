/* p256_nonces.h -- a pool of precomputed ECDSA P-256 nonces, filled by a thread at idle priority.
 * See p256_nonces.c for why and how. */
#ifndef P256_NONCES_H
#define P256_NONCES_H

#include "p256_nonce_batch.h"

/* Counters since the process started, for metrics. */
typedef struct nonce_stats {
    long long made;     /* pairs the filler put in the pool */
    long long taken;    /* pairs signatures took from it */
    long long missed;   /* signatures that found it empty and made their own nonce */
    long long pooled;   /* pairs in the pool now */
} nonce_stats;

/* Sets how many pairs the filler keeps ready (capped at NONCE_POOL_MAX) and arms it; 0 turns the pool off.
 * Returns the target in effect. */
int nonce_pool_open(int target);

/* Runs the filler on the calling thread until nonce_pool_close(), then frees what is left in the pool.
 * Returns without filling when the pool is off or another filler is running. */
void nonce_pool_fill(void);

/* Asks the filler to stop; nonce_pool_fill() returns soon after. Signatures go on without the pool. */
void nonce_pool_close(void);

/* Lowers the calling thread to SCHED_IDLE (or nice 19 where that is refused).
 * Returns 1 for SCHED_IDLE, 2 for nice 19, 0 when neither could be set. */
int nonce_pool_lower_priority(void);

/* Copies one precomputed pair into *pair and wipes its slot. Returns 1, or 0 when the pool is empty or off. Never
 * blocks and never allocates. The caller wipes *pair after use (OPENSSL_cleanse): it is as secret as a key. */
int nonce_pool_take(nonce_pair *pair);

/* Counts a signature that found the pool empty. */
void nonce_pool_count_miss(void);

void nonce_pool_stats(nonce_stats *out);

#endif
