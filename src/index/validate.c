/* Fail-closed validation of the performance index: the lifecycle and
 * readout rules of docs/frontdoor.md, "Validation (fail-closed, every
 * finding listed)". Every finding is collected,
 * then sorted byte-wise. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/dates.h"
#include "base/json.h"
#include "base/strmap.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "index/index.h"

void index_row_path(const struct index_row *r, struct strbuf *out)
{
	sb_addf(out, "%s[%zu]", r->table == INDEX_RESULTS ? "results" : "awaiting", r->pos);
}

/* "<prefix>: <message>" as one finding. */
static void __attribute__((format(printf, 3, 0)))
addv(struct findings *f, const struct strbuf *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	va_list cp;
	int n;
	char *msg;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("bad finding format '%s'", fmt);
	msg = xmalloc((size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	sb_add(&sb, prefix->buf, prefix->len);
	sb_adds(&sb, ": ");
	sb_adds(&sb, msg);
	free(msg);
	findings_add_owned(f, sb_detach(&sb, NULL));
}

/* Finding about one row: `results[3] "key": <message>`. */
static void __attribute__((format(printf, 3, 4)))
row_add(struct findings *f, const struct index_row *r, const char *fmt, ...)
{
	struct strbuf prefix = STRBUF_INIT;
	va_list ap;

	index_row_path(r, &prefix);
	sb_addch(&prefix, ' ');
	sb_add_quoted(&prefix, r->envelope_key);
	va_start(ap, fmt);
	addv(f, &prefix, fmt, ap);
	va_end(ap);
	sb_release(&prefix);
}

/* Finding about one readout record: `readout[1] (approximate): <message>`. */
static void __attribute__((format(printf, 3, 4)))
readout_add(struct findings *f, const struct index_readout *r, const char *fmt, ...)
{
	struct strbuf prefix = STRBUF_INIT;
	va_list ap;

	sb_addf(&prefix, "readout[%zu] (%s)", r->pos, index_class_name(r->cls));
	va_start(ap, fmt);
	addv(f, &prefix, fmt, ap);
	va_end(ap);
	sb_release(&prefix);
}

/* s in double quotes, escaped; valid until tmp is reused. */
static const char *quote(struct strbuf *tmp, const char *s)
{
	sb_reset(tmp);
	sb_add_quoted(tmp, s);
	return tmp->buf;
}

/* One envelope key, the form of a graph id: lowercase letters and digits
 * in runs joined by single '.', '_' or '-'. A list, a sum or a phrase is
 * several envelopes merged. */
static void check_key(struct findings *f, const char *where, const char *k)
{
	struct strbuf q = STRBUF_INIT;

	if (graph_id_problem(k))
		findings_addf(f,
			      "%s: envelope key %s is not a single key (lowercase letters and "
			      "digits joined by '.', '_' or '-'); different envelopes need "
			      "different rows",
			      where, quote(&q, k));
	sb_release(&q);
}

static void check_dates(struct findings *f, const struct index_row *r)
{
	const char *lc = index_lifecycle_name(r->lifecycle);
	char a[11], b[11];

	if (r->observed == INDEX_NO_DATE)
		row_add(f, r, "%s row has no observed date", lc);
	if (r->review_by == INDEX_NO_DATE && !r->retention)
		row_add(f, r, "%s row has neither a review-by date nor a durable retention reason",
			lc);
	if (r->review_by != INDEX_NO_DATE && r->retention)
		row_add(f, r, "has both a review-by date and a durable retention reason; keep one");
	if (r->review_by != INDEX_NO_DATE && r->observed != INDEX_NO_DATE &&
	    r->review_by < r->observed) {
		date_format(r->review_by, a);
		date_format(r->observed, b);
		row_add(f, r, "review-by date %s is before observed date %s", a, b);
	}
	if (r->review_by != INDEX_NO_DATE && r->at_review == INDEX_AT_REVIEW_UNSET)
		row_add(f, r, "has a review-by date but no at_review (\"remove\" or \"retain\")");
	if (r->review_by == INDEX_NO_DATE && r->at_review != INDEX_AT_REVIEW_UNSET)
		row_add(f, r, "at_review needs a review-by date");
	if (r->at_review == INDEX_AT_REVIEW_RETAIN && !r->retain_reason)
		row_add(f, r, "at_review \"retain\" needs a retain_reason");
	if (r->retain_reason && r->at_review != INDEX_AT_REVIEW_RETAIN)
		row_add(f, r, "retain_reason goes with at_review \"retain\"");
}

enum { ID_MODEL, ID_ARTIFACT, ID_ENGINE, ID_HARDWARE, ID_METRIC, NR_ID };
static const char *const id_names[NR_ID] = { "model", "artifact/precision", "engine", "hardware",
					     "metric" };

static void identity(const struct index_row *r, const char *out[NR_ID])
{
	out[ID_MODEL] = r->model;
	out[ID_ARTIFACT] = r->artifact;
	out[ID_ENGINE] = r->engine;
	out[ID_HARDWARE] = r->hardware;
	out[ID_METRIC] = r->metric;
}

static void check_row(struct findings *f, const struct index_row *r)
{
	struct strbuf where = STRBUF_INIT;
	const char *id[NR_ID];

	if (r->table == INDEX_RESULTS && r->lifecycle == INDEX_AWAITING_REMEASURE)
		row_add(f, r, "lifecycle AWAITING REMEASURE belongs in the awaiting table");
	if (r->table == INDEX_AWAITING &&
	    (r->lifecycle == INDEX_CURRENT || r->lifecycle == INDEX_DIAGNOSTIC))
		row_add(f, r, "lifecycle %s belongs in the results table",
			index_lifecycle_name(r->lifecycle));
	index_row_path(r, &where);
	check_key(f, where.buf, r->envelope_key);
	sb_release(&where);
	check_dates(f, r);
	if (r->lifecycle == INDEX_CURRENT) {
		identity(r, id);
		for (int i = 0; i < NR_ID; i++)
			if (!id[i])
				row_add(f, r, "CURRENT row does not name its %s", id_names[i]);
		if (r->quality != INDEX_QUALITY_PASS)
			row_add(f, r, "CURRENT row must be quality-passing, found quality \"%s\"",
				index_quality_name(r->quality));
	}
	if (r->quotes_gain && r->quality == INDEX_QUALITY_FAIL)
		row_add(f, r, "quotes a gain although its quality failed");
	/* A result quoting a gain is a claim: only passing quality backs it. An
	 * awaiting row is by definition not yet quality-measured end to end; it
	 * may cite a candidate's microbenchmark gain while unmeasured. */
	if (r->quotes_gain && r->quality == INDEX_QUALITY_UNMEASURED && r->table == INDEX_RESULTS)
		row_add(f, r,
			"quotes a gain although its quality is unmeasured; only a quality-passing "
			"result may quote a gain");
}

/* Per envelope key: how many CURRENT rows, and for each identity field the
 * first row that states it. */
struct key_group {
	const char *key;
	size_t nr_current;
	const struct index_row *first_current, *stated[NR_ID];
	struct strbuf current_paths;
};

static void check_keys(struct findings *f, const struct index *idx)
{
	struct strmap map = STRMAP_INIT;
	struct key_group *groups = xcalloc(idx->nr_rows + 1, sizeof(*groups));
	struct strbuf q = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT, pa = STRBUF_INIT,
		      pb = STRBUF_INIT;
	size_t nr = 0;

	for (size_t i = 0; i < idx->nr_rows; i++) {
		const struct index_row *r = &idx->rows[i];
		struct key_group *g;
		const char *id[NR_ID];
		size_t gi;

		if (!strmap_get(&map, r->envelope_key, &gi)) {
			gi = nr++;
			groups[gi].key = r->envelope_key;
			strmap_put(&map, r->envelope_key, gi, NULL);
		}
		g = &groups[gi];
		if (r->lifecycle == INDEX_CURRENT) {
			g->nr_current++;
			sb_adds(&g->current_paths, g->current_paths.len ? ", " : "");
			index_row_path(r, &g->current_paths);
		}
		identity(r, id);
		for (int k = 0; k < NR_ID; k++) {
			const struct index_row *o = g->stated[k];
			const char *oid[NR_ID];

			if (!id[k])
				continue;
			if (!o) {
				g->stated[k] = r;
				continue;
			}
			identity(o, oid);
			if (!strcmp(oid[k], id[k]))
				continue;
			sb_reset(&pa);
			sb_reset(&pb);
			index_row_path(o, &pa);
			index_row_path(r, &pb);
			sb_reset(&a);
			sb_add_quoted(&a, oid[k]);
			sb_reset(&b);
			sb_add_quoted(&b, id[k]);
			findings_addf(f,
				      "envelope key %s merges different envelopes: %s and %s "
				      "differ in %s (%s vs %s)",
				      quote(&q, g->key), pa.buf, pb.buf, id_names[k], a.buf, b.buf);
		}
	}
	for (size_t i = 0; i < nr; i++) {
		if (groups[i].nr_current > 1)
			findings_addf(f,
				      "envelope key %s has %zu CURRENT rows (%s); at most one is "
				      "allowed",
				      quote(&q, groups[i].key), groups[i].nr_current,
				      groups[i].current_paths.buf);
		sb_release(&groups[i].current_paths);
	}
	free(groups);
	strmap_release(&map);
	sb_release(&q);
	sb_release(&a);
	sb_release(&b);
	sb_release(&pa);
	sb_release(&pb);
}

static const struct rung *find_rung(const struct graph *g, const char *id)
{
	for (size_t i = 0; i < g->nr_rungs; i++)
		if (!strcmp(g->rungs[i].id, id))
			return &g->rungs[i];
	return NULL;
}

/* docs/frontdoor.md, "Validation", readout: the approximate pair is the rung's witness and
 * the graph's comparison point, sharing provenance and observation date. */
static void resolve(struct findings *f, struct index_readout *r, const struct graph *g)
{
	struct strbuf q = STRBUF_INIT;
	const struct rung *rung = find_rung(g, r->graph_rung);
	struct err e;

	if (!rung || !rung->has_witnessed || strcmp(rung->witnessed.classification, "witnessed") ||
	    strcmp(g->comparison.classification, "comparison")) {
		readout_add(f, r,
			    "graph lacks the witnessed baseline/comparison pair; restore rung %s "
			    "with a witnessed throughput and the comparison classification "
			    "\"comparison\"",
			    quote(&q, r->graph_rung));
		sb_release(&q);
		return;
	}
	if (strcmp(rung->witnessed.provenance, g->comparison.provenance) ||
	    strcmp(rung->witnessed.observed_on, g->comparison.observed_on))
		readout_add(f, r,
			    "rung %s witness and the graph comparison differ in provenance or "
			    "observed_on; use one shared value for both",
			    quote(&q, r->graph_rung));
	if (date_parse(rung->witnessed.observed_on, &r->observed, &e) < 0)
		readout_add(f, r, "rung %s witness: %s", quote(&q, r->graph_rung), e.msg);
	if (!(g->comparison.tokens_per_second > 0) || !(rung->witnessed.tokens_per_second > 0))
		readout_add(f, r,
			    "rung %s witness and the graph comparison need positive throughput",
			    quote(&q, r->graph_rung));
	r->envelope_id = g->envelope.id;
	r->native_tps = rung->witnessed.tokens_per_second;
	r->baseline_tps = g->comparison.tokens_per_second;
	r->provenance = rung->witnessed.provenance;
	{
		/* it lands on the page like any row text (a --graph is outside input) */
		struct strbuf why = STRBUF_INIT;

		if (!str_scrubbed(r->provenance, &why))
			readout_add(f, r,
				    "rung %s witness provenance contains a private detail: %s",
				    quote(&q, r->graph_rung), why.buf);
		sb_release(&why);
	}
	sb_release(&q);
}

/* A passing readout quality starts with the word "PASS". */
static bool passing_quality(const char *q)
{
	return !strncmp(q, "PASS", 4) && !((q[4] >= 'A' && q[4] <= 'Z') ||
					   (q[4] >= 'a' && q[4] <= 'z') ||
					   (q[4] >= '0' && q[4] <= '9') || q[4] == '_');
}

static void check_readout(struct findings *f, struct index_readout *r, const struct graph *g)
{
	struct strbuf where = STRBUF_INIT;
	char a[11], b[11], x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];

	if (r->graph_rung) {
		static const char *const derived[] = { "envelope_id", "native_tokens_per_second",
						       "native_floor_tokens_per_second",
						       "observed_on", "provenance" };
		const bool stated[] = { r->envelope_id, r->has_native, r->has_floor,
					r->observed != INDEX_NO_DATE, r->provenance };

		struct strbuf q = STRBUF_INIT;
		bool any = false;

		for (size_t i = 0; i < sizeof(stated) / sizeof(stated[0]); i++) {
			if (!stated[i])
				continue;
			readout_add(f, r, "%s comes from graph rung %s; remove it", derived[i],
				    quote(&q, r->graph_rung));
			any = true;
		}
		sb_release(&q);
		if (any)
			return;
		resolve(f, r, g);
	} else {
		if (!r->envelope_id)
			readout_add(f, r, "has no envelope_id (or graph_rung)");
		if (!r->has_native)
			readout_add(f, r, "has no native_tokens_per_second (or graph_rung)");
		if (r->observed == INDEX_NO_DATE)
			readout_add(f, r, "has no observed_on (or graph_rung)");
		if (!r->provenance)
			readout_add(f, r, "has no provenance (or graph_rung)");
	}
	if (r->has_native && !(r->native_tps > 0)) {
		json_format_double(x, r->native_tps);
		readout_add(f, r, "native_tokens_per_second must be positive, found %s", x);
	}
	if (r->has_floor &&
	    (!(r->floor_tps > 0) || (r->has_native && r->floor_tps > r->native_tps))) {
		json_format_double(x, r->floor_tps);
		json_format_double(y, r->native_tps);
		readout_add(f, r,
			    "native_floor_tokens_per_second %s must be positive and not above "
			    "native_tokens_per_second %s",
			    x, y);
	}
	if (r->cls == INDEX_CLASS_ACCEPTED && !passing_quality(r->quality)) {
		struct strbuf q = STRBUF_INIT;

		readout_add(f, r,
			    "an accepted record needs a passing quality (starting with \"PASS\"), "
			    "found %s",
			    quote(&q, r->quality));
		sb_release(&q);
	}
	if (r->observed != INDEX_NO_DATE && r->review_by < r->observed) {
		date_format(r->review_by, a);
		date_format(r->observed, b);
		readout_add(f, r, "review-by date %s is before observed date %s", a, b);
	}
	if (r->envelope_id) {
		sb_addf(&where, "readout[%zu] (%s)", r->pos, index_class_name(r->cls));
		check_key(f, where.buf, r->envelope_id);
	}
	sb_release(&where);
}

void index_validate(struct index *idx, const struct graph *g, struct findings *out)
{
	size_t per_class[3] = { 0 };

	for (size_t i = 0; i < idx->nr_readout; i++) {
		check_readout(out, &idx->readout[i], g);
		per_class[idx->readout[i].cls]++;
	}
	for (int c = 0; c < 3; c++)
		if (per_class[c] > 1)
			findings_addf(out, "readout has %zu %s records; at most one is allowed",
				      per_class[c], index_class_name((enum index_class)c));
	for (size_t i = 0; i < idx->nr_rows; i++)
		check_row(out, &idx->rows[i]);
	check_keys(out, idx);
	findings_sort(out);
}
