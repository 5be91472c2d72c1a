/* Test driver: prints the RFC 8785 canonical form of each JSON file named
 * on the command line, one per line, so tests/cli/scripts/jcs-crosscheck.sh
 * can compare it with an independent implementation. */
#include <stdio.h>

#include "base/file.h"
#include "base/json.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
		struct err e;
		json_t *v;

		if (file_read(argv[i], FILE_CAP_DEFAULT, &in, &e) < 0 ||
		    !(v = json_parse_strict(in.buf, in.len, argv[i], &e)) ||
		    json_write_canonical(&out, v, &e) < 0) {
			fprintf(stderr, "jcs: %s\n", e.msg);
			return 1;
		}
		printf("%s\n", out.buf);
		json_decref(v);
		sb_release(&in);
		sb_release(&out);
	}
	return fflush(stdout) ? 1 : 0;
}
