/*
 * v8_callframe.c: a V8 cpuProfile node's callFrame as a model frame, shared
 * by the `.cpuprofile` and Chrome trace readers (v8_callframe.h).
 */
#include "formats/chrome/v8_callframe.h"

#include <string.h>

int pk_v8_is_root(const profkit_profile *p, uint32_t name)
{
    return strcmp(pk_str(p, name), "(root)") == 0;
}

uint32_t pk_v8_callframe_frame(profkit_profile *p, uint32_t name, uint32_t url, int64_t line,
                               int64_t col)
{
    uint32_t l = line >= 0 && line < UINT32_MAX - 1 ? (uint32_t)line + 1 : 0;
    uint32_t c = col >= 0 && col < UINT32_MAX - 1 ? (uint32_t)col + 1 : 0;
    profkit_function f = { 0, 0, url, 0, l };
    f.name = pk_str(p, name)[0] ? name : profkit_string_intern_cstr(p, "(anonymous)");
    if (f.name == PROFKIT_NONE)
        return PROFKIT_NONE;
    uint32_t fn = pk_function_add(p, &f);
    if (fn == PROFKIT_NONE)
        return PROFKIT_NONE;
    profkit_frame fr = { 0, fn, l, c, PROFKIT_NONE, 0, 0, 0, 0 };
    return pk_frame_add(p, &fr);
}
