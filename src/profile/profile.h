#ifndef FAK_PROFILE_PROFILE_H
#define FAK_PROFILE_PROFILE_H
/* Profile bundles (schema fak-native-performance-profile/v1) and the
 * bottleneck classifier (fak-native-performance-bottleneck/v1).
 *
 * A bundle binds a scrubbed profiler capture to one envelope of the graph in
 * use and to its fak-native execution identity. Decoding is strict (unknown
 * keys, wrong types, null, missing fields: error with the JSON path).
 * Validation collects every finding against the graph. The classifier is a
 * rule table per backend, tested top-down; Metal and CUDA counters are never
 * compared with each other. --profile-next compares the recommendation with
 * the envelope's first dependency-ready lever in graph order.
 *
 * Strings in struct profile are borrowed from p->doc; levers returned by the
 * functions below are borrowed from the graph. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/findings.h"
#include "graph/graph.h"

#define PROFILE_SCHEMA "fak-native-performance-profile/v1"
#define PROFILE_BOTTLENECK_SCHEMA "fak-native-performance-bottleneck/v1"
/* Bundles are small scrubbed manifests; anything larger is refused. */
#define PROFILE_MAX_BYTES ((size_t)4 << 20)
#define PROFILE_NR_PHASES 6

/* The six phases, in the order every bundle carries them. */
extern const char *const profile_phase_names[PROFILE_NR_PHASES];
/* The closed list of attribution_unavailable reasons, NULL-terminated. */
extern const char *const profile_unavailable_reasons[];

struct profile_phase {
	const char *name;
	double start_ms, duration_ms;	/* start_milliseconds, duration_milliseconds */
};

struct profile_metal {
	long long command_buffers, encoders;
	double dispatch_ms, wait_ms;	/* dispatch_milliseconds, wait_milliseconds */
	unsigned long long resident_bytes, working_set_bytes;
};

struct profile_cuda {
	long long launches;
	double occupancy_percent;
	double achieved_bandwidth_gbs, peak_bandwidth_gbs;
	double achieved_compute_tflops, peak_compute_tflops;
	double synchronization_ms;	/* synchronization_milliseconds */
};

struct profile_attribution {
	const char *name;
	long long layer;
	const char *lever_id;
	long long count;
};

struct profile {
	json_t *doc;	/* owned: every string below points into it */
	const char *schema, *envelope_id;
	struct {
		const char *engine, *forward_path;
		long long fallback_count;
	} execution;
	struct profile_phase *phases;	/* owned array */
	size_t nr_phases;
	bool has_metal, has_cuda;	/* the counter blocks present */
	struct profile_metal metal;
	struct profile_cuda cuda;
	struct profile_attribution *attributions;	/* owned array */
	size_t nr_attributions;
	bool has_unavailable;
	struct {
		const char *reason, *detail;
	} unavailable;
	size_t nr_counter_comparisons;	/* any is a finding */
	bool has_override;
	struct {
		long long issue_number;
		const char *reason;
	} override;
};

/* Strict parse of one bundle (its bytes). name is used in messages:
 * "cannot decode profile '<name>': <JSON path>: <reason>". On failure p is
 * left released. Size is not checked here (see profile_load). */
int profile_parse(struct profile *p, const char *buf, size_t len, const char *name,
		  struct err *e);
/* Read path (at most PROFILE_MAX_BYTES) and decode it. */
int profile_load(struct profile *p, const char *path, struct err *e);
void profile_release(struct profile *p);

/* Every rule of the schema against graph g (which must be valid): schema,
 * envelope binding, identity and exact forward path, the six ordered
 * non-overlapping phases, the counter block of the envelope's backend and its
 * domains, dispatch attribution or its typed unavailability, counter
 * comparisons, the selection override. Findings are appended and sorted. */
void profile_validate(const struct profile *p, const struct graph *g, struct findings *out);

/* ---- classifier ------------------------------------------------------ */

enum profile_backend { PROFILE_METAL, PROFILE_CUDA };

/* Quantities the rules test. Each belongs to exactly one backend. */
enum profile_metric {
	PM_METAL_WAIT_SHARE,		/* wait_milliseconds / steady-decode duration */
	PM_METAL_COMMAND_BUFFERS,	/* command_buffers */
	PM_METAL_WORKING_SET_EXCESS,	/* working_set_bytes - resident_bytes (sign exact) */
	PM_METAL_DISPATCH_SHARE,	/* dispatch_milliseconds / steady-decode duration */
	PM_CUDA_SYNC_SHARE,		/* synchronization_milliseconds / steady-decode duration */
	PM_CUDA_LAUNCHES,		/* launches */
	PM_CUDA_BANDWIDTH_SHARE,	/* achieved_bandwidth_gbs / peak_bandwidth_gbs */
	PM_CUDA_COMPUTE_SHARE,		/* achieved_compute_tflops / peak_compute_tflops */
};

enum profile_op { PO_GE, PO_GT, PO_LT };

struct profile_cond {
	enum profile_metric metric;
	enum profile_op op;
	double threshold;
};

/* One row of a backend's rule table: all conditions must hold (a row with
 * no conditions is the fallback that always matches). */
struct profile_rule {
	struct profile_cond cond[2];
	size_t nr_cond;
	const char *class_name, *confidence, *evidence, *lever_id;
};

/* The committed rule table of a backend, in evaluation order. Borrowed. */
const struct profile_rule *profile_rules(enum profile_backend b, size_t *nr);
/* Backend a metric belongs to; its name for documentation and tests. */
enum profile_backend profile_metric_backend(enum profile_metric m);
const char *profile_metric_name(enum profile_metric m);
/* The value of metric m for a valid bundle (ratios are plain double
 * divisions, compared with the literal threshold). */
double profile_metric_value(const struct profile *p, enum profile_metric m);

struct profile_class {
	const char *envelope_id;		/* borrowed from the profile */
	const struct profile_rule *rule;	/* the first matching row */
};

/* Validate p against g, then classify it. Returns 0 with *out filled; -1
 * with findings appended to *invalid (the bundle is invalid: no
 * classification exists) or, when *invalid stays empty, with e set (the
 * recommended lever is not a lever of the bundle's envelope in g). */
int profile_classify(const struct profile *p, const struct graph *g, struct findings *invalid,
		     struct profile_class *out, struct err *e);

/* {schema, envelope_id, class, confidence, evidence[1], recommended_lever_id}
 * (new reference; caller decrefs). */
json_t *profile_class_json(const struct profile_class *c);

/* ---- --profile-next --------------------------------------------------- */

struct profile_next {
	struct profile_class cls;
	const struct lever *lever;	/* the recommended lever, ready */
};

/* Classify (as profile_classify), then select: the recommended lever must be
 * disabled, unwitnessed and have every dependency enabled (an override never
 * bypasses this), and must equal the envelope's first ready lever in graph
 * order unless the bundle carries a selection override. Same return
 * convention as profile_classify; refusals are reported through e. */
int profile_next(const struct profile *p, const struct graph *g, struct findings *invalid,
		 struct profile_next *out, struct err *e);

/* {classification, lever, selection_override (only when the bundle has
 * one)} (new reference; caller decrefs). */
json_t *profile_next_json(const struct profile *p, const struct profile_next *n);

#endif
