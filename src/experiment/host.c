/* What the experiment learns about the machine it runs on: its platform
 * (checked against the envelope before anything runs) and a scrubbed id. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "experiment/experiment.h"
#include "platform/platform.h"
#include "sampler/gpu.h"

void xp_host_text(const char *in, char *out, size_t cap)
{
	struct strbuf sb = STRBUF_INIT;

	/* "Intel(R) Xeon(R) CPU @ 2.20GHz": an '@' is an account's sign to
	 * the scrubbed-text rules, a clock's "at" here */
	for (const char *p = in; *p; p++)
		if (*p == '@')
			sb_adds(&sb, "at");
		else
			sb_addch(&sb, *p);
	if (!sb.len)
		snprintf(out, cap, "unknown");
	else if (!str_printable(sb.buf, "", NULL) || !str_scrubbed(sb.buf, NULL))
		snprintf(out, cap, "scrubbed");
	else
		snprintf(out, cap, "%s", sb.buf);
	sb_release(&sb);
}

void xp_host_observed(char *cpu, size_t cpu_cap, char *kernel, size_t kernel_cap)
{
	char raw[256];
	struct utsname u;

	platform_cpu_model(raw, sizeof(raw));
	xp_host_text(raw, cpu, cpu_cap);
	xp_host_text(uname(&u) < 0 ? "" : u.release, kernel, kernel_cap);
}

int xp_host_platform(char *out, size_t cap, struct err *e)
{
	static const struct {
		const char *uname, *name;
	} os[] = { { "Linux", "linux" }, { "Darwin", "darwin" }, { "FreeBSD", "freebsd" } },
	  arch[] = { { "x86_64", "amd64" }, { "aarch64", "arm64" }, { "arm64", "arm64" },
		     { "i686", "386" }, { "riscv64", "riscv64" }, { "ppc64le", "ppc64le" },
		     { "s390x", "s390x" } };
	struct utsname u;
	const char *o = NULL, *a = NULL;

	if (uname(&u) < 0)
		return err_errno(e, errno, "cannot tell the platform: uname");
	for (size_t i = 0; i < sizeof(os) / sizeof(os[0]); i++)
		if (!strcmp(u.sysname, os[i].uname))
			o = os[i].name;
	for (size_t i = 0; i < sizeof(arch) / sizeof(arch[0]); i++)
		if (!strcmp(u.machine, arch[i].uname))
			a = arch[i].name;
	if (!o || !a)
		return err_set(e, "cannot tell the platform: unknown system \"%s\" on \"%s\"",
			       u.sysname, u.machine);
	if ((size_t)snprintf(out, cap, "%s/%s", o, a) >= cap)
		return err_set(e, "cannot tell the platform: name too long");
	return 0;
}

/* Whether `model` ("A100") is a whole word of `name`: "A100", not "A1000". */
static bool names_model(const char *name, const char *model)
{
	size_t n = strlen(model);

	for (const char *m = strstr(name, model); m; m = strstr(m + 1, model)) {
		char before = m == name ? ' ' : m[-1], after = m[n];

		if (!isalnum((unsigned char)before) && !isalnum((unsigned char)after))
			return true;
	}
	return false;
}

/* The accelerators fak can verify, and the model word an NVIDIA device's
 * name must hold (read through NVML, sampler/gpu.h). */
static const struct {
	const char *accelerator, *model;
} nvidia_models[] = {
	{ "nvidia-a100", "A100" },
};

int xp_platform_check(const char *want, struct err *e)
{
	char here[64];
	const char *plus = strchr(want, '+');
	size_t base = plus ? (size_t)(plus - want) : strlen(want);
	struct gpu_probe *p;
	struct strbuf found = STRBUF_INIT;
	const char *model = NULL;
	struct err pe;
	bool ok = false;
	int rc;

	if (xp_host_platform(here, sizeof(here), e) < 0)
		return -1;
	if (strlen(here) != base || strncmp(here, want, base))
		return err_set(e, "this machine is %s; a run here cannot witness an envelope on %s",
			       here, want);
	if (!plus)
		return 0;
	for (size_t i = 0; i < sizeof(nvidia_models) / sizeof(nvidia_models[0]); i++)
		if (!strcmp(plus + 1, nvidia_models[i].accelerator))
			model = nvidia_models[i].model;
	if (!model)
		return err_set(e, "the envelope's accelerator \"%s\" cannot be verified on this "
				  "machine; fak knows how to check nvidia-a100 only", plus + 1);
	p = xmalloc(sizeof(*p));
	if (gpu_probe(p, &pe) < 0) {
		free(p);
		return err_set(e, "the envelope needs an NVIDIA %s (%s), and NVML cannot be read "
				  "here: %s", model, want, pe.msg);
	}
	for (size_t i = 0; i < p->nr_devices; i++) {
		ok |= names_model(p->devices[i].name, model);
		sb_addf(&found, "%s\"%s\"", i ? ", " : "", p->devices[i].name);
	}
	rc = 0;
	if (!ok && !p->nr_devices)
		rc = err_set(e, "the envelope needs an NVIDIA %s (%s), and NVML lists no device "
				"here", model, want);
	else if (!ok)
		rc = err_set(e, "the envelope needs an NVIDIA %s (%s), and NVML lists %s", model,
			     want, found.buf);
	sb_release(&found);
	free(p);
	return rc;
}

/* The key makes the id fak's own: the same machine id hashed under another
 * key (by another tool) gives an unrelated value. */
#define MACHINE_ID_KEY "fak scrubbed machine id v1"

int xp_machine_id(const char *file, char out[40], struct err *e)
{
	static const char *const defaults[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
	struct strbuf sb = STRBUF_INIT;
	char mac[65];
	size_t n;

	for (size_t i = 0; i < (file ? 1 : sizeof(defaults) / sizeof(defaults[0])); i++) {
		const char *path = file ? file : defaults[i];

		if (file_read(path, 4096, &sb, e) == 0)
			break;
		if (file)
			return err_prefix(e, "machine id");
		if (i + 1 == sizeof(defaults) / sizeof(defaults[0])) {
			sb_release(&sb);
			return err_set(e, "cannot read a machine id from /etc/machine-id or "
					  "/var/lib/dbus/machine-id; "
					  "create one (systemd-machine-id-setup) "
					  "or name a file with --machine-id-file");
		}
	}
	n = sb.len;
	while (n && (sb.buf[n - 1] == '\n' || sb.buf[n - 1] == ' '))
		n--;
	if (n < 16) {
		sb_release(&sb);
		return err_set(e, "the machine id is shorter than 16 characters; "
				  "a machine id is 32 hexadecimal digits");
	}
	digest_hmac(MACHINE_ID_KEY, strlen(MACHINE_ID_KEY), sb.buf, n, mac);
	sb_release(&sb);
	snprintf(out, 40, "m-%.32s", mac);
	return 0;
}
