#ifndef FAK_ATTESTATION_LAYOUT_H
#define FAK_ATTESTATION_LAYOUT_H
/* The experiment folder's layout, defined once: what `fak bench experiment`
 * writes (experiment/), what --promote reads there and copies into a
 * witness folder and --verify-witnesses checks again (witness/), and the
 * names receipts, gate documents, logs and reports give each other
 * (receipt/, workload/, render/). Here, below all of them (tests/layers.sh),
 * since each run's attestation is the first thing the folder holds. The
 * tree is drawn in docs/experiments.md. */

/* the documents, in the folder itself */
#define LAYOUT_BASELINE "baseline.json"		/* the baseline arm's receipt */
#define LAYOUT_CANDIDATE "candidate.json"	/* the candidate arm's receipt */
#define LAYOUT_COMPARISON "comparison.json"
#define LAYOUT_GATE_REQUEST "gate-request.json"
#define LAYOUT_GATE "gate.json"			/* the gate's verdict */
#define LAYOUT_CHART "chart.svg"		/* every run's tok/s in order */
#define LAYOUT_PARITY "parity.json"		/* a parity campaign's, instead of receipts */
#define LAYOUT_ATTEMPT "attempt.json"		/* its attempt in the ledger */

/* the folders: each run's attestation (attestations/NAME.json) and its
 * captured output (logs/NAME.stdout and .stderr; a serving run's requests
 * logs/NAME.requests.jsonl) */
#define LAYOUT_ATTESTATIONS "attestations"
#define LAYOUT_LOGS "logs"
#define LAYOUT_REQUESTS ".requests.jsonl"
/* a serving run's quality prompts and their outputs: logs/NAME.quality.jsonl */
#define LAYOUT_QUALITY ".quality.jsonl"

/* a witness folder's own: the digests of the logs it leaves out */
#define LAYOUT_WITNESS_LOGS "logs.json"

#endif
