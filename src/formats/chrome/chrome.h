/*
 * chrome.h: what the Chrome trace reader (chrome_read.c, which holds the
 * format entry) and writer (chrome_write.c) share. docs/formats/chrome.md.
 */
#ifndef PROFKIT_CHROME_H
#define PROFKIT_CHROME_H

#include "formats/registry/format.h"

/* Writes p as a Chrome trace (chrome_write.c). */
int pk_chrome_write(const profkit_profile *p, pk_sink *k, const profkit_write_options *o,
                    profkit_error *err);

#endif
