/* A test double of NVIDIA's management library, built as
 * libnvidia-ml.so.1 and found through LD_LIBRARY_PATH. It exports the entry
 * points fak resolves, with scripted values chosen by FAKE_NVML:
 *
 *   steady     one "NVIDIA A100-SXM4-80GB" at 1410/1593 MHz (the default)
 *   drop       the SM clock drops to 1005 MHz FAKE_NVML_AFTER_MS (200) after init
 *   powercap   from then on the clock-event reason sw_power_cap, SM at 1200 MHz
 *   nosupport  nvmlDeviceGetPowerUsage returns NOT_SUPPORTED
 *   vanish     from then on the device is lost (GPU_IS_LOST)
 *   nodevice   no device
 *   initfail   nvmlInit_v2 fails (DRIVER_NOT_LOADED)
 *
 * FAKE_NVML_NAME replaces the device name; FAKE_NVML_PERSISTENCE=0 turns
 * persistence mode off. The command's processes (the
 * caller's descendants) each hold 1 GiB of GPU memory; PID 1 holds 5 GiB, which
 * fak must not count as the command's. Values follow NVIDIA's public API
 * reference; no NVIDIA code is used. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OK 0
#define NOT_SUPPORTED 3
#define INSUFFICIENT_SIZE 7
#define DRIVER_NOT_LOADED 9
#define GPU_IS_LOST 15
#define INVALID_ARGUMENT 2

struct utilization {
	unsigned int gpu, memory;
};
struct memory {
	unsigned long long total, free, used;
};
struct process {
	unsigned int pid;
	unsigned long long used;
	unsigned int gi, ci;
};

static struct timespec t0;

static const char *mode(void)
{
	const char *m = getenv("FAKE_NVML");

	return m && *m ? m : "steady";
}

static int is(const char *m)
{
	return !strcmp(mode(), m);
}

/* Whether the scripted event has happened. */
static int later(void)
{
	const char *a = getenv("FAKE_NVML_AFTER_MS");
	long after = a ? atol(a) : 200;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= after;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int rc);
int nvmlSystemGetDriverVersion(char *buf, unsigned int len);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev);
int nvmlDeviceGetName(void *dev, char *buf, unsigned int len);
int nvmlDeviceGetUUID(void *dev, char *buf, unsigned int len);
int nvmlDeviceGetClockInfo(void *dev, int type, unsigned int *mhz);
int nvmlDeviceGetApplicationsClock(void *dev, int type, unsigned int *mhz);
int nvmlDeviceGetDefaultApplicationsClock(void *dev, int type, unsigned int *mhz);
int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned int *mhz);
int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *bits);
int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw);
int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *c);
int nvmlDeviceGetUtilizationRates(void *dev, struct utilization *u);
int nvmlDeviceGetMemoryInfo(void *dev, struct memory *m);
int nvmlDeviceGetPersistenceMode(void *dev, int *mode);
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *n, struct process *p);

/* Like a driver that forgets O_CLOEXEC: fak must keep the command from
 * inheriting it. */
static int device_fd = -1;

int nvmlInit_v2(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (is("initfail"))
		return DRIVER_NOT_LOADED;
	if (device_fd < 0)
		device_fd = open("/dev/zero", O_RDONLY);
	return OK;
}

int nvmlShutdown(void)
{
	if (device_fd >= 0)
		close(device_fd);
	device_fd = -1;
	return OK;
}

const char *nvmlErrorString(int rc)
{
	switch (rc) {
	case OK: return "Success";
	case NOT_SUPPORTED: return "Not Supported";
	case GPU_IS_LOST: return "GPU is lost";
	case DRIVER_NOT_LOADED: return "Driver Not Loaded";
	default: return "Unknown Error";
	}
}

int nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
	snprintf(buf, len, "535.104.05");
	return OK;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = is("nodevice") ? 0 : 1;
	return OK;
}

static int dev0;

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
	if (i != 0 || is("nodevice"))
		return INVALID_ARGUMENT;
	*dev = &dev0;
	return OK;
}

static int lost(void)
{
	return is("vanish") && later();
}

int nvmlDeviceGetName(void *dev, char *buf, unsigned int len)
{
	const char *n = getenv("FAKE_NVML_NAME");

	(void)dev;
	snprintf(buf, len, "%s", n ? n : "NVIDIA A100-SXM4-80GB");
	return OK;
}

int nvmlDeviceGetUUID(void *dev, char *buf, unsigned int len)
{
	(void)dev;
	snprintf(buf, len, "GPU-2f7c1e1a-0000-4d1c-9a3b-fa4e00000001");
	return OK;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned int *mhz)
{
	(void)dev;
	if (lost())
		return GPU_IS_LOST;
	if (type == 2)
		*mhz = 1593;
	else if (is("drop") && later())
		*mhz = 1005;
	else if (is("powercap") && later())
		*mhz = 1200;
	else
		*mhz = 1410;
	return OK;
}

int nvmlDeviceGetApplicationsClock(void *dev, int type, unsigned int *mhz)
{
	(void)dev;
	*mhz = type == 2 ? 1593 : 1410;
	return OK;
}

int nvmlDeviceGetDefaultApplicationsClock(void *dev, int type, unsigned int *mhz)
{
	(void)dev;
	*mhz = type == 2 ? 1593 : 1095;
	return OK;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned int *mhz)
{
	(void)dev;
	*mhz = type == 2 ? 1593 : 1410;
	return OK;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *bits)
{
	(void)dev;
	if (lost())
		return GPU_IS_LOST;
	*bits = is("powercap") && later() ? 0x4 : 0;
	return OK;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw)
{
	(void)dev;
	if (is("nosupport"))
		return NOT_SUPPORTED;
	if (lost())
		return GPU_IS_LOST;
	*mw = is("powercap") && later() ? 400000 : 250000;
	return OK;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *c)
{
	(void)dev;
	(void)sensor;
	if (lost())
		return GPU_IS_LOST;
	*c = 45;
	return OK;
}

int nvmlDeviceGetUtilizationRates(void *dev, struct utilization *u)
{
	(void)dev;
	if (lost())
		return GPU_IS_LOST;
	u->gpu = 97;
	u->memory = 40;
	return OK;
}

int nvmlDeviceGetMemoryInfo(void *dev, struct memory *m)
{
	(void)dev;
	if (lost())
		return GPU_IS_LOST;
	m->total = 85899345920ULL;
	m->used = 6442450944ULL;
	m->free = m->total - m->used;
	return OK;
}

int nvmlDeviceGetPersistenceMode(void *dev, int *mode_out)
{
	const char *p = getenv("FAKE_NVML_PERSISTENCE");

	(void)dev;
	*mode_out = !(p && !strcmp(p, "0"));
	return OK;
}

/* Appends the children of pid to p[*k..cap). */
static void children(int pid, struct process *p, unsigned int *k, unsigned int cap)
{
	char path[64], buf[4096];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "r");
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	fclose(f);
	for (char *s = buf, *end; *k < cap; s = end) {
		long c = strtol(s, &end, 10);

		if (c <= 0 || end == s)
			break;
		p[*k].pid = (unsigned int)c;
		p[*k].used = 1073741824ULL;
		p[*k].gi = p[*k].ci = 0;
		(*k)++;
	}
}

/* The caller's descendants (the command fak runs) hold 1 GiB each, PID 1
 * holds 5 GiB. */
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *n, struct process *p)
{
	unsigned int k = 0;

	(void)dev;
	if (lost())
		return GPU_IS_LOST;
	if (*n < 2)
		return INSUFFICIENT_SIZE;
	children((int)getpid(), p, &k, *n - 1);
	for (unsigned int i = 0; i < k && k < *n - 1; i++)
		children((int)p[i].pid, p, &k, *n - 1);
	p[k].pid = 1;
	p[k].used = 5368709120ULL;
	p[k].gi = p[k].ci = 0;
	*n = k + 1;
	return OK;
}
