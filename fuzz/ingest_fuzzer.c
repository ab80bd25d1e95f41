/* ingest_fuzzer.c: what `store serve` parses of a push before a reader
 * sees the body (src/store/store_serve.c): the name=APP{K=V,...} labels
 * and the part "profile" of a multipart/form-data body. The input is
 * "CONTENT-TYPE\nNAME\nBODY". Any outcome but a crash or a sanitizer
 * report is fine; a part found must lie inside the body. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *d = (const char *)data;
    const char *nl1 = memchr(d, '\n', size);
    if (!nl1)
        return 0;
    const char *nl2 = memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - d));
    if (!nl2)
        return 0;
    char *ctype = strndup(d, (size_t)(nl1 - d));
    char *name = strndup(nl1 + 1, (size_t)(nl2 - nl1 - 1));
    size_t blen = size - (size_t)(nl2 + 1 - d);
    char *body = malloc(blen ? blen : 1); /* an exact-size copy: ASan sees overreads */
    if (ctype && name && body) {
        memcpy(body, nl2 + 1, blen);
        profkit_error err;
        size_t n;
        pk_store_name_labels(name, &n, &err);
        const char *part;
        size_t plen;
        if (pk_store_multipart_part(ctype, body, blen, "profile", &part, &plen) == 0 &&
            (part < body || part + plen > body + blen))
            abort();
    }
    free(ctype);
    free(name);
    free(body);
    return 0;
}
