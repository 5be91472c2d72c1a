/* Test driver: prints the RFC 8785 canonical form of each JSON file named
 * on the command line, one per line, so tests/cli/scripts/jcs-crosscheck.sh
 * can compare it with an independent implementation.
 *
 *   jcs FILE...      stops at the first file that does not parse (exit 1)
 *   jcs -k FILE...   keeps going: a file that does not parse prints a line
 *                    "!" and the reason instead (no canonical form starts
 *                    with "!"), so one process serves a whole folder */
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"

int main(int argc, char **argv)
{
	int keep_going = argc > 1 && !strcmp(argv[1], "-k");

	for (int i = 1 + keep_going; i < argc; i++) {
		struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
		struct err e;
		json_t *v = NULL;

		if (file_read(argv[i], FILE_CAP_DEFAULT, &in, &e) < 0 ||
		    !(v = json_parse_strict(in.buf, in.len, argv[i], &e)) ||
		    json_write_canonical(&out, v, &e) < 0) {
			if (!keep_going) {
				fprintf(stderr, "jcs: %s\n", e.msg);
				return 1;
			}
			printf("!%s\n", e.msg);
		} else {
			printf("%s\n", out.buf);
		}
		json_decref(v);
		sb_release(&in);
		sb_release(&out);
	}
	return fflush(stdout) ? 1 : 0;
}
