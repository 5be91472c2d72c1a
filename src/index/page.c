/* The page for one as-of date: which readout records and rows are shown,
 * which are reaped, and what the lifecycle of each shown row is. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "index/index.h"

enum index_presence index_presence_at(long observed, long review_by, enum index_at_review at,
				      long as_of)
{
	if (observed != INDEX_NO_DATE && as_of < observed)
		return INDEX_PENDING;
	if (review_by == INDEX_NO_DATE || as_of <= review_by)
		return INDEX_SHOWN;
	return at == INDEX_AT_REVIEW_RETAIN ? INDEX_RETAINED : INDEX_REAPED;
}

static void add_row(struct index_page *p, const struct index_row *r, enum index_presence pr)
{
	struct index_page_row *pr_row;

	if (r->table == INDEX_RESULTS)
		pr_row = &p->results[p->nr_results++];
	else
		pr_row = &p->awaiting[p->nr_awaiting++];
	pr_row->row = r;
	pr_row->retained = pr == INDEX_RETAINED;
	pr_row->shown_as = pr_row->retained ? INDEX_HISTORICAL : r->lifecycle;
}

void index_page_build(struct index_page *p, const struct index *idx, long as_of)
{
	memset(p, 0, sizeof(*p));
	p->idx = idx;
	p->as_of = as_of;
	p->readout = xcalloc(idx->nr_readout + 1, sizeof(*p->readout));
	p->results = xcalloc(idx->nr_rows + 1, sizeof(*p->results));
	p->awaiting = xcalloc(idx->nr_rows + 1, sizeof(*p->awaiting));

	for (size_t i = 0; i < idx->nr_readout; i++) {
		const struct index_readout *r = &idx->readout[i];

		switch (index_presence_at(r->observed, r->review_by, INDEX_AT_REVIEW_REMOVE,
					  as_of)) {
		case INDEX_SHOWN:
			p->readout[p->nr_readout++] = *r;
			break;
		case INDEX_REAPED:
			p->nr_reaped++;
			break;
		case INDEX_PENDING:
		case INDEX_RETAINED:
			break;
		}
	}
	for (size_t i = 0; i < idx->nr_rows; i++) {
		const struct index_row *r = &idx->rows[i];
		enum index_presence pr =
			index_presence_at(r->observed, r->review_by, r->at_review, as_of);
		bool reviewed = pr == INDEX_RETAINED || pr == INDEX_REAPED;

		if (reviewed)
			p->nr_reaped++;
		if (r->lifecycle == INDEX_CURRENT) {
			p->nr_current += pr == INDEX_SHOWN;
			p->nr_current_reviewed += reviewed;
		} else if (r->lifecycle == INDEX_AWAITING_REMEASURE) {
			p->nr_awaiting_live += pr == INDEX_SHOWN;
			p->nr_awaiting_reviewed += reviewed;
		}
		if (pr == INDEX_SHOWN || pr == INDEX_RETAINED)
			add_row(p, r, pr);
	}
}

void index_page_release(struct index_page *p)
{
	free(p->readout);
	free(p->results);
	free(p->awaiting);
	memset(p, 0, sizeof(*p));
}
