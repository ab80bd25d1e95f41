/*
 * firefox.h: the processed Firefox Profiler format (profiler.firefox.com).
 * Reading is in firefox.c; writing in firefox_write.c.
 */
#ifndef PROFKIT_FIREFOX_H
#define PROFKIT_FIREFOX_H
#include "formats/registry/format.h"

/*
 * Writes p as a processed profile that the Firefox Profiler opens.
 * Returns 0 or a PROFKIT_E* code with err filled.
 */
int pk_firefox_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o, profkit_error *err);

#endif
