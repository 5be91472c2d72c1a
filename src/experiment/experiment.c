/* The experiment from end to end: checks, schedule, runs, documents. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "platform/platform.h"
#include "sampler/child.h"

static void xp_release(struct xp *x)
{
	for (size_t k = 0; k < x->nr_done; k++) {
		free(x->done[k].rep);
		json_decref(x->done[k].doc);
	}
	free(x->done);
	free(x->steps);
	free(x->artifacts);
	free(x->dir_logs);
	free(x->dir_attestations);
	if (x->has_last_accepted)
		receipt_release(&x->last_accepted);
	if (x->has_trace)
		trace_release(&x->trace);
	if (x->has_quality)
		quality_release(&x->quality);
}

void xp_result_release(struct xp_result *res)
{
	json_decref(res->comparison);
	json_decref(res->gate);
	json_decref(res->receipts[0]);
	json_decref(res->receipts[1]);
	if (res->has_arms) {
		receipt_release(&res->arms[0]);
		receipt_release(&res->arms[1]);
	}
	free(res->leftovers);
	memset(res, 0, sizeof(*res));
}

/* A SIGINT, SIGTERM or SIGHUP that arrived while blocked; 0 for none. */
int xp_pending_stop(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;

	if (sigpending(&set) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&set, sigs[i]))
			return sigs[i];
	return 0;
}

static void report_progress(const struct xp *x, size_t k)
{
	const struct attestation *r = x->done[k].rep;
	int64_t elapsed = platform_mono_ns() - x->t0_ns;
	struct xp_progress p = {
		.step = &x->steps[k], .done = k + 1, .total = x->nr_steps, .elapsed_ns = elapsed,
		.left_ns = (int64_t)((double)elapsed / (double)(k + 1) *
				     (double)(x->nr_steps - k - 1)),
		.has_tps = r->workload.has_metrics && r->workload.metrics.has_throughput,
		.tps = r->workload.metrics.tokens_per_second, .verdict = r->verdict,
		.look = x->look_text[0] ? x->look_text : NULL,
	};

	if (x->o->progress)
		x->o->progress(x->o->ctx, &p);
}

/* The runs whose command left processes behind, for the summary. */
static void leftovers(const struct xp *x, struct xp_result *res)
{
	for (size_t k = 0; k < x->nr_done; k++) {
		int64_t n = x->done[k].rep->coverage.descendants_killed_after_root_exit;

		if (n <= 0)
			continue;
		res->leftovers = xrealloc(res->leftovers,
					  (res->nr_leftovers + 1) * sizeof(*res->leftovers));
		res->leftovers[res->nr_leftovers++] = (struct xp_leftover){
			.step = x->steps[k], .killed = n, .names = x->done[k].leftovers };
	}
}

/* The experiment's id: 16 random bytes in hex. */
static int draw_experiment_id(struct xp *x, struct err *e)
{
	unsigned char id[16];

	if (platform_random(id, sizeof(id)) < 0)
		return err_errno(e, errno, "cannot draw an experiment id");
	for (int i = 0; i < 16; i++)
		snprintf(x->experiment_id + 2 * i, 3, "%02x", id[i]);
	return 0;
}

/* Step k's look at the pinned artifact before it runs, named by the steps
 * it stands between; a finding in out where it is not what was pinned. */
static void recheck_before_step(struct xp *x, size_t k, struct findings *out)
{
	char when[160], title[64], prev[64];

	receipt_step_title(&x->steps[k], title, sizeof(title));
	if (k) {
		receipt_step_title(&x->steps[k - 1], prev, sizeof(prev));
		snprintf(when, sizeof(when), "after %s, before %s", prev, title);
	} else {
		snprintf(when, sizeof(when), "before %s", title);
	}
	xp_artifact_recheck(x, when, false, out);
}

int xp_run(const struct xp_opts *o, struct xp_result *res, struct findings *out, struct err *e)
{
	struct xp x = { .o = o };
	sigset_t stop;
	int rc = -1, sig = 0;

	memset(res, 0, sizeof(*res));
	if (!o->chart_runs)
		BUG("xp_run without a chart renderer (" LAYOUT_CHART " of the out-dir)");
	xp_preflight(&x, out);
	if (out->nr) {
		res->status = XP_REFUSED;
		findings_sort(out);
		xp_release(&x);
		return 0;
	}
	if (receipt_plan(o->order, o->seed, (size_t)x.env->warmups, x.reps,
			 o->quality_cmd != NULL && !x.sequential, &x.steps, &x.nr_steps, e) < 0) {
		xp_release(&x);
		return -1;
	}
	rc = -1;
	/* a sequential plan adds its quality runs when it ends */
	x.done = xcalloc(x.nr_steps + 2, sizeof(*x.done));
	if (draw_experiment_id(&x, e) < 0) {
		xp_release(&x);
		return -1;
	}
	/* counted before the first run, so an aborted attempt counts too */
	if (xp_attempt_start(&x, res, e) < 0) {
		xp_release(&x);
		return -1;
	}
	/* Interrupts stay pending between runs: the next run's sampler sees
	 * them at once, and none is lost while documents are written. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &x.caller_mask);
	x.t0_ns = platform_mono_ns();
	for (size_t k = 0; k < x.nr_steps; k++) {
		int step;

		/* the receipts say every run used the pinned artifact */
		recheck_before_step(&x, k, out);
		if (out->nr) {
			res->status = XP_RUN_FAILED;
			rc = 0;
			goto out;
		}
		step = xp_run_step(&x, k, &x.done[k], &sig, out, e);

		if (step < 0)
			goto out;
		if (step == 1) {
			res->status = XP_INTERRUPTED;
			res->signal = sig;
			rc = 0;
			goto out;
		}
		x.nr_done = k + 1;
		if (xp_sequential_after(&x, k, e, &step)) {
			if (step < 0 || xp_sequential_finish(&x, e) < 0)
				goto out;
		}
		report_progress(&x, k);
		if (out->nr) {
			res->status = XP_RUN_FAILED;
			rc = 0;
			goto out;
		}
	}
	if ((sig = xp_pending_stop())) {
		res->status = XP_INTERRUPTED;
		res->signal = sig;
		rc = 0;
		goto out;
	}
	xp_artifact_recheck(&x, "after the last run", true, out);
	if (out->nr) {
		res->status = XP_RUN_FAILED;
		rc = 0;
		goto out;
	}
	leftovers(&x, res);
	if ((o->parity ? xp_parity_assemble(&x, res, out, e) : xp_assemble(&x, res, out, e)) < 0)
		goto out;
	if (res->status != XP_INTERRUPTED)
		res->status = out->nr ? XP_RUN_FAILED : XP_DONE;
	rc = 0;
out:
	findings_sort(out);
	{
		struct err le;

		/* an internal error ends the attempt as failed; its own error
		 * stays the one reported */
		if (rc < 0 && res->status == XP_DONE)
			res->status = XP_RUN_FAILED;
		if (xp_attempt_end(&x, res, rc < 0 ? &le : e) < 0 && rc == 0)
			rc = -1;
	}
	/* consume what is pending so restoring the mask does not kill us;
	 * the status already says what happened */
	platform_signals_discard(&stop);
	sigprocmask(SIG_SETMASK, &x.caller_mask, NULL);
	xp_release(&x);
	return rc;
}
