#ifndef FAK_GRAPH_FIELDS_H
#define FAK_GRAPH_FIELDS_H
/* The field tables of the graph's records (base/jfields.h), in the
 * documented key order: load.c reads the graph with them (jf_pull) and
 * graph.c writes it (jf_to_json). Internal to graph/. */
#include "base/jfields.h"

/* An element of envelopes[] and the legacy top-level envelope, which has
 * the original members only (no platform, warmups, required_evidence or
 * serving). Written from a copy whose platform is graph_envelope_platform. */
extern const struct jfield graph_envelope_fields[], graph_legacy_envelope_fields[];
/* The defaults of an envelope read from each table: 1 warm-up; both
 * evidences required (the legacy envelope cannot say). */
void graph_envelope_init(void *rec);
void graph_legacy_envelope_init(void *rec);
extern const struct jfield graph_throughput_fields[], graph_rung_fields[],
	graph_feature_fields[], graph_lever_fields[], graph_requirement_fields[],
	graph_criterion_fields[], graph_host_policy_fields[];

#endif
