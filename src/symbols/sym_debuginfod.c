/* sym_debuginfod.c: executables by build id from debuginfod servers
 * (sym_debuginfod.h), through libdebuginfod. */
#include "symbols/sym_debuginfod.h"

#include <elfutils/debuginfod.h>
#include <stdlib.h>
#include <unistd.h>

struct pk_debuginfod {
    debuginfod_client *c; /* NULL when debuginfod_begin failed: not tried again */
};

int pk_debuginfod_find(pk_debuginfod **client, const char *bid, char **path, profkit_error *err)
{
    *path = NULL;
    if (!*client) {
        if (!(*client = calloc(1, sizeof(**client))))
            return 0;
        (*client)->c = debuginfod_begin();
    }
    if (!(*client)->c)
        return 0;
    int fd = debuginfod_find_executable((*client)->c, (const unsigned char *)bid, 0, path);
    if (fd < 0) {
        free(*path);
        *path = NULL;
        return 0;
    }
    close(fd);
    return 0;
}

void pk_debuginfod_end(pk_debuginfod *client)
{
    if (!client)
        return;
    if (client->c)
        debuginfod_end(client->c);
    free(client);
}
