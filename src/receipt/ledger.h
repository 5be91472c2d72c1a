#ifndef FAK_RECEIPT_LEDGER_H
#define FAK_RECEIPT_LEDGER_H
/* The attempt ledger: one append-only file, attempts.jsonl in the witness
 * root, committed with the witnesses. Every `fak bench experiment` with a
 * witness root appends a "started" line before its first run and an
 * "ended" line after its gate (or its failure or interruption), so every
 * attempt at a lever counts, the ones that did not pass too.
 *
 * Each line is the RFC 8785 canonical JSON of one object and a newline:
 *   schema            "fak-attempt-ledger/v1"
 *   seq               1, 2, 3, ... (consecutive)
 *   prev              the previous line's digest ("sha256:" + 64 zeros for
 *                     the first line)
 *   event             "started" | "ended"
 *   experiment_id     32 hex digits (sealed into every run of it)
 *   lever_id, envelope_id
 *   envelope_digest   "sha256:..." of the envelope (graph_envelope_digest)
 *   criterion_digest  "sha256:..." of its criterion
 *   time              RFC 3339 UTC (timestamp_format)
 *   out_dir           the experiment folder as given when relative, else
 *                     only its last component (never a private absolute path)
 *   verdict, gate     "ended" only: the primary metric's comparison verdict
 *                     (or "failed" / "interrupted"), and the gate's class
 *                     (pass, investigate, regression, or none)
 *   digest            "sha256:" + sha256 of the canonical form of the
 *                     object without digest
 * The hash chain (prev) makes an edited, deleted, inserted or swapped line
 * visible to ledger_parse, which names the first line that breaks it.
 * Truncating lines off the end leaves a valid chain: only a witness that
 * names a later line (its attempt and the ledger head at promotion) sees
 * that. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "attestation/layout.h"
#include "base/err.h"
#include "base/json.h"

#define LEDGER_SCHEMA "fak-attempt-ledger/v1"
#define LEDGER_FILE "attempts.jsonl"
/* Caps: the file (about 100,000 attempts) and one line. */
#define LEDGER_MAX_BYTES ((size_t)64 << 20)
#define LEDGER_LINE_MAX 4096
#define LEDGER_ZERO "sha256:0000000000000000000000000000000000000000000000000000000000000000"

enum ledger_event { LEDGER_STARTED, LEDGER_ENDED };

/* One verified line; strings borrow from doc. */
struct ledger_line {
	json_t *doc;		/* owned */
	long long seq;
	enum ledger_event event;
	const char *prev, *experiment_id, *lever_id, *envelope_id, *envelope_digest,
		   *criterion_digest, *time, *out_dir, *digest;
	const char *verdict, *gate;	/* "ended" only, else NULL */
};

struct ledger {
	struct ledger_line *lines;	/* owned, in file order (line i has seq i + 1) */
	size_t nr;
	bool missing;			/* ledger_load: the file does not exist */
};

/* What an append records; the ledger fills schema, seq, prev, time and
 * digest. verdict and gate only for LEDGER_ENDED. */
struct ledger_entry {
	enum ledger_event event;
	const char *experiment_id, *lever_id, *envelope_id, *envelope_digest, *criterion_digest;
	const char *out_dir;	/* as given: ledger_append scrubs it */
	const char *verdict, *gate;
};

/* Parses and verifies the whole text of a ledger (what: its name in
 * errors). Every line must be strict JSON in canonical form, of the
 * schema, with seq consecutive from 1, prev equal to the previous line's
 * digest and its own digest right; the text must end with a newline (a
 * last line without one is a torn write). Errors name the line:
 * "<what>: line 3: prev is ..., the digest of line 2 is ...". */
int ledger_parse(const char *buf, size_t len, const char *what, struct ledger *l, struct err *e);
/* Reads and verifies the ledger at path: a missing file is an empty
 * ledger with l->missing set; anything but a regular file (a symbolic
 * link, a folder, a FIFO) is refused, as is a file over the cap. */
int ledger_load(const char *path, struct ledger *l, struct err *e);
void ledger_release(struct ledger *l);

/* Before an experiment's first run: path can be appended to (it is a
 * regular file whose chain verifies, or missing in a folder that exists
 * or can be created: its parent exists). */
int ledger_check(const char *path, struct err *e);

/* Appends one line: opens path with O_APPEND|O_CREAT (0644; creating its
 * folder when only that is missing), never following a symbolic link or
 * writing to a non-regular file, takes an exclusive flock, verifies the
 * chain as it stands, writes the new line in one write() and fsyncs.
 * *seq and digest get the new line's. */
int ledger_append(const char *path, const struct ledger_entry *in, long long *seq,
		  char digest[JSON_DIGEST_LEN + 1], struct err *e);

/* The out_dir a line records for dir (caller frees): dir without trailing
 * slashes when it is relative and has no ".." component, else its last
 * component. */
char *ledger_scrub_dir(const char *dir);

/* attempt.json, what an experiment folder says of its attempt
 * (fak-attempt-record/v1): the members in this order, strings borrowed
 * (from doc after ledger_record_parse). */
#define LEDGER_RECORD_SCHEMA "fak-attempt-record/v1"
#define LEDGER_RECORD_FILE LAYOUT_ATTEMPT
struct ledger_record {
	json_t *doc;		/* ledger_record_parse: owned */
	const char *schema, *experiment_id, *lever_id, *envelope_id, *envelope_digest;
	const char *ledger;	/* the ledger's path, scrubbed like out_dir */
	int64_t attempt, attempts;	/* k of n, n as known when it ended */
	int64_t started_seq;
	const char *started_digest;
	int64_t ended_seq;
	const char *ended_digest;
};
/* The document (new reference); schema is set here. */
json_t *ledger_record_json(const struct ledger_record *r);
/* Strict: exactly the members above, ids and digests well formed,
 * 1 <= attempt <= attempts, 1 <= started_seq < ended_seq. */
int ledger_record_parse(const char *buf, size_t len, const char *what, struct ledger_record *r,
			struct err *e);
void ledger_record_release(struct ledger_record *r);

/* The line of experiment id with event ev, or NULL. */
const struct ledger_line *ledger_find(const struct ledger *l, const char *experiment_id,
				      enum ledger_event ev);
/* How many attempts (started lines) of lever in the envelope of
 * envelope_digest the ledger holds. */
size_t ledger_attempts(const struct ledger *l, const char *lever_id, const char *envelope_digest);
/* Which attempt experiment id is among those of its lever and envelope
 * digest (1-based, in ledger order); 0 when it has no started line. */
size_t ledger_attempt_number(const struct ledger *l, const char *experiment_id);
/* The digest of the last line (LEDGER_ZERO for an empty ledger). */
const char *ledger_head(const struct ledger *l);

#endif
