/* libFuzzer target for the performance-index decoder, and for validation,
 * page building and Markdown rendering of whatever decodes. The same bytes
 * are also treated as a Markdown document: marker search and splicing of
 * the rendered block, and the spliced document must carry the block. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dates.h"
#include "graph/graph.h"
#include "index/index.h"
#include "render/frontdoor_md.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct graph graph;	/* loaded once, reachable until exit */
static int loaded;

static void check_splice(const char *doc, size_t len, const char *block, size_t blen)
{
	struct strbuf out = STRBUF_INIT;
	size_t off = 0, n = 0;
	struct err e;

	if (index_doc_splice(doc, len, "fuzz.md", block, blen, &out, &e) == 0) {
		if (index_doc_find(out.buf, out.len, "fuzz.md", &off, &n, &e) < 0 || n != blen ||
		    memcmp(out.buf + off, block, blen))
			BUG("spliced block does not read back");
	}
	sb_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const days[] = { "2026-01-01", "2026-03-05", "2026-09-01",
					    "2027-01-01" };
	struct findings f = FINDINGS_INIT;
	struct strbuf md = STRBUF_INIT;
	struct index idx;
	struct err e;

	if (!loaded) {
		if (graph_load_default(&graph, &e) < 0)
			BUG("%s", e.msg);
		loaded = 1;
	}
	if (index_load_buf(&idx, (const char *)data, size, "fuzz", &e) == 0) {
		index_validate(&idx, &graph, &f);
		for (size_t i = 0; !f.nr && i < sizeof(days) / sizeof(days[0]); i++) {
			struct index_page p;
			long day;

			if (date_parse(days[i], &day, &e) < 0)
				BUG("%s", e.msg);
			index_page_build(&p, &idx, day);
			sb_reset(&md);
			frontdoor_md_render(&md, &p);
			index_page_release(&p);
		}
		findings_release(&f);
		index_release(&idx);
	}
	if (!md.len)
		sb_adds(&md, INDEX_MARK_BEGIN "\nfuzz\n" INDEX_MARK_END "\n");
	check_splice((const char *)data, size, md.buf, md.len - 1);
	sb_release(&md);
	return 0;
}
