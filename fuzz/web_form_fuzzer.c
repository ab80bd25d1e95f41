/* web_form_fuzzer.c: the form body of a POST to the store browser's API
 * (src/store/store_web.c, pk_store_form_parse). Any outcome but a crash or
 * a sanitizer report is fine; every key and value must lie inside the
 * buffer, NUL-terminated there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size)) /* the server refuses a body with a NUL first */
        return 0;
    char *text = malloc(size + 1); /* an exact-size copy: ASan sees overreads */
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    const char *k[8], *v[8];
    size_t n;
    if (pk_store_form_parse(text, k, v, 8, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            if (k[i] < text || k[i] + strlen(k[i]) > text + size)
                abort();
            if (*v[i] && (v[i] < text || v[i] + strlen(v[i]) > text + size))
                abort();
        }
    }
    free(text);
    return 0;
}
