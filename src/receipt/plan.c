/* The schedule of an experiment: which arm runs when, and the names of its
 * runs. */
#include "receipt/receipt.h"

#include <stdio.h>
#include <string.h>

#include "base/xalloc.h"
#include "attestation/workload.h"

const char *const receipt_order_names[3] = { "interleaved", "random", "blocked" };
const char *const receipt_arm_names[2] = { "baseline", "candidate" };

/* splitmix64: a small, well-studied generator whose stream depends only on
 * the seed, so a recorded seed replays the same order anywhere. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void add(struct receipt_step *v, size_t *n, int arm, const char *kind, size_t index)
{
	v[(*n)++] = (struct receipt_step){ arm, kind, (int64_t)index };
}

int receipt_plan(enum receipt_order order, uint64_t seed, size_t warmups, size_t reps, bool quality,
	    struct receipt_step **steps, size_t *nr, struct err *e)
{
	size_t total, n = 0;
	struct receipt_step *v;
	uint64_t state = seed;

	*steps = NULL;
	*nr = 0;
	if (reps == 0)
		return err_set(e, "an experiment needs at least one repetition per arm");
	if (warmups > RECEIPT_MAX_STEPS || reps > RECEIPT_MAX_STEPS ||
	    (total = 2 * (warmups + reps + (quality ? 1 : 0))) > RECEIPT_MAX_STEPS)
		return err_set(e, "%zu warm-ups and %zu repetitions per arm exceed %d runs",
			       warmups, reps, RECEIPT_MAX_STEPS);
	v = xcalloc(total, sizeof(*v));
	if (order == RECEIPT_ORDER_BLOCKED) {
		for (int arm = 0; arm < 2; arm++) {
			for (size_t i = 0; i < warmups; i++)
				add(v, &n, arm, WL_KIND_WARMUP, i);
			for (size_t i = 0; i < reps; i++)
				add(v, &n, arm, WL_KIND_REPETITION, i);
			if (quality)
				add(v, &n, arm, WL_KIND_QUALITY, 0);
		}
	} else {
		for (size_t i = 0; i < warmups; i++) {
			add(v, &n, RECEIPT_ARM_BASELINE, WL_KIND_WARMUP, i);
			add(v, &n, RECEIPT_ARM_CANDIDATE, WL_KIND_WARMUP, i);
		}
		for (size_t i = 0; i < reps; i++) {
			int first = order == RECEIPT_ORDER_INTERLEAVED
					    ? (int)(i & 1)
					    : (int)(splitmix64(&state) >> 63);

			add(v, &n, first, WL_KIND_REPETITION, i);
			add(v, &n, !first, WL_KIND_REPETITION, i);
		}
		if (quality) {
			add(v, &n, RECEIPT_ARM_BASELINE, WL_KIND_QUALITY, 0);
			add(v, &n, RECEIPT_ARM_CANDIDATE, WL_KIND_QUALITY, 0);
		}
	}
	*steps = v;
	*nr = n;
	return 0;
}

/* How a run's name is spelled: after the arm, the word of its kind, then
 * (but for the quality run) its 1-based index. */
struct step_words {
	const char *repetition, *warmup, *quality;
};

static void step_text(const struct receipt_step *s, const struct step_words *w, char *out,
		      size_t cap)
{
	const char *arm = receipt_arm_names[s->arm];

	if (!strcmp(s->kind, WL_KIND_REPETITION))
		snprintf(out, cap, "%s%s%lld", arm, w->repetition, (long long)s->index + 1);
	else if (!strcmp(s->kind, WL_KIND_WARMUP))
		snprintf(out, cap, "%s%s%lld", arm, w->warmup, (long long)s->index + 1);
	else
		snprintf(out, cap, "%s%s", arm, w->quality);
}

void receipt_step_name(const struct receipt_step *s, char *out, size_t cap)
{
	static const struct step_words w = { "-", "-warmup-", "-quality" };

	step_text(s, &w, out, cap);
}

void receipt_step_title(const struct receipt_step *s, char *out, size_t cap)
{
	static const struct step_words w = { " repetition ", " warm-up ", " quality run" };

	step_text(s, &w, out, cap);
}
