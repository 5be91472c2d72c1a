/* Graphs written by fak for a new engine (docs/graph.md, "Graphs written by
 * fak"): --new-graph creates a graph (and with --index its front-door
 * index), --add-envelope and --add-lever add to one from flags. Each builds
 * the whole new graph, loads and validates it as any later command will,
 * writes it atomically in the one layout of `--json` (so that a later
 * change of one lever is a diff of that lever's lines) and prints what it
 * wrote as a unified diff. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diff.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/serving_metric.h"
#include "base/text.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "experiment/experiment.h"
#include "index/index.h"
#include "platform/platform.h"
#include "serve/trace.h"

#define INDEX_SCHEMA "fak-performance-index/v1"

/* The documented defaults of a new envelope and its criterion
 * (docs/graph.md, "Graphs written by fak"). */
#define NEW_REPETITIONS "5"
#define NEW_WARMUPS "1"
#define NEW_BACKEND "cpu"
#define NEW_UNSPECIFIED "unspecified"

/* ---- values from flags ----------------------------------------------- */

/* A usage error naming the flag: "--FLAG 'V': why". */
static int bad_flag(const char *flag, const char *value, const char *why)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "--%s '%s': %s", flag, value, why);
	return cmd_usage_error(NP_CMD, &np_spec, msg);
}

/* A whole decimal integer in [min, max] into *out, else a usage error. */
static int int_flag(const char *flag, const char *s, long long min, long long max,
		    long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		char why[128];

		snprintf(why, sizeof(why), "want a whole number from %lld to %lld", min, max);
		return bad_flag(flag, s, why);
	}
	*out = v;
	return 0;
}

/* A finite number into *out, else -1. */
static int parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

/* Every value given on the command line but a file name goes into the graph
 * or the index, which are UTF-8 text a person reads: refused otherwise,
 * naming the flag. */
static int check_values(const struct np_opts *o)
{
	struct strbuf why = STRBUF_INIT;
	int rc = 0;

	for (const struct opt *x = np_spec.opts; x->name && !rc; x++) {
		const char *const *v = NULL;
		size_t n = 0;

		if (x->arg && !strcmp(x->arg, "FILE"))	/* a path: not written anywhere */
			continue;
		if (x->kind == OPT_KIND_VALUE) {
			v = (const char *const *)(const void *)((const char *)o + x->off);
			n = *v != NULL;
		} else if (x->kind == OPT_KIND_LIST) {
			const struct optlist *l =
				(const struct optlist *)(const void *)((const char *)o + x->off);

			v = l->v;
			n = l->n;
		}
		for (size_t i = 0; i < n && !rc; i++)
			if (!str_printable(v[i], "", &why)) {
				/* the value itself is not shown: it is not text */
				char msg[256];

				snprintf(msg, sizeof(msg), "--%s: %s; give UTF-8 text without "
					 "control characters", x->name, why.buf);
				rc = cmd_usage_error(NP_CMD, &np_spec, msg);
			}
	}
	sb_release(&why);
	return rc;
}

/* --required-evidence: "none", or a comma-separated list of
 * profiler_artifacts and module_versions (the graph validates the names). */
static json_t *evidence_json(const char *s)
{
	json_t *a = jarr();
	const char *p = s;

	if (!strcmp(s, "none"))
		return a;
	while (*p) {
		size_t n = strcspn(p, ",");

		jpush_new(a, json_stringn(p, n));
		p += n + (p[n] == ',');
	}
	return a;
}

/* --host-policy CPU,DUTY,PSI: the criterion's three sampler ceilings. */
static json_t *host_policy_json(const char *s)
{
	static const char *const keys[] = { "maximum_non_sut_cpu_percent",
					    "maximum_sampler_duty_percent",
					    "maximum_psi_stall_percent" };
	json_t *h = jobj();
	const char *p = s;

	for (size_t i = 0; i < 3; i++) {
		size_t n = strcspn(p, ",");
		char part[64];
		double v;

		if (n >= sizeof(part) || (i < 2 && p[n] != ',') || (i == 2 && p[n]))
			break;
		memcpy(part, p, n);
		part[n] = '\0';
		if (parse_num(part, &v) < 0)
			break;
		jset_num(h, keys[i], v);
		p += n + (i < 2);
	}
	if (json_object_size(h) == 3)
		return h;
	json_decref(h);
	return NULL;
}

/* Members --set may not change: fak computes or derives them, or another
 * flag or command owns them. */
static const char *const set_refused[] = {
	"id", "artifact_sha256", "applicability", "enabled", "witnessed", "criterion.schema",
	"expected.classification", "serving", NULL,
};

/* --set KEY=VALUE on root: KEY names a member already there (a dotted path
 * into nested objects); VALUE is read as that member's type (string,
 * integer, number, true/false). what names root in messages. 0, or the
 * exit code of the usage error it printed. */
static int set_member(json_t *root, const char *what, const char *kv)
{
	const char *eq = strchr(kv, '='), *val = eq ? eq + 1 : NULL;
	char key[256], *dot, *part;
	json_t *obj = root, *cur, *nv = NULL;
	double d;
	long long n;
	char *end;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		return bad_flag("set", kv, "want KEY=VALUE, a member of the graph's JSON");
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	for (size_t i = 0; set_refused[i]; i++) {
		size_t len = strlen(set_refused[i]);

		if (!strncmp(key, set_refused[i], len) && (!key[len] || key[len] == '.'))
			return bad_flag("set", kv, "fak writes this member itself; see --help");
	}
	for (part = key; (dot = strchr(part, '.')); part = dot + 1) {
		*dot = '\0';
		obj = json_object_get(obj, part);
		*dot = '.';
		if (!json_is_object(obj))
			break;
	}
	cur = json_is_object(obj) ? json_object_get(obj, part) : NULL;
	if (!cur) {
		char why[320];

		snprintf(why, sizeof(why), "%s has no member '%s' (see docs/graph.md)", what, key);
		return bad_flag("set", kv, why);
	}
	if (json_is_string(cur)) {
		nv = json_string(val);
	} else if (json_is_integer(cur)) {
		errno = 0;
		n = strtoll(val, &end, 10);
		if (!errno && end != val && !*end)
			nv = json_integer(n);
	} else if (json_is_real(cur)) {
		if (parse_num(val, &d) == 0)
			nv = json_real(d);
	} else if (json_is_boolean(cur) && (!strcmp(val, "true") || !strcmp(val, "false"))) {
		nv = json_boolean(!strcmp(val, "true"));
	} else if (json_is_boolean(cur)) {
		return bad_flag("set", kv, "want true or false");
	} else {
		return bad_flag("set", kv, "this member is not a string, number or boolean; "
			       "it has a flag of its own (see --help)");
	}
	if (!nv)	/* a string that is not UTF-8, or a malformed number */
		return bad_flag("set", kv, json_is_string(cur) ? "want UTF-8 text"
			       : json_is_integer(cur) ? "want a whole number" : "want a number");
	json_object_set_new(obj, part, nv);
	return 0;
}

static int set_members(json_t *root, const char *what, const struct optlist *sets)
{
	for (size_t i = 0; i < sets->n; i++)
		if (set_member(root, what, sets->v[i]))
			return -1;
	return 0;
}

/* ---- writing a graph ----------------------------------------------------- */

/* Refuses to create path when something is there already: --new-graph never
 * replaces a file. */
static int check_new(const char *flag, const char *path)
{
	struct stat st;
	struct err e;

	if (!strcmp(path, "-")) {
		cli_errorf(NP_CMD, "--%s needs a file, not '-'", flag);
		return EXIT_USAGE;
	}
	if (lstat(path, &st) == 0) {
		cli_errorf(NP_CMD, "--%s '%s': the file exists; fak creates a graph and its index "
			   "only where there is none: remove it or choose another name", flag,
			   path);
		return EXIT_FAIL;
	}
	if (file_check_output(path, &e) < 0) {
		cli_errorf(NP_CMD, "--%s: %s", flag, e.msg);
		return EXIT_FAIL;
	}
	return 0;
}

/* The graph document doc (stolen) as fak writes it: loaded and validated as
 * a whole, then in --json's layout, into out. The findings are printed. */
static int graph_text(json_t *doc, const char *path, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;
	struct graph g;
	struct err e;
	int rc = 0;

	json_write_pretty(&text, doc);
	json_decref(doc);
	if (graph_load_buf(&g, text.buf, text.len, path, &e) < 0) {
		rc = cli_fail(NP_CMD, &e);
		goto out;
	}
	graph_validate(&g, &f);
	if (f.nr) {
		rc = cli_findings(NP_CMD, "the graph would not validate; nothing written", &f);
	} else {
		doc = graph_to_json(&g);
		json_write_pretty(out, doc);
		json_decref(doc);
	}
	findings_release(&f);
	graph_release(&g);
out:
	sb_release(&text);
	return rc;
}

/* Writes text to path atomically (keeping an existing file's mode) and
 * prints "wrote PATH: what" and the change as a unified diff from old. */
static int write_shown(const char *path, const struct strbuf *old, const struct strbuf *text,
		       const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	struct err e;

	if (file_write_atomic(path, text->buf, text->len,
			      stat(path, &st) == 0 ? st.st_mode & 07777 : 0644, &e) < 0)
		return cli_fail(NP_CMD, &e);
	sb_addf(&sb, "wrote %s: %s\n", path, what);
	diff_unified(old->buf ? old->buf : "", old->len, text->buf, text->len, path, &sb);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
	return EXIT_OK;
}

bool np_graph_in_layout(const struct graph *g, const struct strbuf *text)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *doc = graph_to_json(g);
	bool same;

	json_write_pretty(&sb, doc);
	json_decref(doc);
	same = sb.len == text->len && !memcmp(sb.buf, text->buf, sb.len);
	sb_release(&sb);
	return same;
}

/* Replaces the graph file of c with doc (stolen), validated; old is the
 * file as it was read. A file in another layout than fak's (written by
 * hand) is said to be rewritten: its diff is more than the change. */
static int rewrite_graph(const struct np_ctx *c, json_t *doc, const char *what)
{
	struct strbuf old = STRBUF_INIT, text = STRBUF_INIT, was = STRBUF_INIT;
	const char *path = c->o->graph;
	struct err e;
	int rc;

	if (file_read(path, GRAPH_MAX_BYTES, &old, &e) < 0) {
		json_decref(doc);
		rc = cli_fail(NP_CMD, &e);
	} else if (!(rc = graph_text(doc, path, &text))) {
		if (!np_graph_in_layout(c->g, &old)) {
			sb_addf(&was, "%s; the file was not in fak's layout (that of --json), "
				"so this diff also rewrites it into that layout, once", what);
			what = was.buf;
		}
		rc = write_shown(path, &old, &text, what);
	}
	sb_release(&old);
	sb_release(&text);
	sb_release(&was);
	return rc;
}

/* The --add-* modes change a graph file: --graph names it. */
static int check_target(const struct np_opts *o, const char *mode)
{
	struct err e;

	if (!o->graph || !strcmp(o->graph, "-")) {
		cli_errorf(NP_CMD, "--%s changes a graph file: name it with --graph FILE "
			   "(create one with --new-graph FILE)", mode);
		return EXIT_USAGE;
	}
	if (file_check_output(o->graph, &e) < 0) {
		cli_errorf(NP_CMD, "--graph: %s", e.msg);
		return EXIT_FAIL;
	}
	return 0;
}

/* "--a, --b and --c" of the required flags (name, value) not given. */
static int need(const char *mode, const char *const *pairs, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t missing = 0, k = 0;
	int rc;

	for (size_t i = 0; i < n; i += 2)
		missing += !pairs[i + 1];
	if (!missing)
		return 0;
	sb_addf(&sb, "--%s needs ", mode);
	for (size_t i = 0; i < n; i += 2) {
		if (pairs[i + 1])
			continue;
		k++;
		sb_addf(&sb, "%s--%s", k == 1 ? "" : k == missing ? " and " : ", ", pairs[i]);
	}
	rc = cmd_usage_error(NP_CMD, &np_spec, sb.buf);
	sb_release(&sb);
	return rc;
}

/* ---- --new-graph --------------------------------------------------------- */

static json_t *new_index(const char *title)
{
	json_t *doc = jobj(), *page = jobj();

	jset_str(doc, "schema", INDEX_SCHEMA);
	jset_str(page, "title", title);
	jset_str(page, "intro", "Results of this engine that fak has witnessed: rows arrive "
		 "here only by fak native-performance --promote from a passing fak bench "
		 "experiment.");
	jset_str(page, "subject", title);
	jset_new(doc, "page", page);
	jset_new(doc, "readout", jarr());
	jset_new(doc, "results", jarr());
	jset_new(doc, "awaiting", jarr());
	return doc;
}

/* The index text for title, checked as --frontdoor-md will read it. */
static int index_text(const char *title, const char *path, struct strbuf *out)
{
	struct index idx;
	struct err e;
	json_t *doc = new_index(title);

	json_write_pretty(out, doc);
	json_decref(doc);
	if (index_load_buf(&idx, out->buf, out->len, path, &e) < 0)
		return cli_fail(NP_CMD, &e);
	index_release(&idx);
	return 0;
}

int np_new_graph(const struct np_opts *o)
{
	struct strbuf none = STRBUF_INIT, graph = STRBUF_INIT, index = STRBUF_INIT;
	json_t *doc;
	char what[256];
	int rc;

	if (o->graph)
		return cmd_usage_error(NP_CMD, &np_spec, "--new-graph FILE names the graph it "
				       "creates; drop --graph");
	if ((rc = check_values(o)))
		return rc;
	if (!!o->index != !!o->title)
		return cmd_usage_error(NP_CMD, &np_spec,
				       o->index ? "--new-graph --index FILE needs --title TEXT: "
						  "the index page's title"
						: "--title goes with --new-graph --index FILE");
	if ((rc = check_new("new-graph", o->new_graph)) ||
	    (o->index && (rc = check_new("index", o->index))))
		return rc;
	doc = jobj();
	jset_str(doc, "schema", GRAPH_SCHEMA);
	jset_new(doc, "envelopes", jarr());
	jset_new(doc, "levers", jarr());
	jset_new(doc, "criteria", jobj());
	if ((rc = graph_text(doc, o->new_graph, &graph)) ||
	    (o->index && (rc = index_text(o->title, o->index, &index))) ||
	    (rc = write_shown(o->new_graph, &none, &graph,
			      "a new graph with no envelope yet (add one with --add-envelope)")))
		goto out;
	snprintf(what, sizeof(what), "the front-door index \"%.200s\" with no result yet",
		 o->title ? o->title : "");
	if (o->index && (rc = write_shown(o->index, &none, &index, what)))
		unlink(o->new_graph);	/* all or nothing: the graph was not there before */
out:
	sb_release(&graph);
	sb_release(&index);
	return rc;
}

/* ---- --add-envelope ------------------------------------------------------ */

/* The criterion of a new envelope: the documented defaults. */
static json_t *new_criterion(const char *env_id, long long repetitions)
{
	json_t *c = jobj();
	char id[512];

	snprintf(id, sizeof(id), "%s-criterion", env_id);
	jset_str(c, "schema", CRITERION_SCHEMA);
	jset_str(c, "id", id);
	jset_int(c, "version", 1);
	jset_str(c, "output_class", "exact_match");
	jset_int(c, "minimum_repetitions", repetitions);
	jset_num(c, "maximum_noise_percent", 2);
	jset_num(c, "investigate_drop_percent", 2);
	jset_num(c, "regression_drop_percent", 5);
	jset_num(c, "minimum_throughput_tokens_per_second", 0.01);
	jset_str(c, "quality_metric", "exact_match");
	jset_num(c, "minimum_quality_score", 1);
	jset_bool(c, "quality_higher_is_better", true);
	jset_int(c, "review_period_days", GRAPH_DEFAULT_REVIEW_PERIOD_DAYS);
	jset_num(c, "practical_threshold_percent", 2);
	return c;
}

/* The artifact's sha256: a regular file only (a device or a FIFO would
 * never end). */
static int artifact_sha(const char *path, char hex[65])
{
	struct stat st;
	struct err e;
	int64_t bytes;

	if (stat(path, &st) < 0) {
		err_errno(&e, errno, "--artifact: cannot read '%s'", path);
		return cli_fail(NP_CMD, &e);
	}
	if (!S_ISREG(st.st_mode)) {
		cli_errorf(NP_CMD, "--artifact '%s' is not a regular file; name the model file "
			   "itself", path);
		return EXIT_FAIL;
	}
	if (digest_file(path, hex, &bytes, &e) < 0)
		return cli_fail(NP_CMD, &e);
	return 0;
}

/* The envelope's serving member from --serve-trace, --primary-metric and
 * --direction (docs/graph.md, "Serving envelopes"): the trace's sha256 read
 * from the file as fak bench trace --check reads it, the metric one of the
 * serving metrics, the direction its own (the default). *out stays NULL
 * without --serve-trace. 0, or the exit code of the error it printed. */
static int serving_json(const struct np_opts *o, json_t **out)
{
	char digest[72], why[160];
	struct findings f = FINDINGS_INIT;
	struct trace t = { 0 };
	struct err e;
	const char *dir;
	int m, rc;

	*out = NULL;
	if (!o->serve_trace) {
		if (o->primary_metric || o->direction)
			return bad_flag(o->primary_metric ? "primary-metric" : "direction",
					o->primary_metric ? o->primary_metric : o->direction,
					"a serving envelope needs its trace: "
					"add --serve-trace FILE");
		return 0;
	}
	if (!o->primary_metric)
		return bad_flag("serve-trace", o->serve_trace, "name the metric that decides with "
				"--primary-metric (ttft_p95_ms, output_tokens_per_second, ...)");
	if ((m = serving_metric_find(o->primary_metric)) < 0)
		return bad_flag("primary-metric", o->primary_metric, "not a serving metric: "
				"ttft, tpot, itl or e2el with _mean_ms, _p50_ms, _p90_ms, _p95_ms "
				"or _p99_ms; request_throughput, output_tokens_per_second, "
				"total_tokens_per_second or prefix_hit_rate");
	dir = serving_direction_name(serving_metrics[m].higher_is_better);
	if (o->direction && strcmp(o->direction, "lower") && strcmp(o->direction, "higher"))
		return bad_flag("direction", o->direction, "want lower or higher");
	if (o->direction && strcmp(o->direction, dir)) {
		snprintf(why, sizeof(why), "%s is better %s", o->primary_metric, dir);
		return bad_flag("direction", o->direction, why);
	}
	rc = trace_load(o->serve_trace, &t, &f, digest, &e);
	trace_release(&t);
	if (rc < 0) {
		findings_release(&f);
		return cli_fail(NP_CMD, &e);
	}
	if (f.nr) {
		char what[300];

		snprintf(what, sizeof(what), "--serve-trace '%s' is not a usable trace",
			 o->serve_trace);
		rc = cli_findings(NP_CMD, what, &f);
		findings_release(&f);
		return rc;
	}
	*out = jobj();
	jset_str(*out, "trace_sha256", digest);
	jset_str(*out, "primary_metric", o->primary_metric);
	jset_str(*out, "direction", dir);
	return 0;
}

int np_add_envelope(const struct np_ctx *c)
{
	const struct np_opts *o = c->o;
	const char *required[] = { "artifact", o->artifact, "model", o->model, "engine", o->engine,
				   "prompt-tokens", o->prompt_tokens, "decode-tokens",
				   o->decode_tokens, "required-evidence", o->required_evidence };
	const char *backend = o->backend ? o->backend : NEW_BACKEND;
	long long p = 0, t = 0, warmups = 0, reps = 0, memory_gib;
	struct platform_host host_now;
	char hex[65], platform[64], hardware[128], what[256];
	struct err e;
	json_t *doc, *env, *crit, *root, *host = NULL, *serving;
	int rc;

	if ((rc = check_values(o)) || (rc = check_target(o, "add-envelope")) ||
	    (rc = need("add-envelope", required, sizeof(required) / sizeof(required[0]))) ||
	    (rc = serving_json(o, &serving)))
		return rc;
	if (graph_envelope(c->g, o->add_envelope)) {
		cli_errorf(NP_CMD, "--add-envelope '%s': the graph has this envelope already; "
			   "a changed set-up is a new envelope: give it another id",
			   o->add_envelope);
		return EXIT_FAIL;
	}
	if (int_flag("prompt-tokens", o->prompt_tokens, 0, INT_MAX, &p) ||
	    int_flag("decode-tokens", o->decode_tokens, 1, INT_MAX, &t) ||
	    int_flag("warmups", o->warmups ? o->warmups : NEW_WARMUPS, 0, 1000, &warmups) ||
	    int_flag("repetitions", o->repetitions ? o->repetitions : NEW_REPETITIONS, 2, 1000,
		     &reps))
		return EXIT_USAGE;
	if (o->host_policy && !(host = host_policy_json(o->host_policy)))
		return bad_flag("host-policy", o->host_policy,
				"want three numbers NON_SUT_CPU,SAMPLER_DUTY,PSI_STALL in percent, "
				"such as 100,100,100 for a shared machine");
	if (o->platform) {
		snprintf(platform, sizeof(platform), "%s", o->platform);
	} else if (xp_host_platform(platform, sizeof(platform), &e) < 0) {
		json_decref(host);
		return cli_fail(NP_CMD, &e);
	}
	if ((rc = artifact_sha(o->artifact, hex))) {
		json_decref(host);
		return rc;
	}
	if (platform_host(&host_now, &e) < 0) {
		json_decref(host);
		return cli_fail(NP_CMD, &e);
	}
	/* this machine's memory, whole GiB rounded up: the gate's peak-memory ceiling */
	memory_gib = (long long)((host_now.memory_bytes + ((1ull << 30) - 1)) >> 30);
	snprintf(hardware, sizeof(hardware), "a %s machine with %lld GiB", platform, memory_gib);
	env = jobj();
	jset_str(env, "id", o->add_envelope);
	jset_str(env, "model", o->model);
	jset_str(env, "model_revision", o->model_revision ? o->model_revision : NEW_UNSPECIFIED);
	jset_str(env, "artifact_sha256", hex);
	jset_str(env, "quantization", o->quantization ? o->quantization : NEW_UNSPECIFIED);
	jset_str(env, "hardware", o->hardware ? o->hardware : hardware);
	jset_str(env, "platform", platform);
	jset_int(env, "memory_gib", memory_gib);
	jset_str(env, "engine", o->engine);
	jset_str(env, "backend", backend);
	jset_str(env, "forward_path", o->forward_path ? o->forward_path : backend);
	jset_int(env, "prompt_tokens", p);
	jset_int(env, "decode_tokens", t);
	jset_int(env, "warmups", warmups);
	jset_int(env, "repetitions", reps);
	jset_int(env, "temperature", 0);
	jset_str(env, "throughput_metric", "tokens_per_second of the benchmark's metrics line");
	jset_str(env, "comparability_rule", "same artifact sha256, P/T, warm-ups, repetitions, "
		 "engine, forward path and machine");
	jset_new(env, "required_evidence", evidence_json(o->required_evidence));
	if (serving)
		jset_new(env, "serving", serving);
	crit = new_criterion(o->add_envelope, reps);
	if (host)
		jset_new(crit, "host_policy", host);
	/* --set sees the envelope's members and criterion.MEMBER */
	root = json_deep_copy(env);
	jset_new(root, "criterion", crit);
	if (set_members(root, "the envelope", &o->set) < 0) {
		json_decref(env);
		json_decref(root);
		return EXIT_USAGE;
	}
	crit = json_incref(json_object_get(root, "criterion"));
	json_object_del(root, "criterion");
	json_decref(env);
	env = root;

	doc = graph_to_json(c->g);
	json_array_append(json_object_get(doc, "envelopes"), env);
	json_object_set_new(json_object_get(doc, "criteria"), o->add_envelope, crit);
	snprintf(what, sizeof(what), "envelope \"%.100s\" and its criterion (artifact sha256 "
		 "%.12s..., platform %s)", o->add_envelope, hex, platform);
	json_decref(env);
	return rewrite_graph(c, doc, what);
}

/* ---- --add-lever --------------------------------------------------------- */

/* The owning issue from its URL: the number it ends with. */
static long long issue_number(const char *url)
{
	size_t n = strlen(url), k = n;

	while (k > 0 && url[k - 1] >= '0' && url[k - 1] <= '9')
		k--;
	if (k == n || n - k > 12)
		return -1;
	return strtoll(url + k, NULL, 10);
}

/* The envelope a new lever applies to: --envelope, or the graph's only one. */
static const struct envelope *lever_envelope(const struct np_ctx *c)
{
	const struct envelope *v;

	if (c->o->envelope) {
		if (!(v = graph_envelope(c->g, c->o->envelope)))
			cli_errorf(NP_CMD, "--envelope '%s': the graph has no such envelope; "
				   "add it with --add-envelope", c->o->envelope);
		return v;
	}
	if (c->g->nr_envelopes == 1)
		return &c->g->envelopes[0];
	if (!c->g->nr_envelopes)
		cli_errorf(NP_CMD, "--add-lever: the graph has no envelope yet; add one with "
			   "--add-envelope first");
	else
		cli_errorf(NP_CMD, "--add-lever: the graph has %zu envelopes; name the lever's "
			   "with --envelope ID", c->g->nr_envelopes);
	return NULL;
}

static json_t *id_list(const struct optlist *l)
{
	json_t *a = jarr();

	for (size_t i = 0; i < l->n; i++)
		jpush_new(a, json_string(l->v[i]));
	return a;
}

int np_add_lever(const struct np_ctx *c)
{
	const struct np_opts *o = c->o;
	const char *required[] = { "name", o->name, "expected", o->expected, "issue", o->issue };
	const struct envelope *v;
	json_t *doc, *l, *x, *app, *owner, *levers;
	char next[1024], what[256];
	long long number;
	size_t i;
	int rc;

	if ((rc = check_values(o)) || (rc = check_target(o, "add-lever")) ||
	    (rc = need("add-lever", required, sizeof(required) / sizeof(required[0]))))
		return rc;
	if ((number = issue_number(o->issue)) <= 0)
		return bad_flag("issue", o->issue, "want the URL of the issue that owns the lever, "
				"ending in its number (https://host/you/engine/issues/12)");
	if (!(v = lever_envelope(c)))
		return EXIT_FAIL;
	snprintf(next, sizeof(next), "one-lever OFF/ON A/B by fak bench experiment in envelope "
		 "%s: %lld warm-up%s and %lld repetitions per arm, every repetition's metrics "
		 "line sealed", v->id, v->warmups, v->warmups == 1 ? "" : "s", v->repetitions);
	l = jobj();
	jset_str(l, "id", o->add_lever);
	jset_str(l, "name", o->name);
	app = jobj();
	jset_str(app, "envelope_id", v->id);
	jset_str(app, "platform", graph_envelope_platform(v));
	jset_str(app, "backend", v->backend);
	jset_new(l, "applicability", app);
	jset_bool(l, "enabled", false);
	jset_str(l, "status", "partial");
	jset_new(l, "dependency_ids", id_list(&o->depends_on));
	jset_new(l, "conflict_ids", id_list(&o->conflicts_with));
	x = jobj();
	jset_str(x, "summary", o->expected);
	jset_str(x, "classification", "hypothesis");
	jset_str(x, "provenance", o->provenance ? o->provenance :
		 "stated when the lever was added; no measurement yet");
	jset_new(l, "expected", x);
	jset_new(l, "witnessed", json_null());
	owner = jobj();
	jset_int(owner, "number", number);
	jset_str(owner, "url", o->issue);
	jset_new(l, "owning_issue", owner);
	jset_str(l, "next_witness", next);
	if (set_members(l, "the lever", &o->set) < 0) {
		json_decref(l);
		return EXIT_USAGE;
	}

	doc = graph_to_json(c->g);
	levers = json_object_get(doc, "levers");
	/* a conflict is declared on both sides */
	json_array_foreach(levers, i, x)
		for (size_t k = 0; k < o->conflicts_with.n; k++) {
			if (strcmp(json_string_value(json_object_get(x, "id")),
				   o->conflicts_with.v[k]))
				continue;
			if (!json_is_array(json_object_get(x, "conflict_ids")))
				jset_new(x, "conflict_ids", jarr());
			jpush_new(json_object_get(x, "conflict_ids"), json_string(o->add_lever));
		}
	json_array_append_new(levers, l);
	snprintf(what, sizeof(what), "lever \"%.100s\" in envelope \"%.100s\"", o->add_lever,
		 v->id);
	return rewrite_graph(c, doc, what);
}
