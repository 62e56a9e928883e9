/* scaleup_io.h -- one request/answer exchange with the agent over a Unix domain socket. */
#ifndef SCALEUP_IO_H
#define SCALEUP_IO_H

#include <stddef.h>

/* Connects to path, writes req[0..reqlen), reads one '\n'-terminated line and closes. On
 * SCALEUP_OK, line (which must hold SCALEUP_ANSWER_MAX + 1 bytes) holds the answer without
 * its '\n', NUL-terminated, and *linelen its length. Connect, write and read share one
 * deadline of timeout_ms. Returns SCALEUP_OK or a SCALEUP_E* code. */
int scaleupExchange(const char *path, const char *req, size_t reqlen, int timeout_ms, char *line,
                    size_t *linelen);

/* Connects to path and writes req[0..reqlen) within timeout_ms; on SCALEUP_OK *fd is the
 * connected, non-blocking socket (the caller closes it). */
int scaleupConnectAndSend(const char *path, const char *req, size_t reqlen, int timeout_ms, int *fd);

/* Reads one '\n'-terminated line from fd within timeout_ms, one byte at a time so that nothing after
 * the '\n' is consumed (a watch connection's next line stays in the socket). line holds
 * SCALEUP_ANSWER_MAX + 1 bytes; on SCALEUP_OK it is NUL-terminated without its '\n'. */
int scaleupReadLineExact(int fd, int timeout_ms, char *line, size_t *linelen);

#endif /* SCALEUP_IO_H */
