/* Shared helpers of the profile unit tests (test_profile*.c). Tests run from
 * the repository root. */
#ifndef FAK_TEST_PROFILE_H
#define FAK_TEST_PROFILE_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "graph/graph.h"
#include "profile/profile.h"

#define TP_DIR "tests/fixtures/profiles/"

static inline void tp_graph(struct graph *g)
{
	struct err e;

	cr_assert_eq(graph_load_default(g, &e), 0, "%s", e.msg);
}

static inline void tp_load(struct profile *p, const char *name)
{
	char path[256];
	struct err e;

	snprintf(path, sizeof(path), TP_DIR "%s", name);
	cr_assert_eq(profile_load(p, path, &e), 0, "%s", e.msg);
}

/* Decode fixture `name` with the first occurrence of `from` replaced by
 * `to` (from NULL: unchanged). Returns profile_parse's result. */
static inline int tp_decode_edit(struct profile *p, const char *name, const char *from,
				 const char *to, struct err *e)
{
	char path[256];
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const char *at;
	struct err re;
	int rc;

	snprintf(path, sizeof(path), TP_DIR "%s", name);
	cr_assert_eq(file_read(path, PROFILE_MAX_BYTES, &in, &re), 0, "%s", re.msg);
	at = from ? strstr(in.buf, from) : NULL;
	cr_assert(!from || at, "'%s' does not occur in %s", from, name);
	if (at) {
		sb_add(&out, in.buf, (size_t)(at - in.buf));
		sb_adds(&out, to);
		sb_adds(&out, at + strlen(from));
	} else {
		sb_add(&out, in.buf, in.len);
	}
	rc = profile_parse(p, out.buf, out.len, name, e);
	sb_release(&in);
	sb_release(&out);
	return rc;
}

/* Every finding of validating p against g, one per line (caller frees). */
static inline char *tp_findings(const struct profile *p, const struct graph *g)
{
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;

	profile_validate(p, g, &f);
	sb_add(&sb, "", 0);	/* terminated even when there is no finding */
	for (size_t i = 0; i < f.nr; i++) {
		if (i)
			sb_addch(&sb, '\n');
		sb_adds(&sb, f.items[i]);
	}
	findings_release(&f);
	return sb_detach(&sb, NULL);
}

static inline void tp_expect_findings(const struct profile *p, const struct graph *g,
				      const char *want, const char *what)
{
	char *got = tp_findings(p, g);

	cr_expect_str_eq(got, want, "%s", what);
	free(got);
}

/* Pretty JSON text of doc (stolen; caller frees the text). */
static inline char *tp_json(json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;

	json_write_pretty(&sb, doc);
	json_decref(doc);
	return sb_detach(&sb, NULL);
}

/* The class name of a profile that must classify. */
static inline const char *tp_class(const struct profile *p, const struct graph *g)
{
	struct findings f = FINDINGS_INIT;
	struct profile_class c;
	struct err e = { { 0 } };
	int rc = profile_classify(p, g, &f, &c, &e);

	cr_assert_eq(rc, 0, "classification failed: %s%s", f.nr ? f.items[0] : "", e.msg);
	findings_release(&f);
	return c.rule->class_name;
}

#endif
