/* Shared helpers of the performance-index unit tests (test_index*.c).
 * Tests run from the repository root. */
#ifndef FAK_TEST_INDEX_H
#define FAK_TEST_INDEX_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/dates.h"
#include "base/findings.h"
#include "graph/graph.h"
#include "index/index.h"

#define TI_DIR "tests/fixtures/index/"

static inline long ti_day(const char *s)
{
	struct err e;
	long d = 0;

	cr_assert_eq(date_parse(s, &d, &e), 0, "%s", e.msg);
	return d;
}

static inline void ti_graph(struct graph *g)
{
	struct err e;

	cr_assert_eq(graph_load_default(g, &e), 0, "%s", e.msg);
}

/* Loads fixture name (NULL: the committed default) and validates it
 * against g; findings go to f. */
static inline void ti_load(struct index *idx, const char *name, const struct graph *g,
			   struct findings *f)
{
	char path[256];
	struct err e;
	int rc;

	if (name) {
		snprintf(path, sizeof(path), TI_DIR "%s", name);
		rc = index_load_file(idx, path, &e);
	} else {
		rc = index_load_default(idx, &e);
	}
	cr_assert_eq(rc, 0, "%s", e.msg);
	index_validate(idx, g, f);
}

/* Loads and validates a fixture that must be valid. */
static inline void ti_valid(struct index *idx, const char *name, const struct graph *g)
{
	struct findings f = FINDINGS_INIT;

	ti_load(idx, name, g, &f);
	cr_assert_eq(f.nr, 0, "%s: %zu findings, first: %s", name ? name : "default", f.nr,
		     f.nr ? f.items[0] : "");
	findings_release(&f);
}

#endif
