/* Helpers shared by the receipt and gate unit tests (header-only: each test
 * file includes it once). Fixtures are read relative to the repository root,
 * where tests/run.sh starts the unit binary. */
#ifndef FAK_TEST_RECEIPT_UTIL_H
#define FAK_TEST_RECEIPT_UTIL_H
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "graph/graph.h"
#include "receipt/receipt.h"

static inline void tu_graph(struct graph *g)
{
	struct err e;
	struct findings f = FINDINGS_INIT;

	cr_assert_eq(graph_load_default(g, &e), 0, "%s", e.msg);
	graph_validate(g, &f);
	cr_assert_eq(f.nr, 0, "default graph invalid");
	findings_release(&f);
}

/* New reference to the parsed fixture. */
static inline json_t *tu_json(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	json_t *v;

	cr_assert_eq(file_read(path, (size_t)64 << 20, &sb, &e), 0, "%s", e.msg);
	v = json_parse_strict(sb_str(&sb), sb.len, path, &e);
	cr_assert_not_null(v, "%s", e.msg);
	sb_release(&sb);
	return v;
}

/* Set (steals v) the member at a dotted path such as
 * "candidate.repetitions.0.tokens_per_second"; numeric parts index arrays. */
static inline void tu_set(json_t *doc, const char *path, json_t *v)
{
	char *p = strdup(path), *save = NULL, *tok, *next;
	json_t *o = doc;

	tok = strtok_r(p, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		o = json_is_array(o) ? json_array_get(o, strtoul(tok, NULL, 10))
				     : json_object_get(o, tok);
		cr_assert_not_null(o, "no '%s' in %s", tok, path);
		tok = next;
	}
	if (json_is_array(o))
		cr_assert_eq(json_array_set_new(o, strtoul(tok, NULL, 10), v), 0);
	else
		cr_assert_eq(json_object_set_new(o, tok, v), 0);
	free(p);
}

static inline json_t *tu_get(json_t *doc, const char *path)
{
	char *p = strdup(path), *save = NULL, *tok;
	json_t *o = doc;

	for (tok = strtok_r(p, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
		o = json_is_array(o) ? json_array_get(o, strtoul(tok, NULL, 10))
				     : json_object_get(o, tok);
	free(p);
	return o;
}

/* Findings joined by '\n' for exact comparison (caller frees). */
static inline char *tu_join(const struct findings *f)
{
	struct strbuf sb = STRBUF_INIT;

	char *s;

	for (size_t i = 0; i < f->nr; i++)
		sb_addf(&sb, "%s%s", i ? "\n" : "", f->items[i]);
	s = strdup(sb_str(&sb));
	sb_release(&sb);
	return s;
}

/* Decode doc (borrowed) as a receipt and validate it against the default
 * graph; the findings joined (caller frees). */
static inline char *tu_validate(json_t *doc)
{
	struct graph g;
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	struct err e;
	char *s;

	tu_graph(&g);
	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	receipt_validate(&r, &g, 0, &f);
	s = tu_join(&f);
	findings_release(&f);
	receipt_release(&r);
	graph_release(&g);
	return s;
}

#endif
