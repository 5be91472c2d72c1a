/* libFuzzer target: strict attestation decoding and verification (the
 * --verify path). Anything that verifies must re-render to itself and keep
 * its digest. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attestation_facts facts;
	struct attestation *r = malloc(sizeof(*r));
	struct err e;
	json_t *doc;

	if (!r)
		return 0;
	if (attestation_parse((const char *)data, size, &doc, &e) == 0) {
		if (attestation_check_decode(doc, r, &e) == 0) {
			struct strbuf sb = STRBUF_INIT;
			char digest[JSON_DIGEST_LEN + 1];

			/* the decoded report renders and seals to the same digest */
			memcpy(digest, r->digest, sizeof(digest));
			if (attestation_seal(r, &e) < 0 || strcmp(digest, r->digest))
				abort();
			attestation_render(r, &sb);
			if (attestation_verify_bytes(sb.buf, sb.len, &facts, &e) < 0 ||
			    strcmp(facts.digest, digest))
				abort();
			sb_release(&sb);
		}
		json_decref(doc);
	}
	(void)attestation_verify_bytes((const char *)data, size, &facts, &e);
	free(r);
	return 0;
}
