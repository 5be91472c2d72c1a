/* Test driver: udiff OLD NEW NAME prints our unified diff of two files, for
 * tests/cli/scripts/diff-patch.sh (GNU patch must apply it). */
#include <stdio.h>

#include "base/diff.h"
#include "base/file.h"

int main(int argc, char **argv)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, out = STRBUF_INIT;
	struct err e;

	if (argc != 4) {
		fputs("usage: udiff OLD NEW NAME\n", stderr);
		return 2;
	}
	if (file_read(argv[1], FILE_CAP_DEFAULT, &a, &e) < 0 ||
	    file_read(argv[2], FILE_CAP_DEFAULT, &b, &e) < 0) {
		fprintf(stderr, "udiff: %s\n", e.msg);
		return 1;
	}
	diff_unified(sb_str(&a), a.len, sb_str(&b), b.len, argv[3], &out);
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	sb_release(&a);
	sb_release(&b);
	sb_release(&out);
	return 0;
}
