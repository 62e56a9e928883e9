/* scaleup_jni.c -- the JNI bridge: io.elastikey.scaleup.jni.LibScaleUp's natives over libscaleup.
 *
 * The natives are registered from one table in JNI_OnLoad. Strings cross as UTF-8 byte arrays
 * (Java encodes and decodes them, so no modified UTF-8), copied into stack buffers; nothing is
 * pinned. Each call returns libscaleup's code (0 or a negative SCALEUP_E*); on 0 it fills
 * numbers[4] = {status, granted_mb, pool_free_mb, elapsed_us} and texts[2] = {client, message}.
 * The Java wrapper turns a negative code into ScaleUpException. Local references made here
 * (two byte arrays per call) are deleted before returning. */
#include "scaleup.h"

#include <jni.h>
#include <limits.h>
#include <string.h>
#include <sys/un.h>

#define LIBSCALEUP_CLASS "io/elastikey/scaleup/jni/LibScaleUp"
#define PATH_CAP sizeof(((struct sockaddr_un *)0)->sun_path)

/* Copies a Java byte[] into buf[cap] as a C string. Returns 0, or SCALEUP_EINVAL when it does
 * not fit or holds a NUL byte. A NULL array gives *str = NULL. */
static int copyBytes(JNIEnv *env, jbyteArray arr, char *buf, size_t cap, const char **str) {
    if (arr == NULL) {
        *str = NULL;
        return SCALEUP_OK;
    }
    jsize len = (*env)->GetArrayLength(env, arr);
    if ((size_t)len >= cap) return SCALEUP_EINVAL;
    (*env)->GetByteArrayRegion(env, arr, 0, len, (jbyte *)buf);
    buf[len] = '\0';
    if (memchr(buf, '\0', (size_t)len) != NULL) return SCALEUP_EINVAL;
    *str = buf;
    return SCALEUP_OK;
}

/* Stores s as a new byte[] at texts[index]. Returns 0, or SCALEUP_EIO with an exception pending. */
static int storeText(JNIEnv *env, jobjectArray texts, jsize index, const char *s) {
    jsize len = (jsize)strlen(s);
    jbyteArray arr = (*env)->NewByteArray(env, len);
    if (arr == NULL) return SCALEUP_EIO;
    (*env)->SetByteArrayRegion(env, arr, 0, len, (const jbyte *)s);
    (*env)->SetObjectArrayElement(env, texts, index, arr);
    (*env)->DeleteLocalRef(env, arr);
    return (*env)->ExceptionCheck(env) ? SCALEUP_EIO : SCALEUP_OK;
}

/* Copies a successful answer into the caller's arrays. */
static int storeResponse(JNIEnv *env, const scaleup_response *r, jlongArray numbers, jobjectArray texts) {
    jlong n[4] = {(jlong)r->status, r->granted_mb, r->pool_free_mb, r->elapsed_us};
    (*env)->SetLongArrayRegion(env, numbers, 0, 4, n);
    if ((*env)->ExceptionCheck(env)) return SCALEUP_EIO;
    int rc = storeText(env, texts, 0, r->client);
    return rc == SCALEUP_OK ? storeText(env, texts, 1, r->message) : rc;
}

/* The one body of the three natives: op is 'r', 's' or 'x' (release). */
static jint callOp(JNIEnv *env, char op, jbyteArray jpath, jbyteArray jclient, jlong memoryMb,
                   jbyteArray jreason, jint timeoutMs, jlongArray numbers, jobjectArray texts) {
    char pathBuf[PATH_CAP], clientBuf[SCALEUP_CLIENT_MAX + 1], reasonBuf[SCALEUP_REASON_MAX + 1];
    const char *path, *client, *reason;
    scaleup_response r;
    if (numbers == NULL || texts == NULL || (*env)->GetArrayLength(env, numbers) < 4 ||
        (*env)->GetArrayLength(env, texts) < 2)
        return SCALEUP_EINVAL;
    if (copyBytes(env, jpath, pathBuf, sizeof(pathBuf), &path) != SCALEUP_OK ||
        copyBytes(env, jclient, clientBuf, sizeof(clientBuf), &client) != SCALEUP_OK ||
        copyBytes(env, jreason, reasonBuf, sizeof(reasonBuf), &reason) != SCALEUP_OK)
        return SCALEUP_EINVAL;
    int rc;
    if (op == 'r') rc = scaleup_rescale(path, client, memoryMb, reason, timeoutMs, &r);
    else if (op == 's') rc = scaleup_status(path, client, timeoutMs, &r);
    else rc = scaleup_release(path, client, timeoutMs, &r);
    return rc == SCALEUP_OK ? storeResponse(env, &r, numbers, texts) : rc;
}

static jint jniRescale(JNIEnv *env, jclass cls, jbyteArray path, jbyteArray client, jlong memoryMb,
                       jbyteArray reason, jint timeoutMs, jlongArray numbers, jobjectArray texts) {
    (void)cls;
    return callOp(env, 'r', path, client, memoryMb, reason, timeoutMs, numbers, texts);
}

static jint jniStatus(JNIEnv *env, jclass cls, jbyteArray path, jbyteArray client, jint timeoutMs,
                      jlongArray numbers, jobjectArray texts) {
    (void)cls;
    return callOp(env, 's', path, client, 0, NULL, timeoutMs, numbers, texts);
}

static jint jniRelease(JNIEnv *env, jclass cls, jbyteArray path, jbyteArray client, jint timeoutMs,
                       jlongArray numbers, jobjectArray texts) {
    (void)cls;
    return callOp(env, 'x', path, client, 0, NULL, timeoutMs, numbers, texts);
}

static jstring jniStrerror(JNIEnv *env, jclass cls, jint code) {
    (void)cls;
    return (*env)->NewStringUTF(env, scaleup_strerror(code)); /* ASCII only */
}

static const JNINativeMethod methods[] = {
    {"rescale", "([B[BJ[BI[J[[B)I", (void *)jniRescale},
    {"status", "([B[BI[J[[B)I", (void *)jniStatus},
    {"release", "([B[BI[J[[B)I", (void *)jniRelease},
    {"strerror", "(I)Ljava/lang/String;", (void *)jniStrerror},
};

JNIEXPORT jint JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    (void)reserved;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass cls = (*env)->FindClass(env, LIBSCALEUP_CLASS);
    if (cls == NULL) return JNI_ERR;
    jint rc = (*env)->RegisterNatives(env, cls, methods, sizeof(methods) / sizeof(methods[0]));
    (*env)->DeleteLocalRef(env, cls);
    return rc == 0 ? JNI_VERSION_1_8 : JNI_ERR;
}
