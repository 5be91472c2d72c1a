/* receipt/parity: the ratio of a parity campaign and its refusals, from the
 * runs as promotion and verification read them. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base/json.h"
#include "receipt/parity.h"

static const char *const engines[2] = { "fak-native", "llama.cpp" };

#define REP(arm, i, eng, tps)                                                          \
	{ arm, "repetition", i, "sha256:" #i arm, eng, tps, true, false, "clean" }

Test(parity, ratio_of_the_first_engine_to_the_second)
{
	const struct parity_run runs[] = {
		{ "baseline", "warmup", 0, "sha256:w", "fak-native", 1, true, false,
		  "investigate" },
		REP("baseline", 0, "fak-native", 90), REP("candidate", 0, "llama.cpp", 100),
		REP("candidate", 1, "llama.cpp", 100), REP("baseline", 1, "fak-native", 90),
		REP("baseline", 2, "fak-native", 90), REP("candidate", 2, "llama.cpp", 100),
	};
	struct findings f = FINDINGS_INIT;
	json_t *p = receipt_parity_of_runs(engines, runs, 7, &f);
	char *t;

	cr_assert_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_assert_not_null(p);
	cr_assert(fabs(json_number_value(json_object_get(p, "ratio")) - 0.9) < 1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(p, "numerator")), "fak-native");
	cr_assert_eq(json_integer_value(json_object_get(p, "denominator_repetitions")), 3);
	t = receipt_parity_text(p);
	cr_assert_str_eq(t, "parity: fak-native / llama.cpp tok/s 0.9 (90% interval 0.9..0.9, "
			    "n=3+3); a parity ratio, not a throughput gain of either engine");
	free(t);
	json_decref(p);
}

Test(parity, refusals_name_the_run)
{
	struct parity_run runs[] = {
		REP("baseline", 0, "fak-native", 90), REP("candidate", 0, "fak-native", 100),
		REP("candidate", 2, "llama.cpp", 100), REP("baseline", 1, "", 90),
	};
	struct findings f = FINDINGS_INIT;

	runs[2].artifact_unseen = true;
	runs[0].verdict = "investigate";
	cr_assert_null(receipt_parity_of_runs(engines, runs, 4, &f));
	cr_assert_eq(f.nr, 5);
	cr_assert_str_eq(f.items[0], "run sha256:0baseline of the baseline arm (repetition 1): "
				     "verdict investigate, not clean: a parity ratio counts only "
				     "repetitions measured on a quiet host (the criterion's host "
				     "policy); run the campaign again");
	cr_assert_str_eq(f.items[1], "run sha256:0candidate of the candidate arm (repetition 1) "
				     "shows engine \"fak-native\"; the candidate arm of this "
				     "campaign is llama.cpp's: each arm's engine is observed, and "
				     "must be the requirement's, in order");
	cr_assert_str_eq(f.items[2], "run sha256:2candidate of the candidate arm (repetition 3) "
				     "never had the pinned artifact open or mapped: a campaign on "
				     "one artifact needs both engines to use it");
	cr_assert_str_eq(f.items[3], "run sha256:1baseline of the baseline arm (repetition 2) "
				     "shows engine \"(none stated)\"; the baseline arm of this "
				     "campaign is fak-native's: each arm's engine is observed, and "
				     "must be the requirement's, in order");
	cr_assert_str_eq(f.items[4], "the candidate arm has no repetition 2");
	findings_release(&f);
}

Test(parity, a_repetition_twice_or_without_throughput)
{
	struct parity_run runs[] = {
		REP("baseline", 0, "fak-native", 90), REP("baseline", 0, "fak-native", 91),
		REP("candidate", 0, "llama.cpp", 100),
	};
	struct findings f = FINDINGS_INIT;

	runs[2].has_throughput = false;
	cr_assert_null(receipt_parity_of_runs(engines, runs, 3, &f));
	cr_assert_eq(f.nr, 2);
	cr_assert_str_eq(f.items[0], "run sha256:0baseline: not one repetition of the baseline "
				     "arm with a throughput");
	cr_assert_str_eq(f.items[1], "run sha256:0candidate: not one repetition of the "
				     "candidate arm with a throughput");
	findings_release(&f);
}
