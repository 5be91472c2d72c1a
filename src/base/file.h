#ifndef FAK_BASE_FILE_H
#define FAK_BASE_FILE_H
/* Bounded reads and atomic writes. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/strbuf.h"

/* What a file that is not a regular file is, for a message: "folder",
 * "character device", "block device", "FIFO", "socket", "special file". */
const char *file_kind(mode_t m);

/* Largest input file any command reads unless it sets its own cap. */
#define FILE_CAP_DEFAULT ((size_t)256 << 20)

/* Read all of path ("-" = stdin) into out (reset first). More than cap bytes
 * fails with "'<path>' exceeds <cap> bytes". Works on pipes and endless
 * devices: it never reads past cap + 1 bytes. */
int file_read(const char *path, size_t cap, struct strbuf *out, struct err *e);

/* Checks, before any work starts, that file_write_atomic(path) can succeed
 * without costing the user anything. Symbolic links are followed (the
 * target is what gets written). Refused, with a message that says what to
 * do instead: an empty path; a target that exists and is not a regular
 * file (folder, character or block device, FIFO, socket); a path ending in
 * '/'; a symbolic link loop; a target folder that does not exist, is not a
 * folder, or cannot be written. A missing target is fine (it is created). */
int file_check_output(const char *path, struct err *e);

/* Write data to path atomically: every check of file_check_output, then a
 * temporary file with a short name (".fak-<pid>-XXXXXX") in the folder of the
 * resolved target, fchmod to mode, write, fsync, rename over the target,
 * fsync of the folder. A symbolic link is written through: the file it
 * leads to is replaced, the link stays. On failure nothing is left behind
 * and the target is untouched. */
int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e);

/* Removes from dir the temporary files of file_write_atomic that a killed
 * fak left: only fak's own (".fak-<pid>-XXXXXX", a regular file of this
 * user's) and only when process <pid> no longer exists, so a write in
 * progress is never disturbed. *removed gets how many went. Best effort:
 * a folder that cannot be read removes nothing. */
void file_sweep_temps(const char *dir, size_t *removed);

/* True when a and b name the same existing file (same device and inode,
 * symbolic links followed); "-" names standard input. False when either
 * cannot be examined. */
bool file_same(const char *a, const char *b);

#endif
