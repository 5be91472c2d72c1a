/* libFuzzer target: strict gate-request decoding and the whole evaluation
 * (structural phase, checks, system-baseline state, verdict document). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/json.h"
#include "graph/graph.h"
#include "fuzz_graph_once.h"
#include "receipt/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct graph *g = default_graph();
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct gate_request q;
	const char *what = NULL;
	enum gate_class cls;
	struct err e;
	json_t *v;

	if (gate_parse(&q, (const char *)data, size, "fuzz", &e) < 0)
		return 0;
	v = gate_evaluate(&q, g, &cls, &what, &f);
	if (v)
		json_write_pretty(&sb, v);
	json_decref(v);
	findings_release(&f);
	sb_release(&sb);
	gate_release(&q);
	return 0;
}
