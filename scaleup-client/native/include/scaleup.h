/* scaleup.h -- libscaleup: ask the local scale-up agent (scaleupd) for memory.
 *
 * The wire protocol is PROTOCOLS.md section 3: one JSON object per line over a Unix domain
 * socket. Every call opens one connection, writes one request line, reads one answer line and
 * closes the connection; nothing is shared between calls, so the library is thread-safe and
 * has no init or cleanup function.
 *
 * Memory: the library never hands out heap memory. The caller owns the scaleup_response it
 * passes in; its strings are fixed-size arrays inside the struct, always NUL-terminated.
 * Strings passed in are read during the call only.
 *
 * Errors: every call returns SCALEUP_OK (0) when the agent gave a well-formed answer -- and
 * "denied" or "error" answers are well-formed answers -- or one of the negative SCALEUP_E*
 * codes below when it did not. On error, *out is unspecified. The codes equal the Java
 * ScaleUpException.Reason codes. No call raises SIGPIPE.
 */
#ifndef SCALEUP_H
#define SCALEUP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SCALEUP_API __attribute__((visibility("default")))
#else
#define SCALEUP_API
#endif

/* Return codes. */
#define SCALEUP_OK 0
#define SCALEUP_ENOAGENT (-1) /* nothing listens on the socket path, or it does not exist */
#define SCALEUP_ETIMEOUT (-2) /* no complete answer within timeout_ms (connect+write+read) */
#define SCALEUP_EPROTO (-3)   /* the answer was not a protocol JSON object */
#define SCALEUP_ETOOBIG (-4)  /* the answer line exceeded SCALEUP_ANSWER_MAX bytes */
#define SCALEUP_EINVAL (-5)   /* an argument was invalid (see each limit below) */
#define SCALEUP_EIO (-6)      /* another socket error: connection reset or closed before the answer's end */

/* Limits, shared with the Java implementations. */
#define SCALEUP_CLIENT_MAX 64                       /* client name: 1..64 bytes of [A-Za-z0-9._-] */
#define SCALEUP_REASON_MAX 256                      /* reason: at most 256 bytes (UTF-8) */
#define SCALEUP_ANSWER_MAX 4096                     /* answer line, excluding its '\n' */
#define SCALEUP_MEMORY_MAX_MB (INT64_C(1) << 40)    /* memory_mb: 0..2^40 */
#define SCALEUP_DEFAULT_SOCKET "/tmp/elastikey-scaleupd.sock"
#define SCALEUP_SOCKET_ENV "SCALEUP_SOCKET"

/* The "status" field of an answer. */
typedef enum scaleup_status_t {
    SCALEUP_GRANTED = 0, /* everything asked for is granted */
    SCALEUP_PARTIAL = 1, /* less than asked for; granted_mb says how much */
    SCALEUP_DENIED = 2,  /* nothing more granted; the previous grant stands */
    SCALEUP_ERROR = 3    /* the agent could not act on the request; see message */
} scaleup_status_t;

/* One answer, field for field. Owned by the caller (stack or heap, as it likes).
 * Required in the answer, each once: status, client, granted_mb, pool_free_mb, elapsed_us (integers,
 * not negative) and message. client must be the caller's, except in an "error" answer. Unknown fields
 * are ignored. */
typedef struct scaleup_response {
    scaleup_status_t status;
    char client[SCALEUP_CLIENT_MAX + 1];   /* as the agent spelled it (at most 64 bytes) */
    int64_t granted_mb;                    /* the client's total grant after the request */
    int64_t pool_free_mb;                  /* free memory left in the agent's pool */
    int64_t elapsed_us;                    /* the agent's time for the request */
    char message[SCALEUP_ANSWER_MAX + 1];  /* decoded UTF-8; may be empty */
} scaleup_response;

/* Common arguments:
 *   socket_path  the agent's socket; NULL means $SCALEUP_SOCKET, or SCALEUP_DEFAULT_SOCKET when
 *                that is unset or empty. "" or longer than a sockaddr_un allows (107 bytes)
 *                -> SCALEUP_EINVAL. getenv() is read per call: do not setenv() concurrently.
 *   client       the client name, 1..64 bytes of [A-Za-z0-9._-]; else SCALEUP_EINVAL.
 *   timeout_ms   one deadline for connect, write and read together; must be > 0.
 *   out          filled on SCALEUP_OK; must not be NULL. */

/* Asks for a total of memory_mb (0..2^40) for client; reason (NULL means "") is at most
 * SCALEUP_REASON_MAX bytes and is sent JSON-escaped. */
SCALEUP_API int scaleup_rescale(const char *socket_path, const char *client, int64_t memory_mb,
                                const char *reason, int timeout_ms, scaleup_response *out);

/* The client's current grant and the pool's free memory. */
SCALEUP_API int scaleup_status(const char *socket_path, const char *client, int timeout_ms,
                               scaleup_response *out);

/* Gives the client's whole grant back to the pool. */
SCALEUP_API int scaleup_release(const char *socket_path, const char *client, int timeout_ms,
                                scaleup_response *out);

/* An administrator's call: sets the agent's pool to pool_mb (0..2^40). The agent takes it from root
 * or its own user only (an "error" answer otherwise). In the answer, granted_mb is the pool's new
 * size. A pool smaller than what is lent makes the agent ask clients to give back. */
SCALEUP_API int scaleup_pool(const char *socket_path, const char *client, int64_t pool_mb, int timeout_ms,
                             scaleup_response *out);

/* ---- Listening for the agent's give-back requests ----
 *
 * The agent asks a client to bring its grant down (its pool shrank, or another client needs its fair
 * share) by writing a give_back line on every connection that sent "watch" for the client:
 *   {"op":"give_back","client":..,"memory_mb":M,"granted_mb":G,"deadline_ms":D,"reason":..}
 * The client shrinks to M MiB and then acknowledges with scaleup_rescale(..., M, ...); after D ms
 * without that the agent lowers the grant (and the cgroup limit) to M itself. */

/* One give-back request, field for field; every field is required in the line. */
typedef struct scaleup_give_back {
    char client[SCALEUP_CLIENT_MAX + 1];  /* the client asked */
    int64_t memory_mb;                    /* the total to come down to */
    int64_t granted_mb;                   /* the grant when the agent asked */
    int64_t deadline_ms;                  /* time left to acknowledge, from when the agent sent it */
    char reason[SCALEUP_REASON_MAX + 1];  /* why; may be empty */
} scaleup_give_back;

/* Opens a watch connection for client: sends "watch" and reads the answer into *out (the grant, as
 * for status) within timeout_ms. On SCALEUP_OK with out->status != SCALEUP_ERROR, *fd_out is the open
 * connection, to pass to scaleup_watch_next and to close with scaleup_watch_close; otherwise *fd_out
 * is -1 and nothing stays open (an "error" answer: e.g. the grant belongs to another user). */
SCALEUP_API int scaleup_watch_open(const char *socket_path, const char *client, int timeout_ms,
                                   scaleup_response *out, int *fd_out);

/* Waits up to timeout_ms for the next give-back request on fd, for client. SCALEUP_OK with *out
 * filled; SCALEUP_ETIMEOUT when none came (the connection stays usable); SCALEUP_EIO when the agent
 * closed it; SCALEUP_EPROTO for a line that is not a give-back request for client (the connection
 * stays usable: the next call reads the next line); SCALEUP_ETOOBIG for a line over 4096 bytes. The
 * connection reads one byte at a time, so nothing past a line is consumed. */
SCALEUP_API int scaleup_watch_next(int fd, const char *client, int timeout_ms, scaleup_give_back *out);

/* Closes a watch connection from scaleup_watch_open. */
SCALEUP_API void scaleup_watch_close(int fd);

/* A static English description of a return code ("unknown error" for other values). */
SCALEUP_API const char *scaleup_strerror(int code);

/* The protocol's spelling of status ("granted", ...), or NULL for a value outside the enum. */
SCALEUP_API const char *scaleup_status_name(scaleup_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* SCALEUP_H */
