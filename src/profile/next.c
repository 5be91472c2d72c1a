/* --profile-next: the measured recommendation against the envelope's first
 * dependency-ready lever in graph order. A different recommendation needs
 * an issue-backed selection override; no override makes a lever whose
 * dependencies are not enabled selectable. */
#include <string.h>

#include "base/json.h"
#include "profile/profile.h"

/* Why l is not selectable, into e; 0 when it is. */
static int check_ready(const struct graph *g, const struct lever *l, struct err *e)
{
	static const char fmt[] = "profile recommendation \"%s\" is not an unwitnessed "
				  "dependency-ready lever: %s%s%s";

	if (l->enabled)
		return err_set(e, fmt, l->id, "it is already enabled", "", "");
	if (l->has_witnessed)
		return err_set(e, fmt, l->id, "it is already witnessed", "", "");
	{
		const char *dep = graph_unmet_dependency(g, l);

		if (dep)
			return err_set(e, fmt, l->id, "dependency \"", dep, "\" is not enabled");
	}
	return 0;
}

int profile_next(const struct profile *p, const struct graph *g, struct findings *invalid,
		 struct profile_next *out, struct err *e)
{
	const struct lever *first;

	if (profile_classify(p, g, invalid, &out->cls, e) < 0)
		return -1;
	out->lever = graph_lever(g, out->cls.rule->lever_id);
	if (check_ready(g, out->lever, e) < 0)
		return -1;
	/* the recommendation is ready in this envelope, so a first one exists */
	first = graph_next(g, p->envelope_id);
	if (!first)
		BUG("no ready lever in envelope '%s' although '%s' is ready", p->envelope_id,
		    out->lever->id);
	else if (strcmp(first->id, out->lever->id) && !p->has_override)
		return err_set(e,
			       "profile contradicts graph-order lever \"%s\" with measured "
			       "recommendation \"%s\"; record a positive issue number and "
			       "issue-backed reason",
			       first->id, out->lever->id);
	return 0;
}

json_t *profile_next_json(const struct profile *p, const struct profile_next *n)
{
	json_t *doc = jobj();

	jset_new(doc, "classification", profile_class_json(&n->cls));
	jset_new(doc, "lever", graph_lever_json(n->lever));
	if (p->has_override) {
		json_t *o = jobj();

		jset_int(o, "issue_number", p->override.issue_number);
		jset_str(o, "reason", p->override.reason);
		jset_new(doc, "selection_override", o);
	}
	return doc;
}
