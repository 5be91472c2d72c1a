/* PLACEHOLDER until the sampler work lands. */
#include "cli/cli.h"

int cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_errorf("bench", "system-baseline is not built yet");
	return EXIT_FAIL;
}
