#ifndef FAK_BASE_FILE_H
#define FAK_BASE_FILE_H
/* Bounded reads and atomic writes. */
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/strbuf.h"

/* Largest input file any command reads unless it sets its own cap. */
#define FILE_CAP_DEFAULT ((size_t)256 << 20)

/* Read all of path ("-" = stdin) into out (reset first). More than cap bytes
 * fails with "'<path>' exceeds <cap> bytes". Works on pipes and endless
 * devices: it never reads past cap + 1 bytes. */
int file_read(const char *path, size_t cap, struct strbuf *out, struct err *e);

/* Write data to path atomically: a temporary file in the same folder, fsync,
 * chmod to mode, rename over path, fsync of the folder. On failure nothing
 * is left behind and path is untouched. */
int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e);

#endif
