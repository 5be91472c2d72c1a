#ifndef FAK_RENDER_SYSCHECK_H
#define FAK_RENDER_SYSCHECK_H
/* `fak bench system-check`'s result (sampler/syscheck.h) in words. */
#include <jansson.h>

#include "base/strbuf.h"
#include "sampler/syscheck.h"

/* "ok", "advice", "unknown", "disturbs" (static). */
const char *syscheck_status_name(enum syscheck_status s);

/* One line per finding, then a summary line. */
void syscheck_render_text(const struct syscheck_result *r, struct strbuf *out);
/* New reference: {"schema", "disturbing", "findings": [...]}. */
json_t *syscheck_to_json(const struct syscheck_result *r);

#endif
