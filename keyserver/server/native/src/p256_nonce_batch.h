/* p256_nonce_batch.h -- ECDSA P-256 nonces (k^-1 mod n, r) made many at a time, for the nonce pool.
 * See p256_nonce_batch.c for why and how. */
#ifndef P256_NONCE_BATCH_H
#define P256_NONCE_BATCH_H

#include <openssl/bn.h>

/* Nonces made by one call of nonce_batch_make() at most. */
#define NONCE_BATCH_MAX 64

/* What a batch needs besides a BN_CTX: the curve, its two moduli and scratch values, made once per filler. */
typedef struct nonce_batch nonce_batch;

/* A new maker, or NULL when out of memory. Free it with nonce_batch_free(). */
nonce_batch *nonce_batch_new(void);

/* Wipes the maker's scratch values (they held nonces) and frees it. NULL is allowed. */
void nonce_batch_free(nonce_batch *batch);

/* Makes count (1..NONCE_BATCH_MAX) pairs and writes them to kinv[0..] and r[0..]; the caller owns every pair
 * written (BN_clear_free both). Returns the number written, which is count but for the vanishingly rare nonce
 * whose r is 0 (skipped), or -1 when the library failed (nothing is written then). */
int nonce_batch_make(nonce_batch *batch, BN_CTX *ctx, int count, BIGNUM **kinv, BIGNUM **r);

#endif
