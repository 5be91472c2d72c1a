/* What the experiment learns about the machine it runs on: its platform
 * (checked against the envelope before anything runs) and a scrubbed id. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "experiment/experiment.h"

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
		return err_set(e, "cannot tell the platform: unknown system \"%s\" on \"%s\"", u.sysname,
			       u.machine);
	if ((size_t)snprintf(out, cap, "%s/%s", o, a) >= cap)
		return err_set(e, "cannot tell the platform: name too long");
	return 0;
}

/* An NVIDIA GPU whose model line names `model` ("A100"), from the driver's
 * /proc/driver/nvidia/gpus/<bus>/information files. */
static bool nvidia_gpu(const char *proc_root, const char *model)
{
	char dir[512];
	struct strbuf sb = STRBUF_INIT;
	struct dirent *de;
	struct err e;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/driver/nvidia/gpus", proc_root);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[1024];
		const char *line;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/information", dir, de->d_name);
		if (file_read(path, 65536, &sb, &e) < 0)
			continue;
		line = strstr(sb_str(&sb), "Model:");
		if (line) {
			const char *end = strchr(line, '\n');
			struct strbuf l = STRBUF_INIT;

			sb_add(&l, line, end ? (size_t)(end - line) : strlen(line));
			/* the model as a whole word: "A100", not "A1000" */
			for (const char *m = strstr(l.buf, model); m && !found; m = strstr(m + 1, model)) {
				char before = m == l.buf ? ' ' : m[-1], after = m[strlen(model)];

				found = !isalnum((unsigned char)before) && !isalnum((unsigned char)after);
			}
			sb_release(&l);
		}
	}
	closedir(d);
	sb_release(&sb);
	return found;
}

int xp_platform_check(const char *want, const char *proc_root, struct err *e)
{
	char here[64];
	const char *plus = strchr(want, '+');
	size_t base = plus ? (size_t)(plus - want) : strlen(want);

	if (xp_host_platform(here, sizeof(here), e) < 0)
		return -1;
	if (strlen(here) != base || strncmp(here, want, base))
		return err_set(e, "this machine is %s; a run here cannot witness an envelope on %s", here,
			       want);
	if (!plus)
		return 0;
	if (!strcmp(plus + 1, "nvidia-a100")) {
		if (nvidia_gpu(proc_root, "A100"))
			return 0;
		return err_set(e, "the envelope needs an NVIDIA A100 (%s), and the NVIDIA driver lists none "
				  "here (%s/driver/nvidia/gpus)", want, proc_root);
	}
	return err_set(e, "the envelope's accelerator \"%s\" cannot be verified on this machine; fak "
			  "knows how to check nvidia-a100 only", plus + 1);
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
					  "/var/lib/dbus/machine-id; create one (systemd-machine-id-setup) "
					  "or name a file with --machine-id-file");
		}
	}
	n = sb.len;
	while (n && (sb.buf[n - 1] == '\n' || sb.buf[n - 1] == ' '))
		n--;
	if (n < 16) {
		sb_release(&sb);
		return err_set(e, "the machine id is shorter than 16 characters; a machine id is 32 "
				  "hexadecimal digits");
	}
	digest_hmac(MACHINE_ID_KEY, strlen(MACHINE_ID_KEY), sb.buf, n, mac);
	sb_release(&sb);
	snprintf(out, 40, "m-%.32s", mac);
	return 0;
}
