/* receipt/attach and embedded attestations, on real attestations recorded by
 * `fak bench system-baseline` (tests/fixtures/receipts/att-*.json). */
#include <criterion/criterion.h>
#include <string.h>

#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "test_receipt_util.h"

#define FIX "tests/fixtures/receipts/"

struct attach_out {
	json_t *doc;
	const char *what;
	char *findings;
	struct err e;
};

/* Attach attestation file att to the receipt document rdoc (borrowed). */
static void attach(json_t *rdoc, const char *att, struct attach_out *o)
{
	struct graph g;
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	json_t *a = tu_json(att);

	tu_graph(&g);
	cr_assert_eq(receipt_decode(&r, rdoc, NULL, &o->e), 0, "%s", o->e.msg);
	o->what = NULL;
	o->e.msg[0] = '\0';
	o->doc = receipt_attach(&r, a, &g, &o->what, &f, &o->e);
	o->findings = tu_join(&f);
	findings_release(&f);
	receipt_release(&r);
	json_decref(a);
	graph_release(&g);
}

static void attach_ok(json_t **rdoc, const char *att)
{
	struct attach_out o;

	attach(*rdoc, att, &o);
	cr_assert_not_null(o.doc, "%s refused: %s %s %s", att, o.what ? o.what : "", o.findings,
			   o.e.msg);
	free(o.findings);
	json_decref(*rdoc);
	*rdoc = o.doc;
}

static const char *digest_of(const char *att)
{
	static char d[JSON_DIGEST_LEN + 1];
	json_t *a = tu_json(att);

	snprintf(d, sizeof(d), "%s", json_string_value(json_object_get(a, "digest")));
	json_decref(a);
	return d;
}

Test(attach, v1_is_upgraded_and_grows_one_repetition_at_a_time)
{
	json_t *doc = tu_json(FIX "v1-metal-baseline-identity.json"), *orig = json_deep_copy(doc);
	static const char *const att[] = { FIX "att-1.json", FIX "att-2.json", FIX "att-3.json" };
	struct attach_out o;
	char *s;

	for (int i = 0; i < 3; i++) {
		char path[64];

		attach_ok(&doc, att[i]);
		cr_expect_str_eq(json_string_value(json_object_get(doc, "schema")),
				 RECEIPT_SCHEMA_V2);
		cr_expect_eq(json_array_size(json_object_get(doc, "system_baselines")),
			     (size_t)i + 1);
		snprintf(path, sizeof(path), "repetitions.%d.system_baseline_digest", i);
		cr_expect_str_eq(json_string_value(tu_get(doc, path)), digest_of(att[i]));
	}
	cr_expect_null(tu_get(orig, "system_baselines"), "the input document changed");
	s = tu_validate(doc);
	cr_expect_str_eq(s, "");
	free(s);

	attach(doc, FIX "att-4.json", &o);
	cr_expect_null(o.doc);
	cr_expect_str_eq(o.findings, "");
	cr_expect_str_eq(o.e.msg, "system baselines already cover every repetition (3 of 3)");
	free(o.findings);
	json_decref(doc);
	json_decref(orig);
}

Test(attach, v1_without_an_identity_cannot_be_upgraded)
{
	json_t *doc = tu_json(FIX "v1-metal-baseline.json");
	struct attach_out o;

	attach(doc, FIX "att-1.json", &o);
	cr_expect_null(o.doc);
	cr_expect_str_eq(o.what,
			 "attach system baseline: receipt cannot be upgraded from v1 to v2");
	cr_expect(strstr(o.findings, "comparison: does not match the criterion resolved from run "
				     "identity") == o.findings, "%s", o.findings);
	free(o.findings);
	json_decref(doc);
}

Test(attach, the_same_attestation_twice_is_reuse)
{
	json_t *doc = tu_json(FIX "metal-baseline.json");
	struct attach_out o;

	attach_ok(&doc, FIX "att-1.json");
	attach(doc, FIX "att-1.json", &o);
	cr_expect_null(o.doc);
	cr_expect_str_eq(o.what, "attach system baseline: refused");
	cr_expect_str_eq(o.findings, "system_baselines[1]: reuses the attestation digest of "
				     "system_baselines[0]");
	free(o.findings);
	json_decref(doc);
}

Test(attach, a_tampered_attestation_is_refused)
{
	json_t *doc = tu_json(FIX "metal-baseline.json");
	struct attach_out o;

	attach(doc, FIX "att-tampered.json", &o);
	cr_expect_null(o.doc);
	cr_expect_str_eq(o.findings, "");
	cr_expect(strstr(o.e.msg, "system baseline: ") == o.e.msg, "%s", o.e.msg);
	cr_expect(strstr(o.e.msg, "canonical digest mismatch") != NULL, "%s", o.e.msg);
	json_decref(doc);
	free(o.findings);
}

Test(attach, legacy_ambient_evidence_cannot_take_attestations)
{
	json_t *doc = tu_json(FIX "v1-metal-baseline-identity.json");
	struct attach_out o;

	tu_set(doc, "ambient_evidence", json_array());
	attach(doc, FIX "att-1.json", &o);
	cr_expect_null(o.doc);
	cr_expect_str_eq(o.e.msg, "receipt already carries legacy ambient evidence; capture a new "
				  "receipt with system-baseline attestations instead");
	free(o.findings);
	json_decref(doc);
}

Test(embedded, edits_bindings_and_mixing_are_findings)
{
	json_t *doc = tu_json(FIX "metal-baseline.json"), *d;
	char *s;

	attach_ok(&doc, FIX "att-1.json");
	attach_ok(&doc, FIX "att-2.json");

	/* the embedded attestation edited after sealing */
	d = json_deep_copy(doc);
	tu_set(d, "system_baselines.0.command_exit_code", json_integer(9));
	s = tu_validate(d);
	cr_expect(strstr(s, "system_baselines[0]: invalid attestation: ") == s, "%s", s);
	cr_expect(strstr(s, "canonical digest mismatch") != NULL, "%s", s);
	free(s);
	json_decref(d);

	/* binding swapped */
	d = json_deep_copy(doc);
	tu_set(d, "repetitions.0.system_baseline_digest", json_string(digest_of(FIX "att-2.json")));
	s = tu_validate(d);
	cr_expect_str_eq(s, "repetitions[0].system_baseline_digest: binding does not match "
			    "system_baselines[0].digest");
	free(s);
	json_decref(d);

	/* v1 with attestations */
	d = json_deep_copy(doc);
	tu_set(d, "schema", json_string(RECEIPT_SCHEMA_V1));
	s = tu_validate(d);
	cr_expect_str_eq(s, "repetitions[0].system_baseline_digest: a v1 repetition cannot bind "
			    "system-baseline evidence\n"
			    "repetitions[1].system_baseline_digest: a v1 repetition cannot bind "
			    "system-baseline evidence\n"
			    "system_baselines: a v1 receipt cannot carry system-baseline "
			    "attestations");
	free(s);
	json_decref(d);

	/* both legacy ambient evidence and attestations */
	d = json_deep_copy(doc);
	tu_set(d, "ambient_evidence", json_array());
	s = tu_validate(d);
	cr_expect_str_eq(s, "ambient_evidence: 0 entries must align 1:1 with 3 repetitions\n"
			    "ambient_evidence: a receipt cannot carry both legacy ambient evidence "
			    "and system-baseline attestations");
	free(s);
	json_decref(d);

	/* more attestations than repetitions */
	d = json_deep_copy(doc);
	json_array_append_new(json_object_get(d, "system_baselines"), tu_json(FIX "att-3.json"));
	json_array_append_new(json_object_get(d, "system_baselines"), tu_json(FIX "att-4.json"));
	s = tu_validate(d);
	cr_expect(strstr(s, "system_baselines: 4 attestations exceed 3 repetitions") != NULL, "%s",
		  s);
	free(s);
	json_decref(d);
	json_decref(doc);
}
