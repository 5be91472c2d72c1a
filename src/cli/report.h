#ifndef FAK_CLI_REPORT_H
#define FAK_CLI_REPORT_H
/* Printing results in the format the user chose (--format, --json), shared
 * by `fak native-performance` and `fak bench experiment`. */
#include <stdbool.h>
#include <stddef.h>

#include "render/report.h"

/* The format of --format NAME (NULL: not given) and --json: 0 with *fmt
 * set, or -1 with the usage message in why. */
int report_format(const char *name, bool json, enum render_format *fmt, char *why, size_t cap);

/* Fills ab->arms from two receipts (borrowed; they must outlive ab), with
 * their repetition rows (owned by ab: report_ab_release frees them). */
void report_ab_arms(struct render_ab *ab, const struct receipt *first, const char *first_name,
		    const struct receipt *candidate);
void report_ab_release(struct render_ab *ab);

/* Prints ab in fmt: text as render_text (for --compare the comparison
 * text, for --gate the verdict text), md and csv as their renderers; json
 * prints json_doc (borrowed). */
void report_print_ab(enum render_format fmt, const struct render_ab *ab,
		     void (*render_text)(struct strbuf *, const struct render_ab *),
		     const json_t *json_doc);

#endif
