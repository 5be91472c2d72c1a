#ifndef FAK_BASE_DIFF_H
#define FAK_BASE_DIFF_H
/* Unified diff of two texts, line by line (Myers' O(ND) algorithm), in the
 * format `diff -u` writes and `patch` reads: "--- a/NAME", "+++ b/NAME",
 * hunks "@@ -l,n +l,n @@" with three lines of context. A last line without
 * a line break is marked "\ No newline at end of file". */
#include <stddef.h>

#include "base/strbuf.h"

/* Appends the diff of a (old) and b (new) to out; nothing when they are
 * equal. Returns the number of hunks. */
size_t diff_unified(const char *a, size_t alen, const char *b, size_t blen, const char *name,
		    struct strbuf *out);

#endif
