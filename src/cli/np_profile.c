/* --profile FILE and --profile-next FILE: load the bundle, validate it
 * against the graph in use, classify, and (for --profile-next) select. */
#include "cli/cli.h"
#include "cli/np.h"
#include "profile/profile.h"

static int fail(struct err *e, const char *context)
{
	err_prefix(e, "%s", context);
	return cli_fail(NP_CMD, e);
}

/* Prints the result in fmt; json prints doc (stolen). */
static void print(enum render_format fmt, const struct render_profile *rp, json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;

	if (fmt == RENDER_JSON) {
		cli_out_json(doc);
		return;
	}
	json_decref(doc);
	if (fmt == RENDER_MD)
		render_profile_md(&sb, rp);
	else if (fmt == RENDER_CSV)
		render_profile_csv(&sb, rp);
	else
		render_profile_text(&sb, rp);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
}

int np_profile(const struct np_ctx *c, bool next)
{
	const char *path = next ? c->o->profile_next : c->o->profile;
	struct findings invalid = FINDINGS_INIT;
	struct profile p;
	struct err e;
	int rc = EXIT_OK;

	if (profile_load(&p, path, &e) < 0)
		return cli_fail(NP_CMD, &e);
	if (next) {
		struct profile_next n;

		if (profile_next(&p, c->g, &invalid, &n, &e) == 0) {
			json_t *doc = profile_next_json(&p, &n), *cls = profile_class_json(&n.cls);
			struct render_profile rp = { .classification = cls, .next = n.lever,
						     .has_override = p.has_override,
						     .override_issue = p.override.issue_number,
						     .override_reason = p.override.reason };

			print(c->fmt, &rp, doc);
			json_decref(cls);
		} else if (!invalid.nr) {
			rc = fail(&e, "profile next");
		}
	} else {
		struct profile_class cls;

		if (profile_classify(&p, c->g, &invalid, &cls, &e) == 0) {
			json_t *doc = profile_class_json(&cls);
			struct render_profile rp = { .classification = doc };

			print(c->fmt, &rp, json_incref(doc));
			json_decref(doc);
		} else if (!invalid.nr) {
			rc = fail(&e, "classify profile");
		}
	}
	if (invalid.nr) {
		struct strbuf what = STRBUF_INIT;

		sb_addf(&what, "invalid native-performance profile '%s'", path);
		rc = cli_findings(NP_CMD, what.buf, &invalid);
		sb_release(&what);
	}
	findings_release(&invalid);
	profile_release(&p);
	return rc;
}
