/* attest.h: decode and verify sealed attestations. */
#include "attestation/attest.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "attestation/attestation.h"

int attestation_parse(const char *buf, size_t len, json_t **doc, struct err *e)
{
	*doc = NULL;
	if (len > ATTESTATION_MAX_BYTES)
		return err_set(e, "attestation exceeds %zu bytes", ATTESTATION_MAX_BYTES);
	*doc = json_parse_strict(buf, len, "attestation", e);
	if (!*doc)
		return -1;
	if (!json_is_object(*doc)) {
		json_decref(*doc);
		*doc = NULL;
		return err_set(e, "attestation: expected a JSON object");
	}
	return 0;
}

static int same_findings(const struct attestation *recorded, const struct attestation *derived,
			 struct err *e)
{
	size_t n = recorded->nr_findings > derived->nr_findings ? recorded->nr_findings
								: derived->nr_findings;

	for (size_t i = 0; i < n; i++) {
		const char *rc = i < recorded->nr_findings ? recorded->findings[i].code : "(none)";
		const char *dc = i < derived->nr_findings ? derived->findings[i].code : "(none)";
		const char *rd = i < recorded->nr_findings ? recorded->findings[i].detail : "";
		const char *dd = i < derived->nr_findings ? derived->findings[i].detail : "";

		if (strcmp(rc, dc) || strcmp(rd, dd))
			return err_set(e,
				       "findings[%zu]: recorded %s \"%s\" but the policy-derived "
				       "finding is %s \"%s\"",
				       i, rc, rd, dc, dd);
	}
	return 0;
}

int attestation_check_decode(const json_t *doc, struct attestation *r, struct err *e)
{
	struct attestation *derived;
	char digest[JSON_DIGEST_LEN + 1];
	int rc;

	if (attestation_decode(doc, r, e) < 0)
		return -1;
	if (json_digest(doc, "digest", digest, e) < 0)
		return -1;
	if (strcmp(digest, r->digest))
		return err_set(e,
			       "canonical digest mismatch: recorded \"%s\", computed \"%s\"; "
			       "the attestation was changed after it was sealed",
			       r->digest, digest);
	if (attestation_validate(r, e) < 0)
		return -1;
	derived = xmalloc(sizeof(*derived));
	*derived = *r;
	attestation_classify(derived);
	if (strcmp(derived->verdict, r->verdict))
		rc = err_set(e, "verdict \"%s\" differs from the policy-derived verdict \"%s\"",
			     r->verdict, derived->verdict);
	else
		rc = same_findings(r, derived, e);
	free(derived);
	return rc;
}

/* The validated verdict and coverage as static strings: they outlive doc. */
static const char *static_name(const char *s)
{
	static const char *const names[] = { "clean", "investigate", "invalid", COVERAGE_SUBREAPER,
					     COVERAGE_CGROUP, COVERAGE_SAMPLED, NULL };

	for (const char *const *n = names; *n; n++)
		if (!strcmp(*n, s))
			return *n;
	return "";
}

void attestation_facts_of(const struct attestation *r, struct attestation_facts *facts)
{
	memset(facts, 0, sizeof(*facts));
	memcpy(facts->digest, r->digest, sizeof(facts->digest));
	facts->verdict = static_name(r->verdict);
	facts->coverage = static_name(r->coverage.descendant_attribution);
	facts->has_top_consumers = r->nr_consumers > 0;
	simulated_join(&r->simulated, facts->simulated, sizeof(facts->simulated));
	facts->has_workload = r->has_workload;
	facts->artifact_looked = r->has_workload && r->workload.artifact.looked;
	facts->artifact_observable = facts->artifact_looked && r->workload.artifact.observable;
	facts->artifact_observed = facts->artifact_observable && r->workload.artifact.observed;
	facts->baseline_samples = r->baseline_window.samples;
	facts->baseline_duration_ns = r->baseline_window.duration_ns;
	facts->baseline_host_cpu_available = r->baseline_host_totals.cpu_percent.available;
	facts->host_cpu_available = r->host_totals.cpu_percent.available;
	facts->sut_cpu_available = r->attribution.sut_cpu_percent_of_host.available;
	facts->non_sut_cpu_available = r->attribution.non_sut_cpu_percent_of_host.available;
	facts->policy.minimum_baseline_samples = r->policy.minimum_baseline_samples;
	facts->policy.minimum_samples = r->policy.minimum_samples;
	facts->policy.maximum_non_sut_cpu_percent = r->policy.maximum_non_sut_cpu_percent;
	facts->policy.maximum_sampler_duty_percent = r->policy.maximum_sampler_duty_percent;
	facts->policy.maximum_psi_stall_percent = r->policy.maximum_psi_stall_percent;
	facts->policy.require_host_cpu = r->policy.require_host_cpu;
	facts->policy.require_sut_cpu = r->policy.require_sut_cpu;
}

int attestation_check(const json_t *doc, struct attestation_facts *facts, struct err *e)
{
	struct attestation *r = xmalloc(sizeof(*r));
	int rc = attestation_check_decode(doc, r, e);

	if (rc == 0)
		attestation_facts_of(r, facts);
	free(r);
	return rc;
}

void attestation_render(const struct attestation *r, struct strbuf *out)
{
	json_t *doc = attestation_to_json(r, true);

	json_write_pretty(out, doc);
	json_decref(doc);
}

/* The bytes of a checked document must be its sealed rendering exactly. */
static int same_rendering(const char *buf, size_t len, const json_t *doc, struct err *e)
{
	struct strbuf again = STRBUF_INIT;
	size_t at = 0, line = 1, want;

	json_write_pretty(&again, doc);
	while (at < len && at < again.len && buf[at] == again.buf[at])
		at++;
	want = again.len;
	sb_release(&again);
	if (at == len && at == want)
		return 0;
	for (size_t i = 0; i < at && i < len; i++)
		line += buf[i] == '\n';
	return err_set(e, "bytes differ from the sealed rendering at line %zu (byte %zu); "
		       "the file was edited after it was written", line, at + 1);
}

/* attestation_verify_bytes on a parsed document, handing back its attestation. */
static int verify_doc(const char *buf, size_t len, const json_t *doc, struct attestation *r,
		      struct attestation_facts *facts, struct err *e)
{
	if (attestation_check_decode(doc, r, e) < 0)
		return -1;
	attestation_facts_of(r, facts);
	return same_rendering(buf, len, doc, e);
}

int attestation_verify_bytes(const char *buf, size_t len, struct attestation_facts *facts,
			     struct err *e)
{
	struct attestation *r;
	json_t *doc;
	int rc;

	if (attestation_parse(buf, len, &doc, e) < 0)
		return -1;
	r = xmalloc(sizeof(*r));
	rc = verify_doc(buf, len, doc, r, facts, e);
	free(r);
	json_decref(doc);
	return rc;
}

int attestation_load(const char *path, enum attestation_level level, struct attestation_loaded *out,
		     struct err *e)
{
	out->unread = file_read(path, ATTESTATION_MAX_BYTES, &out->bytes, e) < 0;
	if (out->unread)
		return -1;
	if (attestation_parse(out->bytes.buf, out->bytes.len, &out->doc, e) < 0)
		return -1;
	if (level == ATTESTATION_PARSED)
		return 0;
	out->att = xmalloc(sizeof(*out->att));
	return verify_doc(out->bytes.buf, out->bytes.len, out->doc, out->att, &out->facts, e);
}

void attestation_loaded_release(struct attestation_loaded *a)
{
	sb_release(&a->bytes);
	json_decref(a->doc);
	free(a->att);
	memset(a, 0, sizeof(*a));
}
