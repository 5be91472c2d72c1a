#ifndef FAK_RECEIPT_GATE_H
#define FAK_RECEIPT_GATE_H
/* `--gate REQUEST`: classify a candidate receipt against the last accepted
 * one under an envelope-scoped policy (fak-native-performance-gate-policy/v2)
 * as pass, investigate or regression. Structural problems are findings (no
 * verdict); everything else ends in a verdict document. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"
#include "graph/graph.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"

/* What gate_evaluate says when the last accepted receipt's quality fails
 * the policy (the runner, whose last accepted receipt is its own baseline
 * arm, says so instead). */
#define GATE_WHAT_ARTIFACT_HASH "gate: the receipts are not pinned to their artifact by hash"
#define GATE_WHAT_ACCEPTED_QUALITY "gate: last accepted receipt fails the quality policy"

#define GATE_REQUEST_V1 "fak-native-performance-gate-request/v1"
#define GATE_REQUEST_V2 "fak-native-performance-gate-request/v2"
#define GATE_POLICY_V1 "fak-native-performance-gate-policy/v1"
#define GATE_POLICY_V2 "fak-native-performance-gate-policy/v2"
#define GATE_VERDICT_SCHEMA "fak-native-performance-gate-verdict/v3"
#define GATE_BISECT_SCHEMA "fak-native-performance-bisect-packet/v1"

struct gate_policy {
	const char *schema, *envelope_id, *changed_lever_id, *accepted_revision;
	long long minimum_repetitions;
	long long minimum_clean_repetitions;	/* 0 when absent */
	double maximum_noise_percent, investigate_drop_percent, regression_drop_percent;
	double minimum_throughput_tokens_per_second;
	long long maximum_peak_bytes;
	const char *quality_metric;
	double minimum_quality_score;
	bool quality_higher_is_better;
	const char *required_engine, *required_forward_path;
	bool require_ambient_evidence, require_system_baseline, allow_sampled_system_baseline;
	/* A receipt whose engine identity is declared, not observed
	 * (receipt/identity.h), passes the identity check only with this;
	 * written only when true. */
	bool allow_declared_identity;
};

struct gate_request {
	json_t *doc;	/* owned; strings borrow into it */
	const char *schema;
	struct gate_policy policy;
	struct receipt last_accepted, candidate;
	/* A receipt that is a copy of one its caller owns (gate_parse_known,
	 * or taken over by the caller); gate_release leaves it. */
	bool shared_last_accepted, shared_candidate;
	/* Attempts of the lever the decision's interval is widened for (0 or
	 * 1: none); promotion sets it from the attempt ledger. Not decoded. */
	size_t attempts;
};

/* The policy the envelope's criterion implies for gating lever l (its
 * envelope must have a criterion): the criterion's bounds, the envelope's
 * memory ceiling (memory_gib GiB) and forward path, fak-native, system
 * baselines required; allow_sampled is the explicit opt-in. A new object in
 * the documented key order; what `fak bench experiment` writes and what
 * --promote requires. */
json_t *gate_policy_json(const struct graph *g, const struct lever *l,
			 const char *accepted_revision, bool allow_sampled);

/* Strict decode (unknown keys, wrong types, missing members are errors with
 * the JSON path). name appears in errors. */
int gate_parse(struct gate_request *q, const char *buf, size_t len, const char *name,
	       struct err *e);
/* gate_parse, where a receipt of the request whose document equals the
 * document of a receipt of known[0..n) (NULL entries skipped; decoded,
 * their attestations verified) is a copy of that receipt, shared, not
 * decoded and verified again. */
int gate_parse_known(struct gate_request *q, const char *buf, size_t len, const char *name,
		     const struct receipt *const *known, size_t n, struct err *e);
int gate_load(struct gate_request *q, const char *path, struct err *e);
/* The same, and the sha256 of the file's bytes (hex) in sha256. */
int gate_load_sha256(struct gate_request *q, const char *path, char sha256[65], struct err *e);
void gate_release(struct gate_request *q);

enum gate_class { GATE_PASS, GATE_INVESTIGATE, GATE_REGRESSION };

/* The structural phase, then statistics, checks, system-baseline state,
 * classification, suspects and bisect packet. Returns the verdict document
 * (new reference) and its classification in *cls; or NULL with *what set
 * to a static description of the failed structural step and the reasons
 * in out (sorted). */
json_t *gate_evaluate(const struct gate_request *q, const struct graph *g, enum gate_class *cls,
		      const char **what, struct findings *out);

/* ---- system-baseline state (exposed for tests) ---------------------------- */

/* What the gate knows about one repetition's attestation. */
struct gate_sb_rep {
	bool verified;			/* attestation_check passed; facts valid */
	struct err why;			/* why attestation_check failed (msg "" when verified) */
	struct attestation_facts facts;
	const char *binding;		/* repetitions[i].system_baseline_digest or NULL */
};

struct gate_sb_side {
	const char *name;		/* "last_accepted" | "candidate" */
	bool has_ambient, is_v2;
	size_t nr_reps, nr_system_baselines;
	const struct gate_sb_rep *reps;	/* nr_system_baselines entries */
};

/* State of the evidence under a policy that requires system baselines:
 * sides in order last_accepted, candidate; one digest-seen set across both.
 * Every attestation's sealed policy must be at least as strict as the
 * sampler's defaults, or as crit's host policy when crit (may be NULL) has
 * one. Returns true (pass) or false (investigate); the detail says why and,
 * under a host policy, which bound it used. */
bool gate_sb_judge(const struct gate_sb_side sides[2], bool allow_sampled,
		   const struct criterion *crit, struct strbuf *detail);

#endif
