#ifndef FAK_WITNESS_WITNESS_H
#define FAK_WITNESS_WITNESS_H
/* Promotion: a passing experiment becomes an immutable witness folder, the
 * lever's witnessed effect in the graph and a CURRENT row of the index, all
 * together or not at all; and the verification of every witness.
 *
 * A witness folder is <root>/<envelope>/<lever>/<date>-<12 hex>/ holding the
 * receipts, attestations, gate request, the recomputed comparison and gate
 * verdict, the digests of the logs, and MANIFEST.json (every file's size
 * and sha256, the fak version, the sha256 of the graph file at promotion,
 * and the digest and object of the complete envelope witnessed in).
 * The 12 hex digits begin the sha256 of MANIFEST.json, so the name proves
 * the manifest. The graph and the index name a folder as
 * "witness <envelope>/<lever>/<date>-<12 hex>" (relative to the root). */
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"
#include "base/json.h"
#include "graph/graph.h"
#include "index/index.h"

/* v3 records the envelope (envelope_digest, envelope); v2, written before,
 * is read and refused by --verify-witnesses by name */
#define WITNESS_MANIFEST_SCHEMA "fak-witness-manifest/v3"
#define WITNESS_MANIFEST_SCHEMA_V2 "fak-witness-manifest/v2"
#define WITNESS_REF_PREFIX "witness "
/* The journal of a promotion in progress, in the graph file's folder. */
#define WITNESS_JOURNAL ".fak-promotion-journal.json"
#define WITNESS_JOURNAL_SCHEMA "fak-promotion-journal/v1"

/* Where a promotion reads and writes. */
struct witness_paths {
	const char *graph;	/* the graph file (read and replaced) */
	const char *index;	/* the index file (read and replaced) */
	const char *root;	/* the witness root folder */
};

/* An experiment's attempt as the attempt ledger of the witness root holds
 * it (receipt/ledger.h): what promotion judges (k and n) and the manifest
 * records ("attempt"), and what --verify-witnesses finds again. */
struct witness_attempt {
	bool recorded;		/* false: a manual loop (no experiment, no ledger line) */
	char experiment_id[33];
	long long k, n;		/* attempt k of the n started so far of the lever in the
				 * envelope (same envelope digest), later ones included */
	long long started_seq, ended_seq, head_seq;	/* head: the ledger's last line */
	char started[JSON_DIGEST_LEN + 1], ended[JSON_DIGEST_LEN + 1],
	     head[JSON_DIGEST_LEN + 1];			/* the lines' digests */
};

/* A computed promotion: nothing written yet. */
struct promotion {
	char *name;		/* "<date>-<12 hex>" */
	char *rel;		/* "<envelope>/<lever>/<name>" */
	char *manifest_digest;	/* "sha256:<hex>" of MANIFEST.json */
	struct strbuf old_graph, new_graph, old_index, new_index;
	/* the witness folder's files: path relative to the folder, bytes */
	struct witness_file {
		char *path;
		struct strbuf data;
	} *files;
	size_t nr_files;
	/* for the report */
	char *lever_id, *envelope_id, *next_lever, *summary;
	char **disabled;	/* conflicting levers turned off */
	size_t nr_disabled;
	char *demoted;		/* the previous CURRENT row's envelope key, or NULL */
	/* the new row is DIAGNOSTIC (a witnessed null, a parity ratio): the
	 * envelope's CURRENT row stands */
	bool diagnostic;
	struct witness_attempt attempt;
	char *ledger;		/* the ledger's path */
	bool invalid_graph;	/* the refusals are the graph file's own findings */
};

/* Computes the promotion of `from`: an experiment folder (written by `fak
 * bench experiment`) or a gate request file (a manual loop). Trusts
 * nothing in it: every attestation, log and receipt is verified, the
 * comparison and the gate are recomputed, and only a `pass` under a policy
 * that requires system baselines is promoted; the lever must still be
 * ready in the graph and the witness folder must not exist. Refusals are
 * findings (out); e for I/O. version: fak's. */
int witness_promote_plan(const char *from, const struct witness_paths *paths, const char *version,
			 struct promotion *p, struct findings *out, struct err *e);

/* Computes the enablement of a witnessed lever (the source's step 6):
 * `receipt` is a receipt of the envelope's default command (the witness's
 * baseline command, at a revision whose default path uses the lever) whose
 * tok/s shift against the witness's baseline lies within the witnessed
 * interval. p gets the new graph (the lever enabled and present, enabled
 * conflicting levers off, the witnessed provenance saying by what) and the
 * new index (the witness's row says it too); no witness folder (p->rel
 * NULL). witness_promote_commit writes it. Refusals are findings. */
int witness_enable_plan(const char *lever_id, const char *receipt,
			const struct witness_paths *paths, struct promotion *p,
			struct findings *out, struct err *e);

/* Writes the promotion (or an enablement: no witness folder) through a
 * journal: every file is staged first, then the renames run; a crash at
 * any point leaves either nothing or a journal that witness_recover
 * completes. 0: promoted; -1: not promoted,
 * nothing changed (e says why); 1: promoted (the journal reached its commit
 * point) but a later step failed: e says which and what was left (completed
 * at once, or a journal that the next fak command completes). */
int witness_promote_commit(const struct promotion *p, const struct witness_paths *paths,
			   struct err *e);

/* Where a promotion of this process is, for a signal handler (async-signal
 * safe): none, staging (a stop now leaves staged files that the next fak
 * command rolls back) or committed (the next fak command completes it). */
enum { WITNESS_PHASE_NONE, WITNESS_PHASE_STAGING, WITNESS_PHASE_COMMITTED };
int witness_commit_phase(void);
void promotion_release(struct promotion *p);

/* Finds a journal in dir (the graph file's folder) and completes or rolls
 * back the promotion it describes. *what (may be NULL) gets "", "completed"
 * or "rolled back". */
int witness_recover(const char *dir, const char **what, struct err *e);

/* What --verify-witnesses found. */
struct witness_summary {
	size_t folders, verified, external;
	bool has_ledger;	/* the root has an attempt ledger (its chain verified) */
	size_t ledger_lines;
};

/* Re-verifies every witness folder under root (manifest, digests,
 * attestations, receipts, a passing gate verdict), that each witnessed
 * lever and each index row naming a witness names one that verifies, and
 * that no folder is orphaned. External witnesses (evidence recorded before
 * fak kept witness folders, which names an issue instead) are counted. */
void witness_verify(const char *root, const struct graph *g, const struct index *idx,
		    struct witness_summary *sum, struct findings *out);

/* Strict decoders of the two documents a witness and a promotion keep on
 * disk (they are outside input once written): MANIFEST.json and the
 * journal. Errors carry the JSON path. */
struct witness_manifest {
	json_t *doc;		/* owned; strings borrow into it */
	const char *envelope_id, *lever_id, *observed_on, *fak_version, *graph_sha256;
	const char *schema;
	/* v3: the digest and the object of the envelope witnessed in; NULL in v2 */
	const char *envelope_digest;
	const json_t *envelope;
	struct witness_entry {
		const char *path, *sha256;
		long long bytes;
	} *files;		/* owned array */
	size_t nr_files;
	struct witness_attempt attempt;	/* "attempt": null for a manual loop */
};
int witness_manifest_parse(const char *buf, size_t len, struct witness_manifest *m, struct err *e);
/* Whether the manifest lists the file path ("parity.json"). */
bool witness_manifest_lists(const struct witness_manifest *m, const char *path);
void witness_manifest_release(struct witness_manifest *m);

struct witness_journal {
	json_t *doc;		/* owned */
	bool committing;	/* else staging */
	const char **staged;	/* owned array of borrowed paths */
	size_t nr_staged;
	struct witness_step {
		bool dir;
		const char *from, *to, *sha256;	/* sha256 NULL for a folder */
	} *steps;
	size_t nr_steps;
};
/* Also refuses any path fak would not have written: every staged and
 * every "from" path is absolute and named .fak-promote-*, and a step moves
 * it only below its own folder (a damaged or planted journal cannot make
 * recovery delete or move anything else). */
int witness_journal_parse(const char *buf, size_t len, struct witness_journal *j, struct err *e);
void witness_journal_release(struct witness_journal *j);

/* The test knob of the fault-injection tests: $FAK_PROMOTE_FAULT=N kills
 * fak with SIGKILL at the N-th step of witness_promote_commit; fail:N makes
 * that step fail (EXDEV), stop:N sends fak SIGTERM there. */
#define WITNESS_FAULT_ENV "FAK_PROMOTE_FAULT"

#endif
