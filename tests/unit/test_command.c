/* cli/command: the mode table of native-performance is consistent. */
#include <criterion/criterion.h>
#include <string.h>

#include "cli/command.h"
#include "cli/np.h"
#include "cli/sampler_flags.h"

static int opt_index(const struct opt *opts, const char *name, size_t len)
{
	for (int i = 0; opts[i].name; i++)
		if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
			return i;
	return -1;
}

/* A mode's synopsis (its part of the usage line) names only options the
 * mode selects or takes: the usage line never offers what the check refuses. */
Test(command, a_synopsis_names_only_options_its_mode_takes)
{
	size_t checked = 0;

	for (const struct cmd_mode *m = np_spec.modes; m->name; m++) {
		for (const char *s = m->synopsis; s && (s = strstr(s, "--")); s += 2) {
			size_t len = strspn(s + 2, "abcdefghijklmnopqrstuvwxyz-");
			int i = opt_index(np_spec.opts, s + 2, len);

			cr_assert(i >= 0, "mode %s: synopsis names an unknown option --%.*s",
				  m->name, (int)len, s + 2);
			cr_assert((m->select | m->accepts) & OPT_BIT(i),
				  "mode %s: synopsis names --%s, which the mode does not take",
				  m->name, np_spec.opts[i].name);
			checked++;
		}
	}
	cr_assert_gt(checked, 20);
}

/* Every option of the table is taken by some mode or by all of them. */
Test(command, every_option_belongs_to_a_mode)
{
	uint64_t taken = np_spec.common;

	for (const struct cmd_mode *m = np_spec.modes; m->name; m++)
		taken |= m->select | m->accepts;
	for (size_t i = 0; np_spec.opts[i].name; i++)
		cr_assert(taken & OPT_BIT(i), "--%s belongs to no mode", np_spec.opts[i].name);
}

/* The usage line is the prefix and every synopsis, in table order. */
Test(command, the_usage_line_lists_every_mode)
{
	const char *u = cmd_usage(&np_spec), *at = u;

	cr_assert(!strncmp(u, np_spec.usage, strlen(np_spec.usage)));
	for (const struct cmd_mode *m = np_spec.modes; m->name; m++)
		if (m->synopsis) {
			const char *p = strstr(at, m->synopsis);

			cr_assert(p, "the usage line lacks %s", m->synopsis);
			at = p + strlen(m->synopsis);
		}
}

/* The sampler's flags (cli/sampler_flags): a run has a timeout unless the
 * user says --timeout 0, so a hung benchmark fails its run instead of
 * waiting for ever (issue 27). */
Test(sampler_flags, a_run_has_a_timeout_by_default)
{
	struct sampler_flags sf = { 0 };
	struct run_opts ro = { 0 };

	cr_assert_eq(sampler_flags_apply("t", "usage", &sf, &ro), 0);
	cr_assert_eq(ro.timeout_ns, SAMPLER_TIMEOUT_DEFAULT_NS);
	cr_assert_eq(ro.timeout_ns, (int64_t)3600 * 1000000000);
}

Test(sampler_flags, timeout_zero_is_none_and_a_value_overrides)
{
	struct sampler_flags sf = { .timeout = "0" };
	struct run_opts ro = { 0 };

	cr_assert_eq(sampler_flags_apply("t", "usage", &sf, &ro), 0);
	cr_assert_eq(ro.timeout_ns, 0);
	sf.timeout = "90s";
	cr_assert_eq(sampler_flags_apply("t", "usage", &sf, &ro), 0);
	cr_assert_eq(ro.timeout_ns, (int64_t)90 * 1000000000);
}
