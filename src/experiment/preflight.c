/* Every input of an experiment is checked before the first run: what is
 * missing is listed with the flag that supplies it, and nothing runs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "receipt/ledger.h"

static void check_lever(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;
	struct err e;
	json_t *t = receipt_template(o->g, o->lever_id, &e);

	/* the same readiness rule as `--baseline LEVER` */
	if (!t) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	json_decref(t);
	x->lever = graph_lever(o->g, o->lever_id);
	x->env = graph_envelope(o->g, x->lever->app.envelope_id);
	x->crit = graph_criterion(o->g, x->env->id);
	/* docs/experiments.md: a lever already enabled or witnessed has
	 * nothing left to witness */
	if (x->lever->enabled || x->lever->has_witnessed) {
		const char *is = !x->lever->has_witnessed ? "enabled"
				 : x->lever->enabled	  ? "enabled and witnessed"
							  : "witnessed";

		findings_addf(out, "lever \"%s\" is not ready: it is %s already; an experiment "
				   "witnesses a disabled, unwitnessed lever", x->lever->id, is);
	}
	t = receipt_state_json(o->g, x->env, &e);
	if (!t || receipt_state_digest(t, x->state_digest, &e) < 0)
		findings_addf(out, "envelope \"%s\": %s", x->env->id, e.msg);
	json_decref(t);
	if (x->env->memory_gib <= 0)
		findings_addf(out,
			      "envelope \"%s\" pins memory_gib %lld: the gate needs a peak-memory "
			      "ceiling; set the envelope's memory_gib in the graph",
			      x->env->id, x->env->memory_gib);
}

static void check_platform(struct xp *x, struct findings *out)
{
	struct err e;

	if (xp_platform_check(graph_envelope_platform(x->env), &e) < 0)
		findings_addf(out, "platform: %s", e.msg);
}

static void check_artifact(struct xp *x, struct findings *out)
{
	const char *pin = x->env->artifact_sha256;
	struct err e;

	if (!pin || !digest_is_hex(pin)) {
		findings_addf(out, "envelope \"%s\" pins no artifact (artifact_sha256 is null); "
				   "pin the model file's sha256 in the graph before measuring it",
			      x->env->id);
		return;
	}
	if (!x->o->artifact) {
		findings_addf(out,
			      "--artifact FILE is required: the model file whose sha256 envelope "
			      "\"%s\" pins (%s)",
			      x->env->id, pin);
		return;
	}
	if (xp_artifact_pin(x, x->artifact_sha256, &e) < 0)
		findings_addf(out, "--artifact: %s", e.msg);
	else if (strcmp(x->artifact_sha256, pin))
		findings_addf(out, "--artifact: '%s' has sha256 %s; envelope \"%s\" pins %s",
			      x->o->artifact, x->artifact_sha256, x->env->id, pin);
}

/* A value that goes into the public receipts as it is given (a command by
 * the rules of commands). */
static bool check_text_as(const char *flag, const char *v, bool command, struct findings *out)
{
	struct strbuf why = STRBUF_INIT;
	bool ok;

	/* a command may span lines and hold tabs; nothing else unprintable */
	if (!str_printable(v, command ? "\t\n" : "", &why)) {
		findings_addf(out, "%s: goes into public receipts and cannot: %s", flag, why.buf);
		sb_release(&why);
		return false;
	}
	ok = command ? receipt_command_captured(v, &why) : receipt_text_captured(v, &why);

	if (!ok)
		findings_addf(out, "%s \"%s\": goes into public receipts and cannot: %s", flag, v,
			      why.buf);
	sb_release(&why);
	return ok;
}

static bool check_text(const char *flag, const char *v, struct findings *out)
{
	return check_text_as(flag, v, false, out);
}

/* A revision or module value: captured text that is not an option, short
 * enough for the label every run seals (WL_ID_MAX). */
static void check_value(const char *flag, const char *v, struct findings *out)
{
	if (!check_text(flag, v, out))
		return;
	if (v[0] == '-')
		findings_addf(out, "%s \"%s\": must not start with '-'", flag, v);
	if (strlen(v) >= WL_ID_MAX)
		findings_addf(out, "%s: %zu bytes; a value sealed into every run's label takes "
				   "at most %d", flag, strlen(v), WL_ID_MAX - 1);
}

static void check_identity(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;
	struct err e;

	if (xp_machine_id(o->machine_id_file, x->machine_id, &e) < 0)
		findings_addf(out, "machine id: %s", e.msg);
	if (!o->revision[0] || !o->revision[1])
		findings_addf(out, "--revision REV is required (or --baseline-revision and "
				   "--candidate-revision where the arms differ): "
				   "the revision each arm runs");
	for (int a = 0; a < 2; a++)
		if (o->revision[a])
			check_value(a ? "--candidate-revision (or --revision)"
				      : "--baseline-revision (or --revision)",
				    o->revision[a], out);
	if (!o->nr_modules && graph_envelope_requires(x->env, "module_versions"))
		findings_addf(out, "--module NAME@REV is required by envelope \"%s\": at least one "
				   "module revision for the receipts (repeatable)", x->env->id);
	for (size_t i = 0; i < o->nr_modules; i++) {
		check_value("--module", o->modules[i].name, out);
		check_value("--module", o->modules[i].revision, out);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->modules[i].name, o->modules[j].name)) {
				findings_addf(out, "--module %s: given twice", o->modules[i].name);
				break;
			}
	}
}

static void check_profiles(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;

	if (!o->nr_profile_artifacts && graph_envelope_requires(x->env, "profiler_artifacts"))
		findings_addf(out, "--profile-artifact FILE is required by envelope \"%s\": "
				   "at least one profiler artifact (relative path; its sha256 goes "
				   "into the receipts; repeatable)", x->env->id);
	x->artifacts = xcalloc(o->nr_profile_artifacts + 1, sizeof(*x->artifacts));
	for (size_t i = 0; i < o->nr_profile_artifacts; i++) {
		const char *p = o->profile_artifacts[i];
		int64_t bytes;
		struct err e;

		x->artifacts[i].path = p;
		/* the scrubbed-text rules refuse absolute paths and ".." escapes */
		if (!check_text("--profile-artifact", p, out))
			continue;
		if (digest_file(p, x->artifacts[i].sha256, &bytes, &e) < 0)
			findings_addf(out, "--profile-artifact: %s", e.msg);
	}
}

static void check_commands(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;
	const struct {
		const char *flag, *cmd;
	} cmds[] = { { "--baseline", o->cmd[0] }, { "--candidate", o->cmd[1] },
		     { "--quality-command", o->quality_cmd } };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *c = cmds[i].cmd;

		if (!c)
			continue;
		if (strlen(c) >= WL_COMMAND_MAX)
			findings_addf(out, "%s: the command is longer than %d bytes", cmds[i].flag,
				      WL_COMMAND_MAX - 1);
		else if (o->artifact && o->artifact[0] == '/' && strstr(c, o->artifact))
			findings_addf(out, "%s: names the model by its private path '%s', "
					   "which cannot go into public receipts; write "
					   "\"$FAK_ARTIFACT\" instead (fak sets it to the "
					   "--artifact file for every run)", cmds[i].flag,
				      o->artifact);
		else
			check_text_as(cmds[i].flag, c, true, out);
	}
	if (o->serve_trace)
		xp_serving_preflight(x, out);
	if ((!strcmp(o->parser, WL_PARSER_LLAMA_BENCH) ||
	     !strcmp(xp_arm_parser(o, 1), WL_PARSER_LLAMA_BENCH)) && !o->quality_cmd)
		findings_addf(out, "--quality-command CMD is required with --metrics llama-bench: "
				   "llama-bench prints no quality");
	if (strlen(x->env->id) >= WL_ID_MAX || strlen(x->lever->id) >= WL_ID_MAX)
		findings_addf(out, "envelope and lever ids longer than %d bytes cannot be sealed",
			      WL_ID_MAX - 1);
}

static void check_last_accepted(struct xp *x, struct findings *out)
{
	struct findings why = FINDINGS_INIT;
	struct err e;

	if (!x->o->last_accepted)
		return;
	if (receipt_load(&x->last_accepted, x->o->last_accepted, &e) < 0) {
		findings_addf(out, "--last-accepted: %s", e.msg);
		return;
	}
	x->has_last_accepted = true;
	receipt_validate(&x->last_accepted, x->o->g, 0, &why);
	for (size_t i = 0; i < why.nr; i++)
		findings_addf(out, "--last-accepted '%s': %s", x->o->last_accepted, why.items[i]);
	findings_release(&why);
	if (strcmp(x->last_accepted.role, "baseline") ||
	    strcmp(x->last_accepted.envelope_id, x->env->id) ||
	    strcmp(x->last_accepted.changed_lever_id, x->lever->id))
		findings_addf(out,
			      "--last-accepted '%s': must be a baseline receipt of lever \"%s\" in "
			      "envelope \"%s\" (it is a %s receipt of \"%s\" in \"%s\")",
			      x->o->last_accepted, x->lever->id, x->env->id, x->last_accepted.role,
			      x->last_accepted.changed_lever_id, x->last_accepted.envelope_id);
}

/* The nearest ancestor of path that exists (or whose stat fails otherwise
 * than by its absence), "." or "/" at the latest; caller frees. */
static char *nearest_ancestor(const char *path)
{
	char *copy = xstrdup(path), *slash;
	struct stat st;

	for (;;) {
		while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
			copy[strlen(copy) - 1] = '\0';
		slash = strrchr(copy, '/');
		if (!slash)
			strcpy(copy, ".");
		else
			slash[slash == copy] = '\0';	/* "/x" -> "/" */
		if (stat(copy, &st) == 0 || (errno != ENOENT && errno != ENOTDIR) ||
		    !strcmp(copy, ".") || !strcmp(copy, "/"))
			return copy;
	}
}

/* The folder must not hold evidence yet: missing (with its missing parents,
 * which are created below the nearest folder that exists), or an empty
 * folder. */
static void check_out_dir(const struct xp *x, struct findings *out)
{
	const char *d = x->o->out_dir;
	char *copy;
	struct stat st;

	if (stat(d, &st) == 0) {
		DIR *dir;
		struct dirent *de;
		bool empty = true;

		if (!S_ISDIR(st.st_mode)) {
			findings_addf(out, "--out-dir '%s': exists and is not a folder; "
					   "name a new folder", d);
		} else if (!(dir = opendir(d))) {
			findings_addf(out, "--out-dir '%s': %s", d, strerror(errno));
		} else {
			while ((de = readdir(dir)))
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
					empty = false;
			closedir(dir);
			if (!empty)
				findings_addf(out, "--out-dir '%s': already holds files; "
						   "fak never overwrites evidence: "
						   "name a new folder", d);
			else if (access(d, W_OK | X_OK) < 0)
				findings_addf(out, "--out-dir '%s': %s", d, strerror(errno));
		}
		return;
	}
	if (errno != ENOENT && errno != ENOTDIR) {
		findings_addf(out, "--out-dir '%s': %s", d, strerror(errno));
		return;
	}
	/* the nearest ancestor that exists must be a folder fak can write */
	copy = nearest_ancestor(d);
	if (stat(copy, &st) == 0 && !S_ISDIR(st.st_mode))
		findings_addf(out, "--out-dir '%s': cannot create it: '%s' is not a folder", d,
			      copy);
	else if (stat(copy, &st) < 0 || access(copy, W_OK | X_OK) < 0)
		findings_addf(out, "--out-dir '%s': cannot create it: '%s': %s", d, copy,
			      strerror(errno));
	free(copy);
}

static void size_text(int64_t bytes, char *out, size_t cap)
{
	if (bytes >= (int64_t)1 << 30)
		snprintf(out, cap, "%.1f GiB", (double)bytes / (double)(1 << 30));
	else
		snprintf(out, cap, "%.1f MiB", (double)bytes / (double)(1 << 20));
}

/* The disk space the runs keep at most: each run's two logs at their
 * bounds and its attestation, then the documents. On a filesystem with
 * less free space the experiment could fail part way, so it does not
 * start. (A log is written whole and cut to its bound after its run: a
 * command that prints far beyond the bound needs that much for a while.)
 * --until-decisive counts the envelope's repetitions, not its ceiling: the
 * pairs it may add are not planned, and a full disk then fails their run by
 * name. */
static void check_space(const struct xp *x, struct findings *out)
{
	const char *d = x->o->out_dir;
	size_t reps = x->o->until_decisive ? (size_t)x->env->repetitions : x->reps;
	size_t runs = 2 * ((size_t)x->env->warmups + reps + (x->o->quality_cmd ? 1 : 0));
	int64_t out_bound, err_bound, need;
	char *at = NULL;
	struct statvfs sv;
	uint64_t avail;
	char need_text[32], free_text[32], bound_text[32];

	xp_log_bounds(x->o, x->o->parser, &out_bound, &err_bound);
	need = (int64_t)runs * (out_bound + err_bound + XP_RUN_FILES_BYTES) + XP_DOCUMENTS_BYTES;
	if (statvfs(d, &sv) < 0) {
		at = nearest_ancestor(d);
		if (statvfs(at, &sv) < 0) {
			free(at);
			return;		/* check_out_dir says why */
		}
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (avail >= (uint64_t)need) {
		free(at);
		return;
	}
	size_text((int64_t)avail, free_text, sizeof(free_text));
	size_text(need, need_text, sizeof(need_text));
	size_text(err_bound, bound_text, sizeof(bound_text));
	findings_addf(out, "--out-dir '%s': its filesystem%s%s%s has %s free; the %zu runs may "
			   "keep up to %s of logs and attestations (each run's stdout and "
			   "stderr up to %s, --max-log-bytes): free space, name a folder on "
			   "another filesystem, or give a smaller --max-log-bytes (at least "
			   WL_LOG_BOUND_MIN_TEXT ")",
		      d, at ? " (at '" : "", at ? at : "", at ? "')" : "", free_text, runs,
		      need_text, bound_text);
	free(at);
}

/* Where the command will run: a refusal of --attribution cgroup or --cpus
 * comes now, not at the first run. */
static void check_placement(const struct xp *x, struct findings *out)
{
	struct err e;

	if (sampler_placement_check(&x->o->sampler, &e) < 0)
		findings_addf(out, "%s", e.msg);
}

static int make_dir(const char *path, bool may_exist, struct err *e)
{
	if (mkdir(path, 0700) == 0 || (may_exist && errno == EEXIST))
		return 0;
	return err_errno(e, errno, "cannot create '%s'", path);
}

/* mkdir -p: the missing parents of path (mode 0777 less the umask, as
 * mkdir -p makes them), then path itself (0700). */
static int make_dirs(const char *path, struct err *e)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = err_errno(e, errno, "cannot create '%s'", p);
		*s = '/';
	}
	free(p);
	return rc ? rc : make_dir(path, true, e);
}

/* The attempt ledger takes a line (a regular file whose chain verifies),
 * and the digests the lines record. */
static void check_ledger(struct xp *x, struct findings *out)
{
	struct err e;

	if (graph_envelope_digest(x->env, x->envelope_digest, &e) < 0 ||
	    (x->crit && graph_criterion_digest(x->crit, x->criterion_digest, &e) < 0))
		findings_addf(out, "envelope \"%s\": %s", x->env->id, e.msg);
	if (x->o->ledger && ledger_check(x->o->ledger, &e) < 0)
		findings_addf(out, "--witness-root: %s", e.msg);
}

void xp_preflight(struct xp *x, struct findings *out)
{
	struct err e;

	check_lever(x, out);
	if (!x->lever)
		return;
	xp_parity_preflight(x, out);
	check_platform(x, out);
	check_artifact(x, out);
	check_identity(x, out);
	check_profiles(x, out);
	check_commands(x, out);
	check_last_accepted(x, out);
	if (x->env && xp_sequential_plan(x, out, &e) < 0)
		findings_addf(out, "--until-decisive: %s", e.msg);
	check_out_dir(x, out);
	check_space(x, out);
	check_placement(x, out);
	check_ledger(x, out);
	if (out->nr)
		return;
	x->dir_logs = xasprintf("%s/" LAYOUT_LOGS, x->o->out_dir);
	x->dir_attestations = xasprintf("%s/" LAYOUT_ATTESTATIONS, x->o->out_dir);
	if (make_dirs(x->o->out_dir, &e) < 0 || make_dir(x->dir_logs, false, &e) < 0 ||
	    make_dir(x->dir_attestations, false, &e) < 0)
		findings_addf(out, "--out-dir: %s", e.msg);
	/* what each arm runs, digested once per arm: an A/A is the same
	 * executable, whatever the revision labels say */
	for (int arm = 0; arm < 2; arm++)
		xp_program(x->o->cmd[arm], x->program_sha256[arm]);
}
