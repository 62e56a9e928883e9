/* p256_jni.c -- ECDSA P-256 signatures from a bare 32-byte private scalar, for the key server.
 *
 * Why it exists: a JCA provider turns PKCS#8 into its key object by multiplying the scalar by the
 * base point (to derive the public key, or to check the one given): as much work as a signature.
 * A key server holding a million keys parses one on every miss of its parsed-key cache. Signing
 * from the scalar alone makes a miss cost an unseal and a DER read, and lets a key stay in memory
 * as 32 bytes instead of a provider object of some 700.
 *
 * The natives of io.elastikey.keyserver.crypto.P256Native, registered in JNI_OnLoad. Inputs are
 * copied from Java arrays into stack buffers (nothing is pinned) and the scalar's copies are wiped
 * before returning. Each thread keeps one EC_KEY with the curve set and no private key in it
 * between calls, and two BIGNUMs a pooled nonce is read into (wiped after each use); all freed when
 * the thread exits. The caller (Java) has checked that the scalar is in [1, n-1]; the library
 * checks nothing it does not have to. */
#define OPENSSL_SUPPRESS_DEPRECATED /* EC_KEY: the one OpenSSL 3 API that signs from a scalar alone */

#include "p256_nonces.h"

#include <jni.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#define P256_NATIVE_CLASS "io/elastikey/keyserver/crypto/P256Native"
#define SCALAR_LENGTH 32
#define DIGEST_MAX 64

/* Error codes, matched by P256Native.describe(). */
#define P256_EINVAL (-1)  /* an argument of the wrong size */
#define P256_ENOMEM (-2)  /* the per-thread key could not be made */
#define P256_ESIGN (-3)   /* the library refused to sign */
#define P256_ESPACE (-4)  /* the signature does not fit the output array */
#define P256_ENONCE (-5)  /* pooled_only, and the pool had no nonce: nothing was signed */

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

/* What a signing thread keeps between calls; it owns everything in it. */
typedef struct signer {
    EC_KEY *key;  /* the curve, no private key between calls */
    BIGNUM *kinv; /* a pooled nonce's k^-1 and r while one signature uses them, zero otherwise */
    BIGNUM *r;
} signer;

static void free_signer(void *p) {
    signer *s = p;
    EC_KEY_free(s->key);
    BN_clear_free(s->kinv);
    BN_free(s->r);
    free(s);
}

static void make_thread_key(void) {
    (void)pthread_key_create(&thread_key, free_signer);
}

static signer *new_signer(void) {
    signer *s = calloc(1, sizeof(*s));
    if (s == NULL) return NULL;
    s->key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    s->kinv = BN_secure_new();
    s->r = BN_new();
    if (s->key == NULL || s->kinv == NULL || s->r == NULL) {
        free_signer(s);
        return NULL;
    }
    return s;
}

/* This thread's signer, made on first use. Owned by the thread; NULL when out of memory. */
static signer *thread_signer(void) {
    (void)pthread_once(&thread_key_once, make_thread_key);
    signer *s = pthread_getspecific(thread_key);
    if (s == NULL) {
        s = new_signer();
        if (s != NULL && pthread_setspecific(thread_key, s) != 0) {
            free_signer(s);
            s = NULL;
        }
    }
    return s;
}

/* Signs with a precomputed nonce when the pool has one (p256_nonces.c), else makes one, unless pooled_only: then
 * an empty pool leaves *no_nonce set and returns NULL without signing (the caller does the full signature on
 * another thread; that one counts the miss if it still finds the pool empty). In the rare case that a pooled nonce
 * gives s = 0 OpenSSL refuses it, and the signature is made the usual way. */
static ECDSA_SIG *sign_with_pooled_nonce(signer *s, const unsigned char *digest, int digest_len,
                                         int pooled_only, int *no_nonce) {
    nonce_pair pair;
    if (!nonce_pool_take(&pair)) {
        if (pooled_only) {
            *no_nonce = 1;
            return NULL;
        }
        nonce_pool_count_miss();
        return ECDSA_do_sign(digest, digest_len, s->key);
    }
    ECDSA_SIG *sig = NULL;
    if (BN_bin2bn(pair.kinv, NONCE_SCALAR_BYTES, s->kinv) != NULL
            && BN_bin2bn(pair.r, NONCE_SCALAR_BYTES, s->r) != NULL) {
        sig = ECDSA_do_sign_ex(digest, digest_len, s->kinv, s->r, s->key);
    }
    OPENSSL_cleanse(&pair, sizeof(pair));
    BN_clear(s->kinv);
    return sig != NULL ? sig : ECDSA_do_sign(digest, digest_len, s->key);
}

/* Signs digest[digest_len] with scalar; writes the DER ECDSA-Sig-Value to out[out_cap]. Returns its
 * length or a negative P256_E* code (P256_ENONCE only when pooled_only). The key holds the scalar only for the
 * duration of the call. */
static int sign_digest(const unsigned char *scalar, const unsigned char *digest, int digest_len,
                       unsigned char *out, int out_cap, int pooled_only) {
    signer *s = thread_signer();
    if (s == NULL) return P256_ENOMEM;
    EC_KEY *key = s->key;
    BIGNUM *d = BN_bin2bn(scalar, SCALAR_LENGTH, NULL);
    if (d == NULL) return P256_ENOMEM;
    int ok = EC_KEY_set_private_key(key, d);
    BN_clear_free(d);
    if (!ok) return P256_ESIGN;
    int no_nonce = 0;
    ECDSA_SIG *sig = sign_with_pooled_nonce(s, digest, digest_len, pooled_only, &no_nonce);
    (void)EC_KEY_set_private_key(key, NULL); /* clears and frees the key's copy (returns 0 by design) */
    if (sig == NULL) return no_nonce ? P256_ENONCE : P256_ESIGN;
    int len = i2d_ECDSA_SIG(sig, NULL);
    if (len <= 0) {
        len = P256_ESIGN;
    } else if (len > out_cap) {
        len = P256_ESPACE;
    } else {
        unsigned char *p = out;
        len = i2d_ECDSA_SIG(sig, &p);
        if (len <= 0) len = P256_ESIGN;
    }
    ECDSA_SIG_free(sig);
    return len;
}

/* int P256Native.sign(byte[] scalar, byte[] digest, int digestLength, byte[] signature, boolean pooledOnly) */
static jint JNICALL native_sign(JNIEnv *env, jclass cls, jbyteArray jscalar, jbyteArray jdigest,
                                jint digest_len, jbyteArray jout, jboolean pooled_only) {
    (void)cls;
    unsigned char scalar[SCALAR_LENGTH], digest[DIGEST_MAX], out[80];
    if ((*env)->GetArrayLength(env, jscalar) != SCALAR_LENGTH || digest_len <= 0 || digest_len > DIGEST_MAX
            || (*env)->GetArrayLength(env, jdigest) < digest_len) {
        return P256_EINVAL;
    }
    jsize out_cap = (*env)->GetArrayLength(env, jout);
    (*env)->GetByteArrayRegion(env, jscalar, 0, SCALAR_LENGTH, (jbyte *)scalar);
    (*env)->GetByteArrayRegion(env, jdigest, 0, digest_len, (jbyte *)digest);
    int len = sign_digest(scalar, digest, digest_len, out, out_cap < (jsize)sizeof(out) ? out_cap : (int)sizeof(out),
                          pooled_only == JNI_TRUE);
    OPENSSL_cleanse(scalar, sizeof(scalar));
    if (len > 0) (*env)->SetByteArrayRegion(env, jout, 0, len, (const jbyte *)out);
    return len;
}

/* String P256Native.libraryVersion(): the crypto library's own version line. */
static jstring JNICALL native_version(JNIEnv *env, jclass cls) {
    (void)cls;
    return (*env)->NewStringUTF(env, OpenSSL_version(OPENSSL_VERSION));
}

/* int P256Native.openNoncePool(int target): arms the pool; returns the target in effect. */
static jint JNICALL native_open_pool(JNIEnv *env, jclass cls, jint wanted) {
    (void)env;
    (void)cls;
    return nonce_pool_open(wanted);
}

/* int P256Native.fillNoncePool(): lowers the calling thread's priority, then fills until closed. Returns what
 * nonce_pool_lower_priority() said. Blocks: called on a thread of its own. */
static jint JNICALL native_fill_pool(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    int priority = nonce_pool_lower_priority();
    nonce_pool_fill();
    return priority;
}

/* void P256Native.closeNoncePool() */
static void JNICALL native_close_pool(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    nonce_pool_close();
}

/* void P256Native.noncePoolStats(long[] out): made, taken, missed, pooled. */
static void JNICALL native_pool_stats(JNIEnv *env, jclass cls, jlongArray jout) {
    (void)cls;
    nonce_stats stats;
    nonce_pool_stats(&stats);
    jlong values[4] = {stats.made, stats.taken, stats.missed, stats.pooled};
    if ((*env)->GetArrayLength(env, jout) >= 4) (*env)->SetLongArrayRegion(env, jout, 0, 4, values);
}

static const JNINativeMethod methods[] = {
    {"sign", "([B[BI[BZ)I", (void *)native_sign},
    {"libraryVersion", "()Ljava/lang/String;", (void *)native_version},
    {"openNoncePool", "(I)I", (void *)native_open_pool},
    {"fillNoncePool", "()I", (void *)native_fill_pool},
    {"closeNoncePool", "()V", (void *)native_close_pool},
    {"noncePoolStats", "([J)V", (void *)native_pool_stats},
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass cls = (*env)->FindClass(env, P256_NATIVE_CLASS);
    if (cls == NULL) return JNI_ERR;
    jint rc = (*env)->RegisterNatives(env, cls, methods, (jint)(sizeof(methods) / sizeof(methods[0])));
    (*env)->DeleteLocalRef(env, cls);
    return rc == 0 ? JNI_VERSION_1_8 : JNI_ERR;
}
