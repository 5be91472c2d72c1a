/* Why an experiment's gate investigates, in words a user can act on: the
 * attestations' findings over both arms, folded into one sentence. */
#include <stdio.h>
#include <string.h>

#include "experiment/experiment.h"

/* What the runs' findings say, counted over every attested repetition. */
struct tally {
	size_t runs, busy_quiet, busy_command, psi[3], duty, other, wait_ran_out;
	double max_quiet, max_command, ceiling, wait_limit_s;
	char other_detail[160];
};

static double metric_value(const json_t *att, const char *group, const char *name)
{
	const json_t *m = json_object_get(json_object_get(att, group), name);

	if (!json_is_true(json_object_get(m, "available")))
		return -1;
	return json_number_value(json_object_get(m, "value"));
}

static void tally_run(struct tally *t, const json_t *att)
{
	const json_t *f;
	size_t i;
	bool quiet = false, command = false, psi[3] = { false }, duty = false, other = false;
	static const char *const psi_codes[3] = { "CPU_PSI_STALL_HIGH", "MEMORY_PSI_STALL_HIGH",
						  "IO_PSI_STALL_HIGH" };

	const json_t *qw = json_object_get(att, "quiet_wait");

	t->runs++;
	if (json_is_false(json_object_get(qw, "quiet_found"))) {
		t->wait_ran_out++;
		t->wait_limit_s = (double)json_integer_value(json_object_get(qw, "limit_ns")) / 1e9;
	}
	json_array_foreach (json_object_get(att, "findings"), i, f) {
		const char *code = json_string_value(json_object_get(f, "code"));
		const char *detail = json_string_value(json_object_get(f, "detail"));

		if (!code)
			continue;
		if (!strcmp(code, "BASELINE_HOST_CPU_HIGH")) {
			quiet = true;
		} else if (!strcmp(code, "NON_SUT_CPU_HIGH")) {
			command = true;
		} else if (strstr(code, "SAMPLER_DUTY_HIGH")) {
			duty = true;
		} else {
			bool is_psi = false;

			for (int k = 0; k < 3; k++)
				if (!strcmp(code, psi_codes[k]))
					is_psi = psi[k] = true;
			if (!is_psi && !other && !t->other_detail[0] && detail)
				snprintf(t->other_detail, sizeof(t->other_detail), "%s: %s", code,
					 detail);
			other = other || !is_psi;
		}
	}
	if (quiet) {
		double v = metric_value(att, "baseline_host_totals", "cpu_percent");

		t->busy_quiet++;
		if (v > t->max_quiet)
			t->max_quiet = v;
	}
	if (command) {
		double v = metric_value(att, "attribution", "non_sut_cpu_percent_of_host");

		t->busy_command++;
		if (v > t->max_command)
			t->max_command = v;
	}
	if (quiet || command)
		t->ceiling = json_number_value(json_object_get(json_object_get(att, "policy"),
							       "maximum_non_sut_cpu_percent"));
	for (int k = 0; k < 3; k++)
		t->psi[k] += psi[k];
	t->duty += duty;
	t->other += other;
}

void xp_explain(const struct xp_result *res, char *out, size_t cap)
{
	static const char *const psi_names[3] = { "CPU", "memory", "I/O" };
	static const char advice[] = "run `fak bench system-check`, or use --wait-quiet DUR";
	struct tally t = { 0 };
	const json_t *cls = json_object_get(res->gate, "classification");
	size_t len;

	out[0] = '\0';
	if (!json_is_string(cls) || strcmp(json_string_value(cls), "investigate"))
		return;
	for (int side = 0; side < 2; side++) {
		const json_t *att;
		size_t i;

		json_array_foreach (json_object_get(res->receipts[side], "system_baselines"), i,
				    att) {
			tally_run(&t, att);
		}
	}
	if (t.busy_quiet || t.busy_command) {
		snprintf(out, cap, "the host was busy:");
		if (t.busy_quiet) {
			len = strlen(out);
			snprintf(out + len, cap - len, " up to %.0f%% CPU in the quiet window "
				 "before the command (%zu of %zu runs)", t.max_quiet, t.busy_quiet,
				 t.runs);
		}
		if (t.busy_command) {
			len = strlen(out);
			snprintf(out + len, cap - len, "%s up to %.0f%% CPU outside the command "
				 "while it ran (%zu of %zu runs)", t.busy_quiet ? " and" : "",
				 t.max_command, t.busy_command, t.runs);
		}
		len = strlen(out);
		if (t.wait_ran_out)
			snprintf(out + len, cap - len, ", above the %g%% ceiling, and it stayed "
				 "busy through the %g s of --wait-quiet (%zu of %zu runs); run "
				 "`fak bench system-check`, or wait longer", t.ceiling,
				 t.wait_limit_s, t.wait_ran_out, t.runs);
		else
			snprintf(out + len, cap - len, ", above the %g%% ceiling; %s", t.ceiling,
				 advice);
		return;
	}
	for (int k = 0; k < 3; k++)
		if (t.psi[k] && t.wait_ran_out) {
			/* --wait-quiet waits for the host's PSI stall too */
			snprintf(out, cap, "the command's tasks stalled waiting for %s (PSI) in "
				 "%zu of %zu runs, and the host stayed busy through the %g s of "
				 "--wait-quiet (%zu of %zu runs); run `fak bench system-check`, or "
				 "wait longer", psi_names[k], t.psi[k], t.runs, t.wait_limit_s,
				 t.wait_ran_out, t.runs);
			return;
		} else if (t.psi[k]) {
			snprintf(out, cap, "the command's tasks stalled waiting for %s (PSI) in "
				 "%zu of %zu runs; %s", psi_names[k], t.psi[k], t.runs, advice);
			return;
		}
	if (t.duty) {
		snprintf(out, cap, "fak's own sampling took more than its duty ceiling in %zu of "
			 "%zu runs; use a longer --interval", t.duty, t.runs);
		return;
	}
	if (t.other)
		snprintf(out, cap, "the evidence of %zu of %zu runs is not clean (%s); see the "
			 "attestations", t.other, t.runs, t.other_detail);
}
