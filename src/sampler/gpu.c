/* gpu.h: NVML through dlopen and sampling into the "gpu" section (its sealed form:
 * attestation/gpu_section.h).
 *
 * The few NVML types and constants fak needs are declared here from NVIDIA's
 * public NVML API reference (nvml.h is not needed to build). */
#include "sampler/gpu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"

/* ---- NVML declarations (public API reference) ------------------------- */

typedef int nvml_ret;
typedef struct nvml_device *nvml_dev;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
};
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
#define NVML_VALUE_NOT_AVAILABLE 0xffffffffffffffffULL

struct nvml_utilization {
	unsigned int gpu, memory;
};
struct nvml_memory {
	unsigned long long total, free, used;
};
/* nvmlProcessInfo_t as filled by nvmlDeviceGetComputeRunningProcesses_v3 */
struct nvml_process {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* The entry points, resolved by name; the table is walked by one loader.
 * Required ones make the library unusable when missing. */
struct nvml {
	void *so;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*count)(unsigned int *);
	nvml_ret (*handle)(unsigned int, nvml_dev *);
	nvml_ret (*name)(nvml_dev, char *, unsigned int);
	nvml_ret (*uuid)(nvml_dev, char *, unsigned int);
	nvml_ret (*driver)(char *, unsigned int);
	nvml_ret (*clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*app_clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*default_app_clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*max_clock)(nvml_dev, int, unsigned int *);
	nvml_ret (*reasons)(nvml_dev, unsigned long long *);
	nvml_ret (*power)(nvml_dev, unsigned int *);
	nvml_ret (*temperature)(nvml_dev, int, unsigned int *);
	nvml_ret (*utilization)(nvml_dev, struct nvml_utilization *);
	nvml_ret (*memory)(nvml_dev, struct nvml_memory *);
	nvml_ret (*persistence)(nvml_dev, int *);
	nvml_ret (*processes)(nvml_dev, unsigned int *, struct nvml_process *);
};

#define SYM(field, name, required) { offsetof(struct nvml, field), name, required }
static const struct {
	size_t offset;
	const char *name;
	bool required;
} nvml_syms[] = {
	SYM(init, "nvmlInit_v2", true),
	SYM(shutdown, "nvmlShutdown", true),
	SYM(error_string, "nvmlErrorString", true),
	SYM(count, "nvmlDeviceGetCount_v2", true),
	SYM(handle, "nvmlDeviceGetHandleByIndex_v2", true),
	SYM(name, "nvmlDeviceGetName", true),
	SYM(clock, "nvmlDeviceGetClockInfo", true),
	SYM(uuid, "nvmlDeviceGetUUID", false),
	SYM(driver, "nvmlSystemGetDriverVersion", false),
	SYM(app_clock, "nvmlDeviceGetApplicationsClock", false),
	SYM(default_app_clock, "nvmlDeviceGetDefaultApplicationsClock", false),
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo", false),
	/* renamed in CUDA 12.2; the old name stays exported */
	SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons", false),
	SYM(power, "nvmlDeviceGetPowerUsage", false),
	SYM(temperature, "nvmlDeviceGetTemperature", false),
	SYM(utilization, "nvmlDeviceGetUtilizationRates", false),
	SYM(memory, "nvmlDeviceGetMemoryInfo", false),
	SYM(persistence, "nvmlDeviceGetPersistenceMode", false),
	SYM(processes, "nvmlDeviceGetComputeRunningProcesses_v3", false),
};
#undef SYM

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

#define FD_BITS 4096

/* The open descriptors below FD_BITS, as a bit set (the listing's own
 * descriptor left out). */
static void fd_snapshot(unsigned char set[FD_BITS / 8])
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	memset(set, 0, FD_BITS / 8);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);

		if (de->d_name[0] != '.' && fd >= 0 && fd < FD_BITS && fd != dirfd(d))
			set[fd / 8] |= (unsigned char)(1u << (fd % 8));
	}
	closedir(d);
}

/* The command fak runs must not inherit the driver's descriptors: every
 * descriptor NVML opened (not in `before`) becomes close-on-exec. */
static void cloexec_new(const unsigned char before[FD_BITS / 8])
{
	unsigned char after[FD_BITS / 8];

	fd_snapshot(after);
	for (int fd = 0; fd < FD_BITS; fd++) {
		int flags;

		if (!(after[fd / 8] & ~before[fd / 8] & (1u << (fd % 8))))
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

/* Opens the library and resolves the table; on failure *why says so. */
static int nvml_load(struct nvml *n, char *why, size_t cap)
{
	unsigned char before[FD_BITS / 8];

	memset(n, 0, sizeof(*n));
	fd_snapshot(before);
	n->so = dlopen(GPU_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!n->so) {
		snprintf(why, cap, "no %s", GPU_LIBRARY);
		return -1;
	}
	for (size_t i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++) {
		void *p = dlsym(n->so, nvml_syms[i].name);

		if (!p && !strcmp(nvml_syms[i].name, "nvmlDeviceGetCurrentClocksEventReasons"))
			p = dlsym(n->so, "nvmlDeviceGetCurrentClocksThrottleReasons");
		if (!p && nvml_syms[i].required) {
			snprintf(why, cap, "%s has no %s", GPU_LIBRARY, nvml_syms[i].name);
			dlclose(n->so);
			n->so = NULL;
			return -1;
		}
		/* POSIX: a data pointer from dlsym converts to a function pointer */
		memcpy((char *)n + nvml_syms[i].offset, &p, sizeof(p));
	}
	if (n->init() != NVML_SUCCESS) {
		snprintf(why, cap, "nvmlInit_v2 failed");
		dlclose(n->so);
		n->so = NULL;
		return -1;
	}
	cloexec_new(before);
	return 0;
}

static void nvml_unload(struct nvml *n)
{
	if (!n->so)
		return;
	n->shutdown();
	dlclose(n->so);
	n->so = NULL;
}

static int64_t uint_or(nvml_ret (*f)(nvml_dev, int, unsigned int *), nvml_dev d, int type)
{
	unsigned int v = 0;

	return f && f(d, type, &v) == NVML_SUCCESS ? (int64_t)v : -1;
}

static void read_state(const struct nvml *n, nvml_dev d, struct gpu_state *st)
{
	unsigned long long bits = 0;
	int mode = 0;

	st->persistence_mode = -1;
	if (n->persistence && n->persistence(d, &mode) == NVML_SUCCESS)
		st->persistence_mode = !!mode;
	st->applications_sm_clock_mhz = uint_or(n->app_clock, d, NVML_CLOCK_SM);
	st->applications_memory_clock_mhz = uint_or(n->app_clock, d, NVML_CLOCK_MEM);
	st->default_applications_sm_clock_mhz = uint_or(n->default_app_clock, d, NVML_CLOCK_SM);
	st->default_applications_memory_clock_mhz =
		uint_or(n->default_app_clock, d, NVML_CLOCK_MEM);
	st->max_sm_clock_mhz = uint_or(n->max_clock, d, NVML_CLOCK_SM);
	st->max_memory_clock_mhz = uint_or(n->max_clock, d, NVML_CLOCK_MEM);
	st->event_reasons = n->reasons && n->reasons(d, &bits) == NVML_SUCCESS ? (int64_t)bits : -1;
}

/* The device UUID is an identifier of this machine's hardware: only a
 * prefix of its SHA-256 leaves fak. */
static void read_identity(const struct nvml *n, nvml_dev d, char out[GPU_IDENTITY_LEN + 1])
{
	char uuid[96] = "", hex[65];

	out[0] = '\0';
	if (!n->uuid || n->uuid(d, uuid, sizeof(uuid)) != NVML_SUCCESS || !uuid[0])
		return;
	uuid[sizeof(uuid) - 1] = '\0';
	sha256_hex(uuid, strlen(uuid), hex);
	memcpy(out, hex, GPU_IDENTITY_LEN);
	out[GPU_IDENTITY_LEN] = '\0';
}

/* Device names come from the driver; keep printable ASCII only. */
static void read_name(const struct nvml *n, nvml_dev d, char out[GPU_NAME_MAX])
{
	char raw[GPU_NAME_MAX] = "";

	if (n->name(d, raw, sizeof(raw)) != NVML_SUCCESS)
		copy(raw, sizeof(raw), "unknown");
	raw[sizeof(raw) - 1] = '\0';
	for (char *p = raw; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	copy(out, GPU_NAME_MAX, raw[0] ? raw : "unknown");
}

static void read_driver(const struct nvml *n, char out[GPU_NAME_MAX])
{
	char raw[GPU_NAME_MAX] = "";

	out[0] = '\0';
	if (!n->driver || n->driver(raw, sizeof(raw)) != NVML_SUCCESS)
		return;
	raw[sizeof(raw) - 1] = '\0';
	for (char *p = raw; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	copy(out, GPU_NAME_MAX, raw);
}

/* ---- sampling ----------------------------------------------------------- */

struct gpu {
	struct nvml n;
	nvml_dev dev[GPU_MAX_DEVICES];
	int64_t mono0_ns;
	int64_t seen[GPU_MAX_DEVICES];		/* readings offered, for the stride */
	struct nvml_process procs[64];
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Clears everything but the device array. */
static void clear(struct gpu_section *s)
{
	memset(s, 0, offsetof(struct gpu_section, devices));
}

void gpu_unreadable(struct gpu_section *s, const char *reason)
{
	clear(s);
	copy(s->status, sizeof(s->status), GPU_UNREADABLE);
	copy(s->reason, sizeof(s->reason), reason);
}

void gpu_copy(struct gpu_section *dst, const struct gpu_section *src)
{
	memcpy(dst, src, offsetof(struct gpu_section, devices));
	memcpy(dst->devices, src->devices, src->nr_devices * sizeof(src->devices[0]));
}

struct gpu *gpu_open(struct gpu_section *s)
{
	struct gpu *g = xcalloc(1, sizeof(*g));
	char why[GPU_TEXT_MAX];
	unsigned int count = 0;
	nvml_ret rc;

	clear(s);
	if (nvml_load(&g->n, why, sizeof(why)) < 0) {
		gpu_unreadable(s, why);
		free(g);
		return NULL;
	}
	rc = g->n.count(&count);
	if (rc != NVML_SUCCESS || count == 0) {
		snprintf(why, sizeof(why), "%s", rc != NVML_SUCCESS ? "nvmlDeviceGetCount_v2 failed"
								   : "no NVIDIA device");
		nvml_unload(&g->n);
		gpu_unreadable(s, why);
		free(g);
		return NULL;
	}
	read_driver(&g->n, s->driver_version);
	for (unsigned int i = 0; i < count && s->nr_devices < GPU_MAX_DEVICES; i++) {
		struct gpu_device *d = &s->devices[s->nr_devices];

		if (g->n.handle(i, &g->dev[s->nr_devices]) != NVML_SUCCESS)
			continue;
		memset(d, 0, sizeof(*d));
		d->index = i;
		d->reading_stride = 1;
		read_name(&g->n, g->dev[s->nr_devices], d->name);
		read_identity(&g->n, g->dev[s->nr_devices], d->identity);
		read_state(&g->n, g->dev[s->nr_devices], &d->state);
		s->nr_devices++;
	}
	if (!s->nr_devices) {
		nvml_unload(&g->n);
		gpu_unreadable(s, "no NVIDIA device answered nvmlDeviceGetHandleByIndex_v2");
		free(g);
		return NULL;
	}
	g->mono0_ns = now_ns();
	return g;
}

static void note_unsupported(struct gpu_device *d, const char *what)
{
	size_t n = strlen(d->unsupported);

	if (strstr(d->unsupported, what))
		return;
	snprintf(d->unsupported + n, sizeof(d->unsupported) - n, "%s%s", n ? " " : "", what);
}

/* An optional figure: the value, or -1 (noting NOT_SUPPORTED). */
static int64_t optional(struct gpu_device *d, nvml_ret rc, int64_t v, const char *what)
{
	if (rc == NVML_SUCCESS)
		return v;
	if (rc == NVML_ERROR_NOT_SUPPORTED)
		note_unsupported(d, what);
	return -1;
}

static int64_t process_memory(struct gpu *g, nvml_dev dev, gpu_is_sut_fn *is_sut, void *ctx)
{
	unsigned int n = sizeof(g->procs) / sizeof(g->procs[0]);
	int64_t sum = 0;

	if (!g->n.processes || !is_sut || g->n.processes(dev, &n, g->procs) != NVML_SUCCESS)
		return -1;
	for (unsigned int i = 0; i < n && i < sizeof(g->procs) / sizeof(g->procs[0]); i++)
		if (g->procs[i].used_gpu_memory != NVML_VALUE_NOT_AVAILABLE &&
		    is_sut(ctx, (int)g->procs[i].pid))
			sum += (int64_t)g->procs[i].used_gpu_memory;
	return sum;
}

static void read_one(struct gpu *g, nvml_dev dev, struct gpu_device *d, struct gpu_reading *r,
		     gpu_is_sut_fn *is_sut, void *ctx)
{
	const struct nvml *n = &g->n;
	unsigned int sm = 0, mem = 0, v = 0;
	unsigned long long bits = 0;
	struct nvml_utilization u;
	struct nvml_memory m;
	nvml_ret rs, rm, rc;

	r->clocks_event_reasons = r->temperature_c = r->power_mw = r->utilization_percent = -1;
	r->memory_used_bytes = r->process_memory_bytes = -1;
	rs = n->clock(dev, NVML_CLOCK_SM, &sm);
	rm = rs == NVML_SUCCESS ? n->clock(dev, NVML_CLOCK_MEM, &mem) : rs;
	if (rs != NVML_SUCCESS || rm != NVML_SUCCESS) {
		rc = rs != NVML_SUCCESS ? rs : rm;
		copy(r->status, sizeof(r->status),
		     rc == NVML_ERROR_NOT_SUPPORTED ? GPU_UNREADABLE : GPU_FAILED);
		snprintf(r->error, sizeof(r->error), "nvmlDeviceGetClockInfo: %s",
			 n->error_string(rc));
		return;
	}
	if (sm == 0 || mem == 0) {
		copy(r->status, sizeof(r->status), GPU_FAILED);
		copy(r->error, sizeof(r->error), "nvmlDeviceGetClockInfo reported 0 MHz");
		return;
	}
	copy(r->status, sizeof(r->status), GPU_OBSERVED);
	r->sm_clock_mhz = sm;
	r->memory_clock_mhz = mem;
	/* each call before its value is read: argument order is unspecified */
	if (n->reasons) {
		rc = n->reasons(dev, &bits);
		r->clocks_event_reasons = optional(d, rc, (int64_t)(bits & 0x7fffffffffffffff),
						   "clocks_event_reasons");
	}
	if (n->temperature) {
		rc = n->temperature(dev, NVML_TEMPERATURE_GPU, &v);
		r->temperature_c = optional(d, rc, v, "temperature");
	}
	if (n->power) {
		rc = n->power(dev, &v);
		r->power_mw = optional(d, rc, v, "power");
	}
	if (n->utilization) {
		rc = n->utilization(dev, &u);
		r->utilization_percent =
			optional(d, rc, rc == NVML_SUCCESS ? u.gpu : 0, "utilization");
	}
	if (n->memory) {
		rc = n->memory(dev, &m);
		r->memory_used_bytes =
			optional(d, rc, rc == NVML_SUCCESS ? (int64_t)m.used : 0, "memory");
	}
	r->process_memory_bytes = process_memory(g, dev, is_sut, ctx);
}

/* Halves the readings (keeps every other one) and doubles the stride. */
static void decimate(struct gpu_device *d)
{
	size_t k = 0;

	for (size_t i = 0; i < d->nr_readings; i += 2)
		d->readings[k++] = d->readings[i];
	d->nr_readings = k;
	d->reading_stride *= 2;
}

void gpu_sample(struct gpu *g, struct gpu_section *s, int64_t mono_ns, gpu_is_sut_fn *is_sut,
		void *ctx)
{
	int64_t t0;

	if (!g)
		return;
	t0 = now_ns();
	for (size_t i = 0; i < s->nr_devices; i++) {
		struct gpu_device *d = &s->devices[i];
		struct gpu_reading *r;

		if (g->seen[i]++ % d->reading_stride)
			continue;
		if (d->nr_readings == GPU_MAX_READINGS) {
			decimate(d);
			if ((g->seen[i] - 1) % d->reading_stride)
				continue;
		}
		r = &d->readings[d->nr_readings++];
		memset(r, 0, sizeof(*r));
		r->offset_ms = (mono_ns - g->mono0_ns) / 1000000;
		if (r->offset_ms < 0)
			r->offset_ms = 0;
		read_one(g, g->dev[i], d, r, is_sut, ctx);
	}
	s->sampler_wall_ns += now_ns() - t0;
}

void gpu_close(struct gpu *g, struct gpu_section *s)
{
	if (!g)
		return;
	nvml_unload(&g->n);
	free(g);
	gpu_summarize(s);
}

int gpu_probe(struct gpu_probe *p, struct err *e)
{
	struct nvml n;
	char why[GPU_TEXT_MAX];
	unsigned int count = 0;

	memset(p, 0, sizeof(*p));
	if (nvml_load(&n, why, sizeof(why)) < 0)
		return err_set(e, "%s", why);
	if (n.count(&count) != NVML_SUCCESS) {
		nvml_unload(&n);
		return err_set(e, "nvmlDeviceGetCount_v2 failed");
	}
	read_driver(&n, p->driver_version);
	for (unsigned int i = 0; i < count && p->nr_devices < GPU_MAX_DEVICES; i++) {
		struct gpu_probe_device *d = &p->devices[p->nr_devices];
		nvml_dev dev;

		if (n.handle(i, &dev) != NVML_SUCCESS)
			continue;
		read_name(&n, dev, d->name);
		read_identity(&n, dev, d->identity);
		read_state(&n, dev, &d->state);
		p->nr_devices++;
	}
	nvml_unload(&n);
	return 0;
}
