/* scaleup_io.c -- socket plumbing: connect, write and read one line under a single deadline.
 *
 * The connect is blocking with SO_SNDTIMEO set to the time left (for AF_UNIX that bounds the
 * wait for a full listen backlog); after it the socket is non-blocking and poll() waits for
 * each write and read with whatever is left of the deadline. send() uses MSG_NOSIGNAL, so
 * a closed peer is EPIPE, never SIGPIPE. Every function here uses only its arguments and the
 * stack: thread-safe. */
#include "scaleup_io.h"

#include "scaleup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int64_t nowMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for events or the deadline passes. */
static int waitFd(int fd, short events, int64_t deadline) {
    for (;;) {
        int64_t left = deadline - nowMs();
        if (left <= 0) return SCALEUP_ETIMEOUT;
        struct pollfd pfd = {.fd = fd, .events = events, .revents = 0};
        int n = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (n > 0) return SCALEUP_OK; /* also on POLLERR/POLLHUP: the next call reports it */
        if (n == 0) return SCALEUP_ETIMEOUT;
        if (errno != EINTR) return SCALEUP_EIO;
    }
}

/* The library code for a connect() errno. */
static int connectError(int err) {
    switch (err) {
    case ENOENT: case ECONNREFUSED: case ENOTDIR: return SCALEUP_ENOAGENT;
    case EAGAIN: case EINPROGRESS: case ETIMEDOUT: return SCALEUP_ETIMEOUT;
    default: return SCALEUP_EIO;
    }
}

/* Connects fd to the socket at path (already checked to fit sun_path) within the deadline. */
static int connectUnix(int fd, const char *path, int64_t deadline) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
    for (;;) {
        int64_t left = deadline - nowMs();
        if (left <= 0) return SCALEUP_ETIMEOUT;
        struct timeval tv = {.tv_sec = (time_t)(left / 1000), .tv_usec = (suseconds_t)(left % 1000) * 1000};
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) return SCALEUP_EIO;
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 || errno == EISCONN) break;
        if (errno != EINTR) return connectError(errno);
    }
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 ? SCALEUP_OK : SCALEUP_EIO;
}

static int writeAll(int fd, const char *buf, size_t len, int64_t deadline) {
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int rc = waitFd(fd, POLLOUT, deadline);
            if (rc != SCALEUP_OK) return rc;
        } else if (n < 0 && errno != EINTR) {
            return SCALEUP_EIO;
        }
    }
    return SCALEUP_OK;
}

/* Reads until a '\n' arrives within the first SCALEUP_ANSWER_MAX + 1 bytes. Bytes after the
 * '\n' are ignored; end of stream before it is a failed exchange (SCALEUP_EIO), as in the Java client. */
static int readLine(int fd, char *line, size_t *linelen, int64_t deadline) {
    size_t len = 0, cap = SCALEUP_ANSWER_MAX + 1;
    while (len < cap) {
        ssize_t n = recv(fd, line + len, cap - len, 0);
        if (n > 0) {
            char *nl = memchr(line + len, '\n', (size_t)n);
            if (nl) {
                *nl = '\0';
                *linelen = (size_t)(nl - line);
                return SCALEUP_OK;
            }
            len += (size_t)n;
        } else if (n == 0) {
            return SCALEUP_EIO;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rc = waitFd(fd, POLLIN, deadline);
            if (rc != SCALEUP_OK) return rc;
        } else if (errno != EINTR) {
            return SCALEUP_EIO;
        }
    }
    return SCALEUP_ETOOBIG;
}

int scaleupExchange(const char *path, const char *req, size_t reqlen, int timeout_ms, char *line,
                    size_t *linelen) {
    int64_t deadline = nowMs() + timeout_ms;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return SCALEUP_EIO;
    int rc = connectUnix(fd, path, deadline);
    if (rc == SCALEUP_OK) rc = writeAll(fd, req, reqlen, deadline);
    if (rc == SCALEUP_OK) rc = readLine(fd, line, linelen, deadline);
    close(fd);
    return rc;
}

int scaleupConnectAndSend(const char *path, const char *req, size_t reqlen, int timeout_ms, int *fd) {
    int64_t deadline = nowMs() + timeout_ms;
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0) return SCALEUP_EIO;
    int rc = connectUnix(*fd, path, deadline);
    if (rc == SCALEUP_OK) rc = writeAll(*fd, req, reqlen, deadline);
    if (rc != SCALEUP_OK) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

int scaleupReadLineExact(int fd, int timeout_ms, char *line, size_t *linelen) {
    int64_t deadline = nowMs() + timeout_ms;
    size_t len = 0;
    while (len <= SCALEUP_ANSWER_MAX) {
        ssize_t n = recv(fd, line + len, 1, 0);
        if (n == 1) {
            if (line[len] == '\n') {
                line[len] = '\0';
                *linelen = len;
                return SCALEUP_OK;
            }
            len++;
        } else if (n == 0) {
            return SCALEUP_EIO;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rc = waitFd(fd, POLLIN, deadline);
            if (rc != SCALEUP_OK) return rc;
        } else if (errno != EINTR) {
            return SCALEUP_EIO;
        }
    }
    return SCALEUP_ETOOBIG;
}
