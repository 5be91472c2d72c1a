/* Receipt decode (strict, structural) and encode (documented key order). */
#include "receipt/receipt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "receipt/fields.h"
#include "receipt/verified.h"

/* Receipts are small; a generous cap still bounds hostile input. */
#define RECEIPT_MAX_BYTES ((size_t)16 << 20)

const char *const receipt_canonical_controls[RECEIPT_NR_CONTROLS] = {
	"artifact_sha256", "machine", "prompt_tokens", "decode_tokens", "batch",
	"context_tokens", "temperature", "sampling", "cache_state", "warmups",
	"repetitions", "execution_identity",
};

int receipt_decode(struct receipt *r, const json_t *v, const struct jpath *at, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->doc = json_incref((json_t *)(uintptr_t)v);
	if (jf_decode(receipt_fields, v, at, r, e) < 0) {
		receipt_release(r);
		return -1;
	}
	receipt_verify_attestations(r);
	return 0;
}

int receipt_parse(struct receipt *r, const char *buf, size_t len, const char *name, struct err *e)
{
	json_t *v = json_parse_strict(buf, len, name, e);
	int rc;

	memset(r, 0, sizeof(*r));
	if (!v)
		return -1;
	rc = receipt_decode(r, v, NULL, e);
	json_decref(v);
	if (rc < 0 && name)
		err_prefix(e, "%s", name);
	return rc;
}

int receipt_load(struct receipt *r, const char *path, struct err *e)
{
	return receipt_load_sha256(r, path, NULL, e);
}

int receipt_load_sha256(struct receipt *r, const char *path, char sha256[65], struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	memset(r, 0, sizeof(*r));
	if (file_read(path, RECEIPT_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	if (sha256)
		sha256_hex(sb.buf, sb.len, sha256);
	rc = receipt_parse(r, sb_str(&sb), sb.len, path, e);
	sb_release(&sb);
	return rc;
}

void receipt_release(struct receipt *r)
{
	receipt_release_attestations(r);
	free(r->unchanged_controls.v);
	free(r->changed_axes.v);
	free(r->reps);
	free(r->ambient);
	free(r->modules);
	free(r->commands.v);
	free(r->artifacts);
	free(r->system_baselines);
	free(r->experiment.schedule);
	free(r->experiment.sequential.looks);
	free(r->experiment.controls_not_observed.v);
	free(r->envelope_state.levers);
	json_decref(r->doc);
	memset(r, 0, sizeof(*r));
}

json_t *receipt_to_json(const struct receipt *r)
{
	return jf_to_json(receipt_fields, r);
}
