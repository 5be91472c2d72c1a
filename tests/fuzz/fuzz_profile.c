/* libFuzzer target for the profile bundle decoder, and for validation,
 * classification and --profile-next selection of whatever decodes. */
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "graph/graph.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct graph graph;	/* loaded once, reachable until exit */
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct findings f = FINDINGS_INIT;
	struct profile_class cls;
	struct profile_next next;
	struct profile p;
	struct strbuf out = STRBUF_INIT;
	struct err e;

	if (!loaded) {
		if (graph_load_default(&graph, &e) < 0)
			BUG("%s", e.msg);
		loaded = 1;
	}
	if (size > PROFILE_MAX_BYTES)
		return 0;
	if (profile_parse(&p, (const char *)data, size, "fuzz", &e) < 0)
		return 0;
	if (profile_classify(&p, &graph, &f, &cls, &e) == 0) {
		json_t *doc = profile_class_json(&cls);

		json_write_pretty(&out, doc);
		json_decref(doc);
	}
	findings_release(&f);
	if (profile_next(&p, &graph, &f, &next, &e) == 0) {
		json_t *doc = profile_next_json(&p, &next);

		json_write_pretty(&out, doc);
		json_decref(doc);
	}
	findings_release(&f);
	sb_release(&out);
	profile_release(&p);
	return 0;
}
