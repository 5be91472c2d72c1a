/* `fak bench system-check`'s findings as text and as JSON: the judgement is
 * sampler/syscheck.c's, the words are here. */
#include "render/syscheck.h"

#include "base/json.h"

static const char *const status_names[] = {"ok", "advice", "unknown", "disturbs"};

const char *syscheck_status_name(enum syscheck_status s)
{
	return status_names[s];
}

void syscheck_render_text(const struct syscheck_result *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->nr; i++) {
		const struct syscheck_finding *f = &r->f[i];

		sb_addf(out, "%-8s  %-15s %s", status_names[f->status], f->name, f->detail);
		if (f->fix[0])
			sb_addf(out, "; fix: %s", f->fix);
		sb_addch(out, '\n');
	}
	sb_addf(out, "%zu disturb%s, %zu advice, %zu ok, %zu unknown\n",
		r->counts[SYSCHECK_DISTURBS], r->counts[SYSCHECK_DISTURBS] == 1 ? "s" : "",
		r->counts[SYSCHECK_ADVICE], r->counts[SYSCHECK_OK], r->counts[SYSCHECK_UNKNOWN]);
}

json_t *syscheck_to_json(const struct syscheck_result *r)
{
	json_t *doc = jobj(), *arr = jarr();

	jset_str(doc, "schema", SYSCHECK_SCHEMA);
	jset_int(doc, "disturbing", (long long)r->counts[SYSCHECK_DISTURBS]);
	for (size_t i = 0; i < r->nr; i++) {
		json_t *o = jobj();

		jset_str(o, "name", r->f[i].name);
		jset_str(o, "status", status_names[r->f[i].status]);
		jset_str(o, "detail", r->f[i].detail);
		jset_str(o, "fix", r->f[i].fix[0] ? r->f[i].fix : NULL);
		jpush_new(arr, o);
	}
	jset_new(doc, "findings", arr);
	return doc;
}
