/*
 * v8_callframe.h: the frame of a V8 cpuProfile node, as the `.cpuprofile`
 * reader (v8_cpuprofile.c) and the Chrome trace reader (chrome/) both
 * read it: a node's callFrame (functionName, url, 0-based lineNumber and
 * columnNumber, -1 = unknown) becomes one function and one frame of the
 * model, and the tree's "(root)" node stands for the root stack.
 */
#ifndef PROFKIT_V8_CALLFRAME_H
#define PROFKIT_V8_CALLFRAME_H

#include "model/model.h"

/* Whether a node named `name` (a string id) without a parent is V8's
 * "(root)" node, which is the model's root stack rather than a frame. */
int pk_v8_is_root(const profkit_profile *p, uint32_t name);

/*
 * The model frame of a callFrame: function (name, or "(anonymous)" when
 * empty; file = url; definition line = the 1-based line) and the frame at
 * the 1-based line and column. line and col are 0-based, -1 = unknown.
 * Returns the frame id or PROFKIT_NONE when out of memory.
 */
uint32_t pk_v8_callframe_frame(profkit_profile *p, uint32_t name, uint32_t url, int64_t line,
                               int64_t col);

#endif
