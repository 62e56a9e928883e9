/* fake_agent.h -- a scripted scale-up agent for the tests: a thread serving a temp Unix socket. */
#ifndef SCALEUP_FAKE_AGENT_H
#define SCALEUP_FAKE_AGENT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/un.h>

typedef enum fakeMode {
    FAKE_ANSWER, /* read the request line, send the scripted bytes as they are, close */
    FAKE_ECHO,   /* answer "granted" with the request's client and memory_mb as granted_mb */
    FAKE_SILENT, /* read the request, never answer; wait for the caller to hang up */
    FAKE_HANGUP  /* close each connection at once, reading nothing */
} fakeMode;

typedef struct fakeAgent {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int listenFd;
    pthread_t thread;
    pthread_mutex_t lock; /* guards the fields below */
    fakeMode mode;
    char *answer; /* FAKE_ANSWER: the bytes to send (copied in), answerLen of them */
    size_t answerLen;
    char request[8192]; /* the last request line received, with its '\n' */
    int served;         /* connections handled */
} fakeAgent;

/* Starts an agent on a fresh socket path. Returns 0 or -1. fakeAgentStop frees what it holds. */
int fakeAgentStart(fakeAgent *a, fakeMode mode);

/* Scripts the next answers: len bytes of answer, sent as they are (add the '\n' yourself). */
void fakeAgentScript(fakeAgent *a, const char *answer, size_t len);

/* Copies the last request line into buf[cap]. */
void fakeAgentLastRequest(fakeAgent *a, char *buf, size_t cap);

/* Stops the thread, closes and unlinks the socket, frees the script. */
void fakeAgentStop(fakeAgent *a);

/* Makes a path where nothing listens (a fresh name), into buf[cap]. */
void fakeAgentUnusedPath(char *buf, size_t cap);

#endif /* SCALEUP_FAKE_AGENT_H */
