/* PLACEHOLDER until the receipts work lands: every receipt mode refuses. */
#include "cli/cli.h"
#include "cli/np.h"

static int todo(void)
{
	cli_errorf(NP_CMD, "receipt modes are not built yet");
	return EXIT_FAIL;
}
int np_baseline(const struct np_ctx *c) { (void)c; return todo(); }
int np_compare(const struct np_ctx *c) { (void)c; return todo(); }
int np_attach(const struct np_ctx *c) { (void)c; return todo(); }
int np_gate(const struct np_ctx *c) { (void)c; return todo(); }
