#ifndef FAK_RECEIPT_PARITY_H
#define FAK_RECEIPT_PARITY_H
/* A parity campaign (docs/receipts.md, "Parity witnesses"): two engines run
 * matched, interleaved, on one artifact and envelope (`fak bench experiment
 * --parity`); its result is the ratio of their throughput, labelled parity,
 * never a throughput witness of either engine. What the runner writes
 * (parity.json) and what promotion and verification derive again from the
 * sealed runs are computed here, once. */
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "attestation/layout.h"
#include "base/err.h"
#include "base/findings.h"

#define PARITY_SCHEMA "fak-parity-campaign/v1"
#define PARITY_FILE LAYOUT_PARITY
#define PARITY_NOTE                                                                          \
	"a matched campaign of two engines on one artifact and envelope: its result is a "  \
	"ratio labelled parity, never a throughput witness of either engine"

/* The `parity` member (new object): the ratio engine a / engine b of the
 * repetitions' tokens per second, its Hodges-Lehmann estimate and interval
 * at the decision's level (STATS_DECISION_LEVEL) on the log scale, the
 * medians and the repetitions. -1 with e when the values cannot be
 * compared (empty, not positive). */
json_t *receipt_parity_json(const char *engine_a, const double *a, size_t na,
			    const char *engine_b, const double *b, size_t nb, struct err *e);

/* "parity: fak-native / llama.cpp tok/s 0.9312 (90% interval 0.9101..0.9533,
 * n=3+3); a parity ratio, not a throughput gain of either engine", from a
 * parity member. Caller frees. */
char *receipt_parity_text(const json_t *parity);

/* One sealed run of a campaign, as promotion and verification read it. */
struct parity_run {
	const char *arm;	/* "baseline" | "candidate" */
	const char *kind;	/* WL_KIND_* */
	long long index;
	const char *digest;	/* the attestation's */
	const char *engine;	/* the engine its metrics line stated; "" none */
	double tokens_per_second;
	bool has_throughput;
	/* the run was watched, the OS shows other processes' files, and no
	 * process of the command had the artifact open or mapped */
	bool artifact_unseen;
	/* the attestation's verdict: a repetition counts only when "clean",
	 * as the gate's evidence floor says */
	const char *verdict;
};

/* The parity member parity.json's runs give: the arms' repetitions, by
 * index, engines[0] (the baseline arm) over engines[1] (the candidate);
 * every run but a quality run states its arm's engine.
 * Findings when a run's engine is not its arm's, a run never touched the
 * artifact, a repetition is not clean or is missing; NULL then. New
 * object. */
json_t *receipt_parity_of_runs(const char *const engines[2], const struct parity_run *runs,
			       size_t n, struct findings *out);

#endif
