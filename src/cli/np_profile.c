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

		if (profile_next(&p, c->g, &invalid, &n, &e) == 0)
			cli_out_json(profile_next_json(&p, &n));
		else if (!invalid.nr)
			rc = fail(&e, "profile next");
	} else {
		struct profile_class cls;

		if (profile_classify(&p, c->g, &invalid, &cls, &e) == 0)
			cli_out_json(profile_class_json(&cls));
		else if (!invalid.nr)
			rc = fail(&e, "classify profile");
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
