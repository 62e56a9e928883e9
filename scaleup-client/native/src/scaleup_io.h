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

#endif /* SCALEUP_IO_H */
