/* p256_nonce_batch.h -- ECDSA P-256 nonces (k^-1 mod n, r) made many at a time, for the nonce pool.
 * See p256_nonce_batch.c for why and how. */
#ifndef P256_NONCE_BATCH_H
#define P256_NONCE_BATCH_H

#include <openssl/bn.h>

/* Nonces made by one call of nonce_batch_make() at most. */
#define NONCE_BATCH_MAX 64

/* k^-1 and r, each big-endian and padded to the size of the group order. */
#define NONCE_SCALAR_BYTES 32

/* One precomputed pair, as plain bytes: it crosses threads without any allocator in between (p256_nonces.c). */
typedef struct nonce_pair {
    unsigned char kinv[NONCE_SCALAR_BYTES]; /* secret */
    unsigned char r[NONCE_SCALAR_BYTES];
} nonce_pair;

/* What a batch needs besides a BN_CTX: the curve, its two moduli and scratch values, made once per filler. */
typedef struct nonce_batch nonce_batch;

/* A new maker, or NULL when out of memory. Free it with nonce_batch_free(). */
nonce_batch *nonce_batch_new(void);

/* Wipes the maker's scratch values (they held nonces) and frees it. NULL is allowed. */
void nonce_batch_free(nonce_batch *batch);

/* Makes count (1..NONCE_BATCH_MAX) pairs and writes them to out[0..]; the caller wipes what it does not hand on
 * (OPENSSL_cleanse). Allocates nothing once the maker and ctx have warmed up. Returns the number written, which is
 * count but for the vanishingly rare nonce whose r is 0 (skipped), or -1 when the library failed (out is wiped
 * then). */
int nonce_batch_make(nonce_batch *batch, BN_CTX *ctx, int count, nonce_pair *out);

#endif
