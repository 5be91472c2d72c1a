/* Where the checkout's evidence lives: the committed graph, index and
 * witness root, found from the current folder up. */
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "cli/cli.h"

/* The checkout fak runs in: the nearest folder, from the current one up,
 * that holds the committed graph and index. Caller frees; NULL outside. */
char *cli_checkout_root(void)
{
	char dir[PATH_MAX];

	if (!getcwd(dir, sizeof(dir)))
		return NULL;
	for (;;) {
		char *g = xasprintf("%s/" CHECKOUT_GRAPH, dir),
		     *i = xasprintf("%s/" CHECKOUT_INDEX, dir);
		bool found = access(g, F_OK) == 0 && access(i, F_OK) == 0;

		free(g);
		free(i);
		if (found)
			return xstrdup(dir);
		if (!strcmp(dir, "/"))
			return NULL;
		{
			/* dirname works in place: its result may overlap dir */
			const char *up = dirname(dir);

			memmove(dir, up, strlen(up) + 1);
		}
	}
}

char *cli_witness_root(const char *flag, bool checkout)
{
	char *top, *root;

	if (flag)
		return xstrdup(flag);
	if (!checkout || !(top = cli_checkout_root()))
		return NULL;
	root = xasprintf("%s/" CHECKOUT_WITNESSES, top);
	free(top);
	return root;
}
