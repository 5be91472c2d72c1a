/* PLACEHOLDER until the profile work lands. */
#include "cli/cli.h"
#include "cli/np.h"

int np_profile(const struct np_ctx *c, bool next)
{
	(void)c;
	(void)next;
	cli_errorf(NP_CMD, "profile modes are not built yet");
	return EXIT_FAIL;
}
