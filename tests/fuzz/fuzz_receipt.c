/* libFuzzer target: strict receipt decoding, then validation against the
 * committed graph, re-encoding and comparison with itself. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/json.h"
#include "graph/graph.h"
#include "fuzz_graph_once.h"
#include "receipt/receipt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct graph *g = default_graph();
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	const char *what = NULL;
	struct receipt r;
	struct err e;
	json_t *v;

	if (receipt_parse(&r, (const char *)data, size, "fuzz", &e) < 0)
		return 0;
	receipt_validate(&r, g, 0, &f);
	findings_release(&f);
	v = receipt_to_json(&r);
	json_write_pretty(&sb, v);
	json_decref(v);
	v = receipt_compare(&r, &r, g, &what, &f);
	json_decref(v);
	findings_release(&f);
	sb_release(&sb);
	receipt_release(&r);
	return 0;
}
