/* PLACEHOLDER until the front-door work lands. */
#include "cli/cli.h"
#include "cli/np.h"

int np_frontdoor(const struct np_ctx *c)
{
	(void)c;
	cli_errorf(NP_CMD, "--frontdoor-md is not built yet");
	return EXIT_FAIL;
}
