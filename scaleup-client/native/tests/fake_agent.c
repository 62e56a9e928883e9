/* fake_agent.c -- the scripted scale-up agent of the C tests (one thread, one connection at a time). */
#include "fake_agent.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int pathCounter;

void fakeAgentUnusedPath(char *buf, size_t cap) {
    int n = __atomic_add_fetch(&pathCounter, 1, __ATOMIC_RELAXED);
    snprintf(buf, cap, "/tmp/scaleup-test-%d-%d.sock", (int)getpid(), n);
    unlink(buf);
}

/* Reads up to and including '\n' (or EOF) into buf[cap], NUL-terminated. */
static void readRequest(int fd, char *buf, size_t cap) {
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = recv(fd, buf + len, 1, 0);
        if (n <= 0) break;
        if (buf[len++] == '\n') break;
    }
    buf[len] = '\0';
}

/* The value of a string member "key":"..." in a request we wrote ourselves (no escapes needed). */
static void requestString(const char *req, const char *key, char *buf, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    const char *p = strstr(req, pat);
    size_t n = 0;
    if (p != NULL)
        for (p += strlen(pat); *p && *p != '"' && n + 1 < cap; p++) buf[n++] = *p;
    buf[n] = '\0';
}

static void sendAll(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n <= 0) return; /* the caller hung up (oversized answers): fine */
        buf += n;
        len -= (size_t)n;
    }
}

static void answerEcho(int fd, const char *req) {
    char client[128], line[512];
    const char *mem = strstr(req, "\"memory_mb\":");
    int64_t mb = mem ? strtoll(mem + 12, NULL, 10) : 0;
    requestString(req, "client", client, sizeof(client));
    int n = snprintf(line, sizeof(line),
                     "{\"status\":\"granted\",\"client\":\"%s\",\"granted_mb\":%" PRId64
                     ",\"pool_free_mb\":1,\"elapsed_us\":2,\"message\":\"echo\"}\n", client, mb);
    sendAll(fd, line, (size_t)n);
}

/* Handles one accepted connection as the mode says. */
static void serve(fakeAgent *a, int fd) {
    char req[sizeof(a->request)], drain[256];
    pthread_mutex_lock(&a->lock);
    fakeMode mode = a->mode;
    pthread_mutex_unlock(&a->lock);
    if (mode != FAKE_HANGUP) readRequest(fd, req, sizeof(req));
    pthread_mutex_lock(&a->lock);
    if (mode != FAKE_HANGUP) memcpy(a->request, req, sizeof(req));
    a->served++;
    if (mode == FAKE_ANSWER) sendAll(fd, a->answer, a->answerLen);
    pthread_mutex_unlock(&a->lock);
    if (mode == FAKE_ECHO) answerEcho(fd, req);
    if (mode == FAKE_SILENT)
        while (recv(fd, drain, sizeof(drain), 0) > 0) continue;
}

static void *agentMain(void *arg) {
    fakeAgent *a = arg;
    for (;;) {
        int fd = accept(a->listenFd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            break;
        }
        char stop;
        /* The stop knock: a connection that sends "!" at once. Others send JSON ('{'). */
        if (recv(fd, &stop, 1, MSG_PEEK) == 1 && stop == '!') {
            close(fd);
            break;
        }
        serve(a, fd);
        close(fd);
    }
    return NULL;
}

int fakeAgentStart(fakeAgent *a, fakeMode mode) {
    struct sockaddr_un addr;
    memset(a, 0, sizeof(*a));
    pthread_mutex_init(&a->lock, NULL);
    a->mode = mode;
    fakeAgentUnusedPath(a->path, sizeof(a->path));
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, a->path);
    a->listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (a->listenFd < 0 || bind(a->listenFd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(a->listenFd, 64) != 0)
        return -1;
    return pthread_create(&a->thread, NULL, agentMain, a) == 0 ? 0 : -1;
}

void fakeAgentScript(fakeAgent *a, const char *answer, size_t len) {
    pthread_mutex_lock(&a->lock);
    free(a->answer);
    a->answer = malloc(len ? len : 1);
    memcpy(a->answer, answer, len);
    a->answerLen = len;
    pthread_mutex_unlock(&a->lock);
}

void fakeAgentLastRequest(fakeAgent *a, char *buf, size_t cap) {
    pthread_mutex_lock(&a->lock);
    snprintf(buf, cap, "%s", a->request);
    pthread_mutex_unlock(&a->lock);
}

void fakeAgentStop(fakeAgent *a) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, a->path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
        send(fd, "!", 1, MSG_NOSIGNAL);
    pthread_join(a->thread, NULL);
    if (fd >= 0) close(fd);
    close(a->listenFd);
    unlink(a->path);
    free(a->answer);
    a->answer = NULL;
    pthread_mutex_destroy(&a->lock);
}
