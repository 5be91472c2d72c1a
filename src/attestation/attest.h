#ifndef FAK_ATTESTATION_ATTEST_H
#define FAK_ATTESTATION_ATTEST_H
/* System-baseline attestation (schema fak.system-baseline/v1): the sealed
 * document `fak bench system-baseline` writes. This header is the contract
 * that receipt/ (attach, gate) relies on; attestation/ implements it. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "attestation/simulated.h"

#define ATTESTATION_SCHEMA "fak.system-baseline/v1"
/* v1 plus the sealed workload section of `fak bench experiment` runs. */
#define ATTESTATION_SCHEMA_V2 "fak.system-baseline/v2"
#define ATTESTATION_MAX_BYTES ((size_t)1 << 20)	/* standalone documents: 1 MiB */

/* What other modules need to know about one verified attestation. Strings
 * are borrowed from the document passed to attestation_check. */
struct attestation_facts {
	char digest[JSON_DIGEST_LEN + 1];	/* recomputed; equals the recorded one */
	const char *verdict;	/* "clean" | "investigate" | "invalid" */
	const char *coverage;	/* "exact_subreaper_rusage" | "exact_cgroup_v2" |
				   "sampled_pid_ppid_tree" | "" (no command samples) */
	bool has_top_consumers;	/* top_non_sut_consumers is non-empty */
	/* The test seams it was sealed under ("FAK_PROC_ROOT, ..."), "" for
	 * none: such an attestation is not evidence of a host. */
	char simulated[SIM_TEXT_MAX];
	long long baseline_samples;
	long long baseline_duration_ns;
	bool baseline_host_cpu_available;
	bool host_cpu_available, sut_cpu_available, non_sut_cpu_available;
	/* A run of `fak bench experiment` (v2): whether the sampler looked for
	 * the pinned artifact in use, could see it on this OS, and saw it. */
	bool has_workload;
	bool artifact_looked, artifact_observable, artifact_observed;
	/* The policy the attestation was sealed under (its verdict is only as
	 * strict as these values). */
	struct {
		long long minimum_baseline_samples, minimum_samples;
		double maximum_non_sut_cpu_percent, maximum_sampler_duty_percent,
			maximum_psi_stall_percent;
		bool require_host_cpu, require_sut_cpu;
	} policy;
};

/* Strict decode of a standalone attestation: at most ATTESTATION_MAX_BYTES, one
 * JSON value. Returns a new reference in *doc (caller decrefs). Does not
 * verify: call attestation_check. */
int attestation_parse(const char *buf, size_t len, json_t **doc, struct err *e);

/* Verify a decoded attestation (borrowed; standalone or embedded in a
 * receipt): schema, every field and type (unknown keys rejected, with the
 * JSON path), the verdict re-derived from the recorded figures and policy,
 * and the RFC 8785 digest of the document without "digest". A document
 * edited after sealing fails with a message containing
 * "canonical digest mismatch". Fills *facts on success. */
int attestation_check(const json_t *doc, struct attestation_facts *facts, struct err *e);

/* ---- additions by attestation/ (the lines above are the original contract) */

struct attestation;

/* attestation_check that also hands back the decoded attestation (caller-owned
 * storage). Same checks, same messages. */
int attestation_check_decode(const json_t *doc, struct attestation *r, struct err *e);

/* The facts attestation_check reports, from an attestation attestation_check_decode
 * passed (strings static or copied: they outlive r's document). */
void attestation_facts_of(const struct attestation *r, struct attestation_facts *facts);

/* The sealed attestation as `fak bench system-baseline` prints it: two-space
 * indented JSON and one newline, appended to out. */
void attestation_render(const struct attestation *r, struct strbuf *out);

/* What `--verify FILE` does with the file's bytes: attestation_parse, then
 * attestation_check, then the bytes must equal attestation_render of the decoded
 * document exactly, so any edited byte (even whitespace) fails. */
int attestation_verify_bytes(const char *buf, size_t len, struct attestation_facts *facts,
			     struct err *e);

/* How far attestation_load goes with a file. */
enum attestation_level {
	ATTESTATION_PARSED,	/* read (at most ATTESTATION_MAX_BYTES) and attestation_parse */
	ATTESTATION_VERIFIED,	/* and what --verify does: attestation_check_decode, then the
				   bytes equal the sealed rendering (attestation_verify_bytes) */
};

/* One attestation file as attestation_load leaves it (zero it first, or use
 * ATTESTATION_LOADED_INIT); attestation_loaded_release frees what it owns, after a
 * failed load too. */
struct attestation_loaded {
	struct strbuf bytes;		/* the file as read; owned */
	json_t *doc;			/* owned; NULL until parsed */
	struct attestation *att;	/* ATTESTATION_VERIFIED: the decoded attestation; owned */
	struct attestation_facts facts;	/* ATTESTATION_VERIFIED; strings static or in doc */
	bool unread;			/* on failure: the file itself could not be read
					   (missing, a folder, larger than the cap) */
};
#define ATTESTATION_LOADED_INIT { .bytes = STRBUF_INIT }

/* The one loader of attestation files (the CLI's --verify and
 * --attach-receipt, promotion's attestations/): reads path, then checks it
 * up to level. -1 with the message of the step that failed, unprefixed:
 * file_read's ("cannot read 'PATH': ..."), then those of attestation_parse,
 * attestation_check_decode and attestation_verify_bytes, in that order. */
int attestation_load(const char *path, enum attestation_level level, struct attestation_loaded *out,
		     struct err *e);
void attestation_loaded_release(struct attestation_loaded *a);

#endif
