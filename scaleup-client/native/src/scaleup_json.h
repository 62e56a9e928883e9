/* scaleup_json.h -- the little JSON libscaleup needs: a writer for flat request objects and a
 * reader for one answer object (string and integer fields, everything else skipped).
 *
 * Nothing here allocates: the writer fills a caller's buffer, the reader walks a caller's
 * NUL-free byte range and decodes strings into caller buffers. */
#ifndef SCALEUP_JSON_H
#define SCALEUP_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_OK 0
#define JSON_ERR (-1)

/* Writer: appends to buf[0..cap); once something does not fit, 'overflow' sticks. */
typedef struct jsonWriter {
    char *buf;
    size_t cap;
    size_t len;
    int overflow;
} jsonWriter;

void jsonWriterInit(jsonWriter *w, char *buf, size_t cap);
void jsonWriteRaw(jsonWriter *w, const char *s);
void jsonWriteString(jsonWriter *w, const char *s);
void jsonWriteInt(jsonWriter *w, int64_t v);
int jsonWriterFinish(jsonWriter *w);

/* Reader: a cursor over [p, end). */
typedef struct jsonReader {
    const char *p;
    const char *end;
} jsonReader;

/* Called once per member of the object with the cursor on the value; it must consume the
 * value (jsonReadString, jsonReadInt64 or jsonSkipValue) and return JSON_OK, or JSON_ERR
 * to stop. 'key' is NULL when the key was too long to be one the caller knows. */
typedef int jsonMemberFn(jsonReader *r, const char *key, void *ctx);

int jsonReadObject(jsonReader *r, jsonMemberFn *fn, void *ctx);
int jsonReadString(jsonReader *r, char *buf, size_t cap, size_t *len);
int jsonReadInt64(jsonReader *r, int64_t *v);
int jsonSkipValue(jsonReader *r);

#endif /* SCALEUP_JSON_H */
