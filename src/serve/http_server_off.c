/*
 * http_server_off.c: compiled instead of http_server.c when the library is
 * built without the local web server (PROFKIT_WITH_SERVER off, or no
 * libmicrohttpd). No server starts: profkit_server_start returns
 * PROFKIT_EUNSUPPORTED with a message saying how to get the part; the other
 * calls, which need a server, do nothing.
 */
#include "profkit.h"

#include "serve/serve.h"
#include "util/util.h"

int profkit_server_start(profkit_server **out, const profkit_server_options *o, profkit_error *err)
{
    if (out)
        *out = NULL;
    return pk_part_check(PK_PART_SERVER, err);
}

int profkit_server_set(profkit_server *s, const char *name, const char *content_type, const void *data,
                       size_t size, profkit_error *err)
{
    return pk_part_check(PK_PART_SERVER, err);
}

unsigned profkit_server_port(const profkit_server *s) { return 0; }

const char *profkit_server_token(const profkit_server *s) { return ""; }

const char *profkit_server_url(const profkit_server *s) { return ""; }

void profkit_server_stop(profkit_server *s) {}

int pk_server_start_api(profkit_server **out, const pk_server_api *o, profkit_error *err)
{
    if (out)
        *out = NULL;
    return pk_part_check(PK_PART_SERVER, err);
}

const char *pk_http_arg(const pk_http_request *rq, const char *key) { return NULL; }

const char *pk_http_header(const pk_http_request *rq, const char *name) { return NULL; }

int pk_server_start_page_api(profkit_server **out, const profkit_server_options *o,
                             pk_http_handler handler, void *payload, profkit_error *err)
{
    (void)o, (void)handler, (void)payload;
    *out = NULL;
    return pk_part_check(PK_PART_SERVER, err);
}

size_t pk_http_args(const pk_http_request *rq, const char *key, const char **out, size_t max)
{
    (void)rq, (void)key, (void)out, (void)max;
    return 0;
}
