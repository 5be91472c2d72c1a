#include "base/proc_parse.h"

#include <string.h>

/* A cursor over [p, end). */
struct cur {
	const char *p, *end;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static void skip_space(struct cur *c)
{
	while (c->p < c->end && is_space(*c->p))
		c->p++;
}

/* Unsigned decimal; at least one digit, no overflow. */
static int read_u64(struct cur *c, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return -1;
	*out = v;
	return 0;
}

/* Signed decimal (rss may print negative). */
static int read_i64(struct cur *c, int64_t *out)
{
	bool neg = c->p < c->end && *c->p == '-';
	uint64_t v;

	if (neg)
		c->p++;
	if (read_u64(c, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* The field ends at a blank or line end. */
static bool at_field_end(const struct cur *c)
{
	return c->p == c->end || is_space(*c->p);
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* The counters of one cpu line, after its label: at least 4. */
static int stat_fields(struct cur c, struct pp_cpu *out)
{
	uint64_t v[8], total = 0;
	int n = 0;

	for (;;) {
		uint64_t x;

		skip_blanks(&c);
		if (c.p == c.end)
			break;
		if (read_u64(&c, &x) < 0 || !at_field_end(&c))
			return -1;
		if (n < 8)
			v[n] = x;
		n++;
	}
	if (n < 4)
		return -1;
	for (int i = 0; i < n && i < 8; i++) {
		if (total > UINT64_MAX - v[i])
			return -1;
		total += v[i];
	}
	out->idle_ticks = v[3];
	if (n > 4) {
		if (out->idle_ticks > UINT64_MAX - v[4])
			return -1;
		out->idle_ticks += v[4];
	}
	if (total < out->idle_ticks)
		return -1;
	out->total_ticks = total;
	return 0;
}

int pp_stat_cpu(const char *buf, size_t len, struct pp_cpu *out)
{
	struct cur c = { buf, line_end(buf, buf + len) };

	if (c.end - c.p < 4 || memcmp(c.p, "cpu", 3) || !(c.p[3] == ' ' || c.p[3] == '\t'))
		return -1;
	c.p += 3;
	return stat_fields(c, out);
}

int pp_stat_cpus(const char *buf, size_t len, const unsigned char *set, size_t max_cpus,
		 size_t count, struct pp_cpu *out)
{
	const char *p = buf, *end = buf + len;
	unsigned char got[PP_MAX_CPUS / 8] = { 0 };
	size_t seen = 0;

	if (max_cpus > PP_MAX_CPUS || !count)
		return -1;
	out->total_ticks = out->idle_ticks = 0;
	while (p < end) {
		const char *le = line_end(p, end), *line = p;
		struct cur c = { line + 3, le };
		struct pp_cpu one;
		uint64_t cpu;

		p = le < end ? le + 1 : end;
		if (le - line < 4 || memcmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (read_u64(&c, &cpu) < 0 || !at_field_end(&c) || stat_fields(c, &one) < 0)
			return -1;
		if (cpu >= max_cpus || !(set[cpu / 8] & (1u << (cpu % 8))))
			continue;
		if (got[cpu / 8] & (1u << (cpu % 8)) ||
		    out->total_ticks > UINT64_MAX - one.total_ticks)
			return -1;
		got[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		out->total_ticks += one.total_ticks;
		out->idle_ticks += one.idle_ticks;
		seen++;
	}
	return seen == count ? 0 : -1;
}

/* "Key:   123 kB" -> bytes */
static int meminfo_value(const char *p, const char *end, uint64_t *bytes)
{
	struct cur c = { p, end };
	uint64_t kb;

	skip_blanks(&c);
	if (read_u64(&c, &kb) < 0)
		return -1;
	skip_blanks(&c);
	if (end - c.p != 2 || memcmp(c.p, "kB", 2) || kb > UINT64_MAX / 1024)
		return -1;
	*bytes = kb * 1024;
	return 0;
}

int pp_meminfo(const char *buf, size_t len, uint64_t *total_bytes, uint64_t *available_bytes)
{
	const char *p = buf, *end = buf + len;
	bool have_total = false, have_avail = false;

	while (p < end) {
		const char *le = line_end(p, end);
		size_t n = (size_t)(le - p);

		if (n > 9 && !memcmp(p, "MemTotal:", 9)) {
			if (meminfo_value(p + 9, le, total_bytes) < 0)
				return -1;
			have_total = true;
		} else if (n > 13 && !memcmp(p, "MemAvailable:", 13)) {
			if (meminfo_value(p + 13, le, available_bytes) < 0)
				return -1;
			have_avail = true;
		}
		p = le < end ? le + 1 : end;
	}
	if (!have_total || !have_avail || !*total_bytes || !*available_bytes)
		return -1;
	return 0;
}

int pp_pid_stat(const char *buf, size_t len, struct pp_pid *out)
{
	const char *end = buf + len, *open, *close = NULL;
	struct cur c = { buf, end };
	uint64_t pid;
	int64_t field[22];
	uint64_t ufield[22];
	size_t comm_len;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (read_u64(&c, &pid) < 0 || pid == 0 || pid > INT32_MAX)
		return -1;
	open = memchr(buf, '(', len);
	for (const char *q = end; q > buf; q--)
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	if (!open || !close || close < open || open != c.p + 1 || *c.p != ' ')
		return -1;
	comm_len = (size_t)(close - open - 1);
	/* the kernel's comm is a C string: a NUL in it would cut it */
	if (memchr(open + 1, '\0', comm_len))
		return -1;
	if (comm_len >= PP_COMM_MAX)
		comm_len = PP_COMM_MAX - 1;
	memcpy(out->comm, open + 1, comm_len);
	out->comm[comm_len] = '\0';
	c.p = close + 1;
	/* state, then numeric fields; we need the first 22 after ')' */
	skip_blanks(&c);
	if (c.p == c.end || is_space(*c.p))
		return -1;
	out->state = *c.p++;
	if (!at_field_end(&c))
		return -1;
	for (n = 1; n < 22; n++) {
		skip_blanks(&c);
		/* fields that may be negative: read signed, keep both forms */
		if (c.p < c.end && *c.p == '-') {
			if (read_i64(&c, &field[n]) < 0)
				return -1;
			ufield[n] = 0;
		} else {
			if (read_u64(&c, &ufield[n]) < 0)
				return -1;
			field[n] = ufield[n] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ufield[n];
		}
		if (!at_field_end(&c))
			return -1;
	}
	if (field[1] < 0 || field[1] > INT32_MAX)
		return -1;
	out->pid = (int32_t)pid;
	out->ppid = (int32_t)field[1];
	out->utime_ticks = ufield[11];
	out->stime_ticks = ufield[12];
	out->cutime_ticks = ufield[13];
	out->cstime_ticks = ufield[14];
	out->num_threads = field[17];
	out->starttime_ticks = ufield[19];
	out->rss_pages = field[21] < 0 ? 0 : ufield[21];
	if (field[11] < 0 || field[12] < 0 || field[19] < 0)
		return -1;
	return 0;
}

int pp_statm_resident(const char *buf, size_t len, uint64_t *pages)
{
	struct cur c = { buf, buf + len };
	uint64_t size;

	if (read_u64(&c, &size) < 0 || !at_field_end(&c))
		return -1;
	skip_blanks(&c);
	if (read_u64(&c, pages) < 0 || !at_field_end(&c))
		return -1;
	return 0;
}

int pp_pid_list(const char *buf, size_t len, int32_t *pids, size_t cap, size_t *nr, bool *more)
{
	struct cur c = { buf, buf + len };

	*nr = 0;
	*more = false;
	for (;;) {
		uint64_t v;

		skip_space(&c);
		if (c.p == c.end)
			return 0;
		if (read_u64(&c, &v) < 0 || !at_field_end(&c) || v == 0 || v > INT32_MAX)
			return -1;
		if (*nr < cap)
			pids[(*nr)++] = (int32_t)v;
		else
			*more = true;
	}
}

/* "total=N" among the fields of one PSI line */
static int psi_total(const char *p, const char *end, void *out)
{
	uint64_t *total = out;
	struct cur c = { p, end };
	bool found = false;

	for (;;) {
		const char *f;

		skip_space(&c);
		if (c.p == c.end)
			break;
		f = c.p;
		while (c.p < c.end && !is_space(*c.p))
			c.p++;
		if (c.p - f > 6 && !memcmp(f, "total=", 6)) {
			struct cur v = { f + 6, c.p };

			if (read_u64(&v, total) < 0 || v.p != c.p)
				return -1;
			found = true;
		} else if (!memchr(f, '=', (size_t)(c.p - f))) {
			return -1;
		}
	}
	return found ? 0 : -1;
}

/* The "some" and "full" lines of a PSI file, each parsed by field() into
 * some or full; nothing else is allowed, and at least one must be there. */
static int psi_lines(const char *buf, size_t len, int (*field)(const char *, const char *, void *),
		     void *some, void *full, bool *some_ok, bool *full_ok)
{
	const char *p = buf, *end = buf + len;

	*some_ok = *full_ok = false;
	while (p < end) {
		const char *le = line_end(p, end);
		size_t n = (size_t)(le - p);

		if (n >= 5 && !memcmp(p, "some ", 5)) {
			if (*some_ok || field(p + 5, le, some) < 0)
				return -1;
			*some_ok = true;
		} else if (n >= 5 && !memcmp(p, "full ", 5)) {
			if (*full_ok || field(p + 5, le, full) < 0)
				return -1;
			*full_ok = true;
		} else if (n) {
			return -1;
		}
		p = le < end ? le + 1 : end;
	}
	return *some_ok || *full_ok ? 0 : -1;
}

int pp_psi(const char *buf, size_t len, struct pp_psi *out)
{
	memset(out, 0, sizeof(*out));
	return psi_lines(buf, len, psi_total, &out->some_total_us, &out->full_total_us,
			 &out->some_ok, &out->full_ok);
}

int pp_keyed_u64(const char *buf, size_t len, const char *key, uint64_t *out)
{
	const char *p = buf, *end = buf + len;
	size_t klen = strlen(key);
	int rc = 1;

	while (p < end) {
		const char *le = line_end(p, end), *sp;
		struct cur c;
		uint64_t v;

		if (le == p) {
			p = le + 1;
			continue;
		}
		sp = memchr(p, ' ', (size_t)(le - p));
		if (!sp || sp == p)
			return -1;
		c.p = sp + 1;
		c.end = le;
		if (read_u64(&c, &v) < 0 || c.p != le)
			return -1;
		if ((size_t)(sp - p) == klen && !memcmp(p, key, klen)) {
			*out = v;
			rc = 0;
		}
		p = le < end ? le + 1 : end;
	}
	return rc;
}

int pp_u64_file(const char *buf, size_t len, uint64_t *out)
{
	struct cur c = { buf, buf + len };

	if (read_u64(&c, out) < 0)
		return -1;
	if (c.p < c.end && *c.p == '\n')
		c.p++;
	return c.p == c.end ? 0 : -1;
}

int pp_cgroup_v2_path(const char *buf, size_t len, char *out, size_t cap)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *le = line_end(p, end);
		size_t n = (size_t)(le - p);

		if (n >= 4 && !memcmp(p, "0::/", 4)) {
			if (n - 3 >= cap || memchr(p + 3, '\0', n - 3))
				return -1;
			memcpy(out, p + 3, n - 3);
			out[n - 3] = '\0';
			return 0;
		}
		p = le < end ? le + 1 : end;
	}
	return -1;
}

/* Copy a mountinfo field, decoding \ooo escapes. */
static int unescape_field(const char *p, const char *end, char *out, size_t cap)
{
	size_t n = 0;

	while (p < end) {
		char ch = *p++;

		if (ch == '\\' && end - p >= 3 && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
		    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			ch = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (ch == '\0' || n + 1 >= cap)
			return -1;
		out[n++] = ch;
	}
	out[n] = '\0';
	return n ? 0 : -1;
}

int pp_mountinfo_cgroup2(const char *buf, size_t len, char *out, size_t cap)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *le = line_end(p, end), *f[6], *dash;
		struct cur c = { p, le };
		int i;

		/* id parent major:minor root mount-point ... - fstype source opts */
		for (i = 0; i < 5; i++) {
			skip_blanks(&c);
			f[i] = c.p;
			while (c.p < c.end && !is_space(*c.p))
				c.p++;
		}
		f[5] = c.p;
		dash = NULL;
		for (const char *q = c.p; q + 2 < le; q++)
			if (q[0] == ' ' && q[1] == '-' && q[2] == ' ') {
				dash = q + 3;
				break;
			}
		if (dash && le - dash >= 8 && !memcmp(dash, "cgroup2 ", 8) && f[4] < f[5])
			return unescape_field(f[4], f[5], out, cap);
		p = le < end ? le + 1 : end;
	}
	return -1;
}

bool pp_ticks_to_ns(uint64_t ticks, uint64_t hz, uint64_t *ns)
{
	uint64_t whole, rem;

	if (!hz || hz > 1000000000u)
		return false;
	whole = ticks / hz;
	rem = ticks % hz;
	if (whole > UINT64_MAX / 1000000000u)
		return false;
	whole *= 1000000000u;
	rem = rem * 1000000000u / hz;	/* rem < hz <= 1e9: no overflow */
	if (whole > UINT64_MAX - rem)
		return false;
	*ns = whole + rem;
	return true;
}

int pp_meminfo_field(const char *buf, size_t len, const char *key, uint64_t *bytes)
{
	const char *p = buf, *end = buf + len;
	size_t kl = strlen(key);

	while (p < end) {
		const char *le = line_end(p, end);

		if ((size_t)(le - p) > kl && !memcmp(p, key, kl) && p[kl] == ':')
			return meminfo_value(p + kl + 1, le, bytes);
		p = le < end ? le + 1 : end;
	}
	return 1;
}

/* "12.34" (at most two decimals, as the kernel prints) -> hundredths */
static int read_hundredths(struct cur *c, uint64_t *out)
{
	uint64_t whole, frac = 0;
	int digits = 0;

	if (read_u64(c, &whole) < 0 || whole > 1000000)
		return -1;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 2) {
			frac = frac * 10 + (uint64_t)(*c->p - '0');
			c->p++;
			digits++;
		}
		if (!digits)
			return -1;
	}
	while (digits++ < 2)
		frac *= 10;
	*out = whole * 100 + frac;
	return 0;
}

/* "avg10=N.NN" among the fields of one PSI line */
static int psi_avg10(const char *p, const char *end, void *out)
{
	double *pct = out;
	struct cur c = { p, end };

	for (;;) {
		const char *f;

		skip_space(&c);
		if (c.p == c.end)
			return -1;
		f = c.p;
		while (c.p < c.end && !is_space(*c.p))
			c.p++;
		if (c.p - f > 6 && !memcmp(f, "avg10=", 6)) {
			struct cur v = { f + 6, c.p };
			uint64_t h;

			if (read_hundredths(&v, &h) < 0 || v.p != c.p || h > 10000)
				return -1;
			*pct = (double)h / 100;
			return 0;
		}
	}
}

int pp_psi_avg10(const char *buf, size_t len, struct pp_psi_avg *out)
{
	memset(out, 0, sizeof(*out));
	return psi_lines(buf, len, psi_avg10, &out->some_avg10, &out->full_avg10, &out->some_ok,
			 &out->full_ok);
}

int pp_loadavg1(const char *buf, size_t len, double *load1)
{
	struct cur c = { buf, buf + len };
	uint64_t h;

	if (read_hundredths(&c, &h) < 0 || !at_field_end(&c))
		return -1;
	*load1 = (double)h / 100;
	return 0;
}

int pp_cpulist(const char *buf, size_t len, unsigned char *set, size_t max_cpus, size_t *count)
{
	struct cur c = { buf, buf + len };

	memset(set, 0, (max_cpus + 7) / 8);
	*count = 0;
	skip_space(&c);
	while (c.p < c.end) {
		uint64_t lo, hi;

		if (read_u64(&c, &lo) < 0)
			return -1;
		hi = lo;
		if (c.p < c.end && *c.p == '-') {
			c.p++;
			if (read_u64(&c, &hi) < 0 || hi < lo)
				return -1;
		}
		if (hi >= max_cpus)
			return -1;
		for (uint64_t i = lo; i <= hi; i++) {
			if (!(set[i / 8] & (1u << (i % 8))))
				(*count)++;
			set[i / 8] |= (unsigned char)(1u << (i % 8));
		}
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			if (c.p == c.end || is_space(*c.p))
				return -1;
			continue;
		}
		skip_space(&c);
		if (c.p != c.end)
			return -1;
	}
	return 0;
}

int pp_bracketed(const char *buf, size_t len, char *out, size_t cap)
{
	const char *open = memchr(buf, '[', len), *close;
	size_t n;

	if (!open)
		return -1;
	close = memchr(open, ']', len - (size_t)(open - buf));
	if (!close)
		return -1;
	n = (size_t)(close - open - 1);
	if (!n || n >= cap)
		return -1;
	/* a choice is a word of printable ASCII: a NUL, a control byte or
	 * non-ASCII byte is no choice the kernel offers (a NUL would cut it) */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)open[1 + i];

		if (c <= ' ' || c >= 0x7f || c == '[')
			return -1;
	}
	memcpy(out, open + 1, n);
	out[n] = '\0';
	return 0;
}

int pp_cmdline_param(const char *buf, size_t len, const char *key, char *out, size_t cap)
{
	struct cur c = { buf, buf + len };
	size_t kl = strlen(key);
	int found = 1;

	for (;;) {
		const char *w;
		size_t n;

		skip_space(&c);
		if (c.p == c.end)
			return found;
		w = c.p;
		while (c.p < c.end && !is_space(*c.p) && *c.p != '\0')
			c.p++;
		n = (size_t)(c.p - w);
		if (c.p < c.end && *c.p == '\0')
			c.p++;
		if (n > kl && !memcmp(w, key, kl) && w[kl] == '=') {
			if (n - kl - 1 >= cap)
				return -1;
			memcpy(out, w + kl + 1, n - kl - 1);
			out[n - kl - 1] = '\0';
			found = 0;	/* the kernel honours the last one */
		} else if (n == 2 && !memcmp(w, "--", 2)) {
			return found;	/* what follows is init's */
		}
	}
}

/* Hexadecimal; at least one digit, no overflow. */
static int read_hex(struct cur *c, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = c->p;

	for (; c->p < c->end; c->p++) {
		char ch = *c->p;
		unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
			     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
			     : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10)
						      : 16;

		if (d == 16)
			break;
		if (v >> 60)
			return -1;
		v = v << 4 | d;
	}
	if (c->p == start)
		return -1;
	*out = v;
	return 0;
}

int pp_maps_line(const char *buf, size_t len, struct pp_map *out)
{
	struct cur c = { buf, line_end(buf, buf + len) };
	uint64_t skip;	/* the addresses and the offset */

	if (read_hex(&c, &skip) < 0 || c.p == c.end || *c.p++ != '-' || read_hex(&c, &skip) < 0 ||
	    !at_field_end(&c))
		return -1;
	skip_blanks(&c);
	while (c.p < c.end && !is_space(*c.p))
		c.p++;	/* perms */
	skip_blanks(&c);
	if (read_hex(&c, &skip) < 0 || !at_field_end(&c))
		return -1;
	skip_blanks(&c);
	if (read_hex(&c, &out->dev_major) < 0 || c.p == c.end || *c.p++ != ':' ||
	    read_hex(&c, &out->dev_minor) < 0 || !at_field_end(&c))
		return -1;
	skip_blanks(&c);
	if (read_u64(&c, &out->inode) < 0 || !at_field_end(&c))
		return -1;
	return 0;
}
