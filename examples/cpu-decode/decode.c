/* A small, real, decode-shaped CPU workload for fak's runnable example
 * (examples/cpu-decode/README.md). One C17 file, no dependencies.
 *
 *   decode --generate FILE        write the deterministic Q8 weights
 *   decode --weights FILE --reference FILE [--kernel scalar|blocked]
 *          [--no-row-check] [--prompt-tokens P] [--decode-tokens T]
 *          [--profile FILE]       one run: prefill P tokens, greedy-decode T
 *   decode --weights FILE --write-reference FILE [...]
 *   decode --weights FILE --roof  time read-only sweeps of the weights
 *
 * The model is synthetic (generated weights, not trained): a stack of
 * LAYERS square DIM x DIM matrices with a residual, a bounded activation and
 * RMS normalisation, a per-layer running state that carries context from
 * earlier positions (the "cache"), and an output matrix of VOCAB rows whose
 * rows double as token embeddings. All weights are Q8: blocks of 32 int8
 * values with one float scale per block. Every token multiplies every
 * weight once (about 288 MiB), so decode streams the whole file from memory
 * per token, as a real decoder does.
 *
 * Bit-identical kernels. A dot product is an exact integer sum within each
 * block, then a float accumulation across blocks in block order, each step
 * computed as acc + (weight scale * activation scale) * (float)block sum.
 * The scalar and the blocked kernel evaluate exactly that expression in
 * exactly that order, so their logits are equal bit for bit. This must be
 * compiled with -ffp-contract=off: otherwise the compiler may fuse the
 * multiply and add into one FMA (one rounding instead of two) in one kernel
 * and not in another, and the logits would differ in the last bit. */
#define _POSIX_C_SOURCE 200809L	/* mkstemp, lstat, fsync, open_memstream */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__SSE2__)
/* SSE2 is part of every x86-64 CPU (the envelope is linux/amd64), so the
 * blocked kernel needs no -m flag; the header is the documented interface
 * to those instructions in gcc and clang alike. */
#include <emmintrin.h>
#endif

/* Float arithmetic must be exactly IEEE single precision, with no wider
 * intermediate (x87) precision, or kernels could round differently. */
#if FLT_EVAL_METHOD != 0
#error "decode.c needs FLT_EVAL_METHOD == 0 (SSE, not x87, float arithmetic)"
#endif

#define DIM 2048
#define LAYERS 48
#define VOCAB 32768
#define QK 32			/* values per Q8 block */
#define NB (DIM / QK)		/* blocks per row */
#define SEED UINT64_C(0x6661b2e5c0dec0de)
#define VERSION 1
#define HEADER_BYTES 64
#define CHECK_EVERY 12		/* the paranoid re-check: 1 row in 12 */
#define MAX_TOKENS 4096

/* the envelope's P and T: one run takes about 0.9 s with the scalar kernel
 * and 0.45 s with the blocked one on the 2-core development VM */
#define DEFAULT_PROMPT 2
#define DEFAULT_DECODE 5

/* The file stores these as they are in memory (little-endian, checked). */
struct q8block {
	float d;
	int8_t q[QK];
};
_Static_assert(sizeof(struct q8block) == 4 + QK, "a Q8 block is 36 bytes, unpadded");

/* One matrix: rows x NB blocks, row-major. */
struct matrix {
	const struct q8block *w;
	size_t rows;
};

struct model {
	struct q8block *blocks;	/* owned: every weight, layers then output */
	struct matrix layer[LAYERS], out;
	size_t bytes;		/* size of the weights file */
	/* The weights file stays open while the model is in use, as an engine
	 * keeps its model mapped: fak bench experiment's sampler sees the
	 * pinned artifact in use (artifact_observed) only in a descriptor or
	 * a mapping of the command's processes, and a file read in 0.1 s and
	 * closed is gone before most censuses look. */
	int fd;
};

/* A quantised activation vector. */
struct q8act {
	int8_t q[DIM];
	float d[NB];
};

static const char *prog = "decode";
static const unsigned char magic[8] = "FAKQ8DEC";	/* no NUL: the file's first 8 bytes */
static char *pending_tmp;	/* a temporary file to remove if we die */

/* gcc and clang both read these attributes: -Wformat checks every call */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void complain(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void complain(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain(fmt, ap);
	va_end(ap);
	if (pending_tmp)
		unlink(pending_tmp);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* Zeroed: the analyzer cannot see a kernel (called through a pointer)
 * fill its output. */
static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static size_t total_rows(void)
{
	return (size_t)LAYERS * DIM + VOCAB;
}

static size_t weights_bytes(void)
{
	return HEADER_BYTES + total_rows() * NB * sizeof(struct q8block);
}

/* ---- generation ----------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void make_header(unsigned char h[HEADER_BYTES])
{
	memset(h, 0, HEADER_BYTES);
	memcpy(h, magic, sizeof(magic));
	put_u32(h + 8, VERSION);
	put_u32(h + 12, DIM);
	put_u32(h + 16, LAYERS);
	put_u32(h + 20, VOCAB);
	put_u32(h + 24, QK);
	put_u64(h + 32, SEED);
}

/* The file is little-endian (float scales included); refuse other hosts
 * rather than read them wrong. */
static void require_little_endian(void)
{
	const uint32_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	if (b != 1)
		die("this workload needs a little-endian host");
}

static void write_all(int fd, const void *buf, size_t n, const char *path)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("cannot write '%s': %s", path, w < 0 ? strerror(errno) : "short write");
		p += w;
		n -= (size_t)w;
	}
}

/* A temporary file next to path: "<folder>/.decode-XXXXXX". */
static int temp_next_to(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	int fd;

	*tmp = xmalloc(dir + 16);
	memcpy(*tmp, path, dir);
	memcpy(*tmp + dir, ".decode-XXXXXX", 15);
	fd = mkstemp(*tmp);
	if (fd < 0)
		die("cannot create a temporary file next to '%s': %s", path, strerror(errno));
	pending_tmp = *tmp;
	return fd;
}

/* An output path must not exist (weights) or must be a regular file that
 * is replaced atomically (profile, reference). */
static void check_output(const char *path, bool may_replace)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			die("cannot use '%s': %s", path, strerror(errno));
		return;
	}
	if (!may_replace)
		die("'%s' already exists; remove it first", path);
	if (!S_ISREG(st.st_mode))
		die("'%s' exists and is not a regular file", path);
}

static void commit_temp(int fd, char *tmp, const char *path)
{
	if (fsync(fd) < 0 || close(fd) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
	if (rename(tmp, path) < 0)
		die("cannot rename to '%s': %s", path, strerror(errno));
	pending_tmp = NULL;
	free(tmp);
}

/* A text being built for write_text. */
struct text {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *text_open(struct text *t)
{
	t->f = open_memstream(&t->buf, &t->len);
	if (!t->f)
		die("out of memory");
	return t->f;
}

/* Replaces path (absent or a regular file) with the text, atomically. */
static void write_text(const char *path, struct text *t)
{
	char *tmp;
	int fd;

	if (fclose(t->f))
		die("out of memory");
	check_output(path, true);
	fd = temp_next_to(path, &tmp);
	write_all(fd, t->buf, t->len, path);
	commit_temp(fd, tmp, path);
	free(t->buf);
}

/* Weights uniform in [-a, a] with a = sqrt(3/DIM) (variance 1/DIM, so a
 * normalised vector keeps its scale through a layer), scales varying per
 * block by a factor 0.5..1.5. */
static void generate(const char *path)
{
	unsigned char header[HEADER_BYTES];
	const size_t chunk_rows = 256;
	struct q8block *buf = xmalloc(chunk_rows * NB * sizeof(*buf));
	const float a = sqrtf(3.0f / DIM);
	uint64_t s = SEED;
	char *tmp;
	int fd;

	check_output(path, false);
	fd = temp_next_to(path, &tmp);
	make_header(header);
	write_all(fd, header, sizeof(header), path);
	for (size_t r = 0; r < total_rows(); r += chunk_rows) {
		for (size_t b = 0; b < chunk_rows * NB; b++) {
			uint64_t x = splitmix64(&s);

			buf[b].d = a / 127.0f * (0.5f + (float)(x >> 40) / 16777216.0f);
			for (int i = 0; i < QK; i += 4) {
				x = splitmix64(&s);
				for (int k = 0; k < 4; k++)
					buf[b].q[i + k] =
						(int8_t)((int)((x >> (16 * k)) % 255) - 127);
			}
		}
		write_all(fd, buf, chunk_rows * NB * sizeof(*buf), path);
	}
	commit_temp(fd, tmp, path);
	free(buf);
}

/* ---- loading -------------------------------------------------------------- */

static void read_all(int fd, void *buf, size_t n, const char *path)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("cannot read '%s': %s", path,
			    r < 0 ? strerror(errno) : "file is shorter than its header says");
		p += r;
		n -= (size_t)r;
	}
}

static void load(struct model *m, const char *path)
{
	unsigned char header[HEADER_BYTES], want[HEADER_BYTES];
	struct stat st;
	size_t nblocks = total_rows() * NB;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		die("cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die("'%s' is not a regular file", path);
	read_all(fd, header, sizeof(header), path);
	make_header(want);
	if (memcmp(header, magic, sizeof(magic)))
		die("'%s' is not a weights file of this workload (bad magic)", path);
	if (memcmp(header, want, sizeof(want)))
		die("'%s' was made for another model: version %" PRIu32 ", dim %" PRIu32
		    ", layers %" PRIu32 ", vocab %" PRIu32 ", seed 0x%016" PRIx64
		    "; want version %d, "
		    "dim %d, layers %d, vocab %d, seed 0x%016" PRIx64,
		    path, get_u32(header + 8), get_u32(header + 12), get_u32(header + 16),
		    get_u32(header + 20), get_u64(header + 32), VERSION, DIM, LAYERS, VOCAB, SEED);
	if ((uintmax_t)st.st_size != weights_bytes())
		die("'%s' has %jd bytes; the model needs %zu", path, (intmax_t)st.st_size,
		    weights_bytes());
	m->blocks = xmalloc(nblocks * sizeof(*m->blocks));
	read_all(fd, m->blocks, nblocks * sizeof(*m->blocks), path);
	m->fd = fd;
	for (size_t l = 0; l < LAYERS; l++)
		m->layer[l] = (struct matrix){ m->blocks + l * DIM * NB, DIM };
	m->out = (struct matrix){ m->blocks + (size_t)LAYERS * DIM * NB, VOCAB };
	m->bytes = weights_bytes();
}

/* ---- kernels -------------------------------------------------------------- */

/* y[v * rows + r] = row r of w . x[v], for rows r0 <= r < r1 (multiples
 * of 4) and v < n. */
typedef void (*matmul_fn)(const struct matrix *w, size_t r0, size_t r1, const struct q8act *x,
			  size_t n, float *y);
/* One row: the same value the kernel's matmul computes for it. */
typedef float (*dot_fn)(const struct q8block *row, const struct q8act *x);

/* The baseline: one row at a time, one block at a time. */
static float dot_scalar(const struct q8block *row, const struct q8act *x)
{
	float acc = 0.0f;

	for (size_t b = 0; b < NB; b++) {
		const int8_t *xq = x->q + b * QK;
		int32_t isum = 0;

		for (int i = 0; i < QK; i++)
			isum += (int32_t)row[b].q[i] * (int32_t)xq[i];
		acc += (row[b].d * x->d[b]) * (float)isum;
	}
	return acc;
}

static void matmul_scalar(const struct matrix *w, size_t r0, size_t r1, const struct q8act *x,
			  size_t n, float *y)
{
	for (size_t r = r0; r < r1; r++)
		for (size_t v = 0; v < n; v++)
			y[v * w->rows + r] = dot_scalar(w->w + r * NB, &x[v]);
}

#if defined(__SSE2__)
/* Sign-extend 16 int8 values into two vectors of 8 int16. */
static void widen(__m128i v, __m128i *lo, __m128i *hi)
{
	*lo = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
	*hi = _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
}

static void widen_block(const int8_t *q, __m128i out[4])
{
	widen(_mm_loadu_si128((const __m128i *)(const void *)q), &out[0], &out[1]);
	widen(_mm_loadu_si128((const __m128i *)(const void *)(q + 16)), &out[2], &out[3]);
}

/* Four int32 partial sums of one block's 32 products. */
static __m128i block_products(const int8_t *q, const __m128i x[4])
{
	__m128i w[4];

	widen_block(q, w);
	return _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(w[0], x[0]), _mm_madd_epi16(w[1], x[1])),
			     _mm_add_epi32(_mm_madd_epi16(w[2], x[2]), _mm_madd_epi16(w[3], x[3])));
}

/* The candidate: four rows at a time share each activation block; the
 * 32 products of a block are summed exactly with pmaddwd, the four rows'
 * block sums are reduced together, and the four accumulators advance in
 * one float vector, lane k computing exactly what dot_scalar computes for
 * row k. */
/* A scale as a TF32 tensor core reads it: the float's mantissa rounded to its
 * upper 10 bits (to nearest, ties to even). Scales are finite and positive. */
static float tf32(float d)
{
	uint32_t u;

	memcpy(&u, &d, sizeof(u));
	u += 0xfffu + ((u >> 13) & 1u);
	u &= ~0x1fffu;
	memcpy(&d, &u, sizeof(d));
	return d;
}

/* The blocked kernel, with the block scales at full precision or (tf32,
 * the reduced-precision variant) rounded to TF32 before use: it rounds
 * differently from the scalar kernel, so its logits are no longer
 * bit-identical (--numerical measures how far they move). */
static void dot4_sse2_scaled(const struct q8block *rows, const struct q8act *x, bool round,
			     float out[4])
{
	__m128 acc = _mm_setzero_ps();

	for (size_t b = 0; b < NB; b++) {
		const struct q8block *r0 = rows + b, *r1 = r0 + NB, *r2 = r1 + NB, *r3 = r2 + NB;
		__m128i xv[4], s0, s1, s2, s3, t0, t1, t2, t3, u0, u1, isum;
		__m128 scale;

		widen_block(x->q + b * QK, xv);
		s0 = block_products(r0->q, xv);
		s1 = block_products(r1->q, xv);
		s2 = block_products(r2->q, xv);
		s3 = block_products(r3->q, xv);
		/* transpose-add: lane k of isum is the whole sum of row k */
		t0 = _mm_unpacklo_epi32(s0, s1);
		t1 = _mm_unpackhi_epi32(s0, s1);
		t2 = _mm_unpacklo_epi32(s2, s3);
		t3 = _mm_unpackhi_epi32(s2, s3);
		u0 = _mm_add_epi32(t0, t1);
		u1 = _mm_add_epi32(t2, t3);
		isum = _mm_add_epi32(_mm_unpacklo_epi64(u0, u1), _mm_unpackhi_epi64(u0, u1));
		if (round)
			scale = _mm_mul_ps(_mm_setr_ps(tf32(r0->d), tf32(r1->d), tf32(r2->d),
						       tf32(r3->d)),
					   _mm_set1_ps(tf32(x->d[b])));
		else
			scale = _mm_mul_ps(_mm_setr_ps(r0->d, r1->d, r2->d, r3->d),
					   _mm_set1_ps(x->d[b]));
		acc = _mm_add_ps(acc, _mm_mul_ps(scale, _mm_cvtepi32_ps(isum)));
	}
	_mm_storeu_ps(out, acc);
}

static void matmul_scaled(const struct matrix *w, size_t r0, size_t r1, const struct q8act *x,
			  size_t n, bool round, float *y)
{
	for (size_t r = r0; r < r1; r += 4)
		for (size_t v = 0; v < n; v++) {
			float o[4];

			dot4_sse2_scaled(w->w + r * NB, &x[v], round, o);
			memcpy(&y[v * w->rows + r], o, sizeof(o));
		}
}

/* One row through the same per-lane arithmetic. */
static float dot_scaled(const struct q8block *row, const struct q8act *x, bool round)
{
	float acc = 0.0f;

	for (size_t b = 0; b < NB; b++) {
		__m128i xv[4], s;

		widen_block(x->q + b * QK, xv);
		s = block_products(row[b].q, xv);
		s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
		s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
		acc += (round ? tf32(row[b].d) * tf32(x->d[b]) : row[b].d * x->d[b]) *
		       (float)_mm_cvtsi128_si32(s);
	}
	return acc;
}

static void matmul_blocked(const struct matrix *w, size_t r0, size_t r1, const struct q8act *x,
			   size_t n, float *y)
{
	matmul_scaled(w, r0, r1, x, n, false, y);
}

static float dot_blocked(const struct q8block *row, const struct q8act *x)
{
	return dot_scaled(row, x, false);
}

static void matmul_blocked_tf32(const struct matrix *w, size_t r0, size_t r1,
				const struct q8act *x, size_t n, float *y)
{
	matmul_scaled(w, r0, r1, x, n, true, y);
}

static float dot_blocked_tf32(const struct q8block *row, const struct q8act *x)
{
	return dot_scaled(row, x, true);
}
#endif

struct kernel {
	const char *name;
	matmul_fn matmul;
	dot_fn dot;
};

static const struct kernel kernels[] = {
	{ "scalar", matmul_scalar, dot_scalar },
#if defined(__SSE2__)
	{ "blocked", matmul_blocked, dot_blocked },
#endif
};

#if defined(__SSE2__)
/* --tf32-head: the output product (the logits) in reduced precision */
static const struct kernel head_tf32 = { "blocked-tf32", matmul_blocked_tf32, dot_blocked_tf32 };
#endif

/* ---- the model ------------------------------------------------------------ */

struct run {
	const struct model *m;
	const struct kernel *k;
	const struct kernel *head;	/* the output product's: k, or --tf32-head's */
	bool row_check;
	float state[LAYERS][DIM];	/* per-layer running context */
	uint64_t digest;		/* FNV-1a over the bits of every logit */
};

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Rows per call of a kernel: a multiple of 4 and of CHECK_EVERY, small
 * enough that the rows just computed are still in the L2 cache when they
 * are checked. DIM and VOCAB are multiples of 4, so the last chunk is too. */
#define CHUNK_ROWS 96
_Static_assert(CHUNK_ROWS % CHECK_EVERY == 0 && CHUNK_ROWS % 4 == 0 && DIM % 4 == 0 &&
		       VOCAB % 4 == 0 && DIM % QK == 0,
	       "kernel chunks must hold whole 4-row groups and start on checked rows");

/* y = w . x for n vectors. With the row check (the baseline's paranoia),
 * 1 row in CHECK_EVERY is computed again, right after its chunk while its
 * weights are still cached, and must agree bit for bit: about 8% more
 * arithmetic and no more memory traffic. */
static void product(const struct run *run, const struct kernel *k, const struct matrix *w,
		    const struct q8act *x, size_t n, float *y)
{
	for (size_t r0 = 0; r0 < w->rows; r0 += CHUNK_ROWS) {
		size_t r1 = r0 + CHUNK_ROWS < w->rows ? r0 + CHUNK_ROWS : w->rows;

		k->matmul(w, r0, r1, x, n, y);
		if (!run->row_check)
			continue;
		for (size_t r = r0; r < r1; r += CHECK_EVERY)
			for (size_t v = 0; v < n; v++) {
				float again = k->dot(w->w + r * NB, &x[v]);

				if (float_bits(again) != float_bits(y[v * w->rows + r]))
					die("row re-check failed: row %zu of a product differs "
					    "between two evaluations (%.9g, %.9g)",
					    r, (double)again, (double)y[v * w->rows + r]);
			}
	}
}

static void quantize(const float *x, struct q8act *out)
{
	for (size_t b = 0; b < NB; b++) {
		float amax = 0.0f, d, id;

		for (int i = 0; i < QK; i++)
			amax = fmaxf(amax, fabsf(x[b * QK + i]));
		d = amax / 127.0f;
		id = d > 0.0f ? 1.0f / d : 0.0f;
		out->d[b] = d;
		for (int i = 0; i < QK; i++)
			out->q[b * QK + i] = (int8_t)lrintf(x[b * QK + i] * id);
	}
}

static void rms_normalize(float *h)
{
	float ss = 0.0f, r;

	for (size_t i = 0; i < DIM; i++)
		ss += h[i] * h[i];
	r = 1.0f / sqrtf(ss / DIM + 1e-6f);
	for (size_t i = 0; i < DIM; i++)
		h[i] *= r;
}

/* The embedding of a token is a row of the output matrix (tied weights),
 * taken through a fixed permutation of the ids (40503 is odd, VOCAB a power
 * of two) so that a token does not simply predict itself again. */
static void embed(const struct model *m, int token, float *h)
{
	const struct q8block *row = m->out.w + ((size_t)token * 40503 + 1) % VOCAB * NB;

	for (size_t b = 0; b < NB; b++)
		for (int i = 0; i < QK; i++)
			h[b * QK + i] = row[b].d * (float)row[b].q[i];
	rms_normalize(h);
}

/* Runs n positions (a prompt, or one decoded token) through every layer;
 * h holds n hidden vectors in and out. */
static void layers(struct run *run, float *h, size_t n, struct q8act *xq, float *y)
{
	for (size_t l = 0; l < LAYERS; l++) {
		float *s = run->state[l];

		for (size_t t = 0; t < n; t++) {
			float mixed[DIM];

			for (size_t i = 0; i < DIM; i++) {
				mixed[i] = h[t * DIM + i] + 0.5f * s[i];
				s[i] = 0.75f * s[i] + 0.25f * h[t * DIM + i];
			}
			quantize(mixed, &xq[t]);
		}
		product(run, run->k, &run->m->layer[l], xq, n, y);
		for (size_t t = 0; t < n; t++) {
			for (size_t i = 0; i < DIM; i++) {
				float v = y[t * DIM + i];

				h[t * DIM + i] += v / (1.0f + fabsf(v));
			}
			rms_normalize(&h[t * DIM]);
		}
	}
}

/* Greedy: the highest logit, the lowest id on ties. */
static int next_token(struct run *run, const float *h, struct q8act *xq, float *logits)
{
	int best = 0;

	quantize(h, xq);
	product(run, run->head, &run->m->out, xq, 1, logits);
	for (int i = 0; i < VOCAB; i++) {
		uint32_t bits = float_bits(logits[i]);

		for (int k = 0; k < 4; k++) {
			run->digest ^= (bits >> (8 * k)) & 0xff;
			run->digest *= UINT64_C(0x100000001b3);
		}
		if (logits[i] > logits[best])
			best = i;
	}
	return best;
}

static int prompt_token(size_t i)
{
	return (int)((i * 7919 + 104729) % VOCAB);
}

/* ---- reference file --------------------------------------------------------- */

#define REFERENCE_SCHEMA "fak-example-cpu-decode-reference/v1"

static void reference_header(char *buf, size_t len, size_t p, size_t t)
{
	snprintf(buf, len,
		 REFERENCE_SCHEMA "\nmodel dim=%d layers=%d vocab=%d seed=0x%016" PRIx64
				  "\nprompt_tokens %zu\ndecode_tokens %zu\n",
		 DIM, LAYERS, VOCAB, SEED, p, t);
}

static void write_reference(const char *path, size_t p, size_t t, const int *tokens)
{
	char head[256];
	struct text txt;
	FILE *f = text_open(&txt);

	reference_header(head, sizeof(head), p, t);
	fputs(head, f);
	fputs("tokens", f);
	for (size_t i = 0; i < t; i++)
		fprintf(f, " %d", tokens[i]);
	fputc('\n', f);
	write_text(path, &txt);
}

/* Reads the reference tokens; refuses a file made for another model or
 * another P/T. */
static void read_reference(const char *path, size_t p, size_t t, int *tokens)
{
	char head[256], buf[65536];
	size_t n, hl;
	FILE *f = fopen(path, "r");
	char *s, *end;

	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f) || !feof(f))
		die("cannot read '%s': %s", path,
		    ferror(f) ? strerror(errno) : "larger than 64 KiB");
	fclose(f);
	buf[n] = '\0';
	reference_header(head, sizeof(head), p, t);
	hl = strlen(head);
	if (strncmp(buf, REFERENCE_SCHEMA "\n", strlen(REFERENCE_SCHEMA) + 1))
		die("'%s' is not a %s file", path, REFERENCE_SCHEMA);
	if (strncmp(buf, head, hl))
		die("'%s' was made for another model or another prompt/decode length; this run "
		    "wants:\n%s", path, head);
	s = buf + hl;
	if (strncmp(s, "tokens", 6))
		die("'%s': no tokens line", path);
	s += 6;
	for (size_t i = 0; i < t; i++) {
		long v;

		if (*s != ' ')
			die("'%s': expected %zu tokens", path, t);
		errno = 0;
		v = strtol(s + 1, &end, 10);
		if (end == s + 1 || errno || v < 0 || v >= VOCAB)
			die("'%s': token %zu is not an id below %d", path, i, VOCAB);
		tokens[i] = (int)v;
		s = end;
	}
	if (strcmp(s, "\n"))
		die("'%s': expected exactly %zu tokens and a newline", path, t);
}

/* ---- the run ------------------------------------------------------------------ */

enum phase { LOAD, PREFILL, FIRST, DECODE, VERIFY, TEARDOWN, NR_PHASES };
static const char *const phase_names[NR_PHASES] = {
	"load-setup", "prefill", "first-token", "steady-decode", "verification", "teardown",
};

struct options {
	const char *weights, *reference, *write_ref, *profile, *generate;
	const char *engine;	/* the engine the metrics line states: fak-native */
	const struct kernel *kernel, *head;
	bool row_check, roof, numerical;
	size_t prompt, decode;
};

static void write_profile(const struct options *o, const double start[NR_PHASES],
			  const double dur[NR_PHASES], size_t bytes)
{
	struct text txt;
	FILE *f = text_open(&txt);

	fprintf(f, "{\n  \"schema\": \"fak-example-cpu-decode-profile/v1\",\n");
	fprintf(f, "  \"kernel\": \"%s\",\n  \"row_check\": %s,\n", o->kernel->name,
		o->row_check ? "true" : "false");
	fprintf(f, "  \"prompt_tokens\": %zu,\n  \"decode_tokens\": %zu,\n", o->prompt, o->decode);
	fprintf(f, "  \"weights_bytes\": %zu,\n  \"phases\": [\n", bytes);
	for (int i = 0; i < NR_PHASES; i++)
		fprintf(f, "    {\"name\": \"%s\", \"start_milliseconds\": %.3f, "
			   "\"duration_milliseconds\": %.3f}%s\n",
			phase_names[i], start[i], dur[i], i + 1 < NR_PHASES ? "," : "");
	fprintf(f, "  ]\n}\n");
	write_text(o->profile, &txt);
}

/* How far this run's logits are from the reference kernel's (--numerical):
 * the lowest cosine similarity of a step's logits, the fraction of steps whose
 * argmax agrees, the largest absolute difference of any logit. */
struct numerical {
	double cosine, argmax_match, max_abs;
};

/* Runs the same steps again with the scalar kernel, the reference (no row
 * check), teacher-forced on this run's tokens, and compares each step's
 * logits with got[step * VOCAB ...]. Not timed: after the measured phases. */
static void numerical_check(const struct model *m, const struct options *o, const int *tokens,
			    const float *got, struct numerical *out)
{
	static struct run ref;	/* as run_decode's: not on the stack */
	size_t p = o->prompt, t = o->decode, agree = 0;
	float *h = xmalloc(p * DIM * sizeof(*h)), *y = xcalloc(p * DIM, sizeof(*y));
	float *logits = xcalloc(VOCAB, sizeof(*logits));
	struct q8act *xq = xmalloc(p * sizeof(*xq));

	ref = (struct run){ .m = m, .k = &kernels[0], .head = &kernels[0], .row_check = false };
	*out = (struct numerical){ .cosine = 1 };
	for (size_t i = 0; i < t; i++) {
		const float *g = got + i * VOCAB;
		double dot = 0, nr = 0, ng = 0, c;
		int best;

		if (!i) {
			for (size_t k = 0; k < p; k++)
				embed(m, prompt_token(k), &h[k * DIM]);
			layers(&ref, h, p, xq, y);
			best = next_token(&ref, &h[(p - 1) * DIM], xq, logits);
		} else {
			embed(m, tokens[i - 1], h);
			layers(&ref, h, 1, xq, y);
			best = next_token(&ref, h, xq, logits);
		}
		agree += best == tokens[i];
		for (size_t v = 0; v < VOCAB; v++) {
			double d = fabs((double)logits[v] - (double)g[v]);

			dot += (double)logits[v] * g[v];
			nr += (double)logits[v] * logits[v];
			ng += (double)g[v] * g[v];
			if (d > out->max_abs)
				out->max_abs = d;
		}
		c = nr > 0 && ng > 0 ? dot / sqrt(nr * ng) : (nr == ng ? 1 : 0);
		if (c < out->cosine)
			out->cosine = c;
	}
	out->argmax_match = (double)agree / (double)t;
	free(h);
	free(y);
	free(logits);
	free(xq);
}

static void run_decode(const struct options *o)
{
	static struct run run;	/* 384 KiB of state: not on the stack */
	struct model m;
	double t0 = now_ms(), mark, start[NR_PHASES], dur[NR_PHASES];
	size_t p = o->prompt, t = o->decode, matched = 0;
	float *h = xmalloc(p * DIM * sizeof(*h)), *y = xcalloc(p * DIM, sizeof(*y));
	float *logits = xcalloc(VOCAB, sizeof(*logits));
	struct q8act *xq = xmalloc(p * sizeof(*xq));
	int *tokens = xmalloc(t * sizeof(*tokens)), *want = xmalloc(t * sizeof(*want));
	/* --numerical: every step's logits, kept for the comparison */
	float *kept = o->numerical ? xmalloc(t * VOCAB * sizeof(*kept)) : NULL;
	struct numerical num = { 0 };
	char numtext[160] = "";

	if (o->profile)
		check_output(o->profile, true);
	if (o->write_ref)
		check_output(o->write_ref, true);
	else
		read_reference(o->reference, p, t, want);
	load(&m, o->weights);
	run = (struct run){ .m = &m, .k = o->kernel, .head = o->head, .row_check = o->row_check,
			    .digest = UINT64_C(0xcbf29ce484222325) };
	start[LOAD] = 0;
	dur[LOAD] = (mark = now_ms()) - t0;

	/* prefill: the prompt in one batch, then the first token */
	start[PREFILL] = mark - t0;
	for (size_t i = 0; i < p; i++)
		embed(&m, prompt_token(i), &h[i * DIM]);
	layers(&run, h, p, xq, y);
	dur[PREFILL] = now_ms() - t0 - start[PREFILL];
	start[FIRST] = start[PREFILL] + dur[PREFILL];
	tokens[0] = next_token(&run, &h[(p - 1) * DIM], xq, logits);
	if (kept)
		memcpy(kept, logits, VOCAB * sizeof(*kept));
	dur[FIRST] = (mark = now_ms()) - t0 - start[FIRST];

	/* decode: each token in turn */
	start[DECODE] = mark - t0;
	for (size_t i = 1; i < t; i++) {
		embed(&m, tokens[i - 1], h);
		layers(&run, h, 1, xq, y);
		tokens[i] = next_token(&run, h, xq, logits);
		if (kept)
			memcpy(kept + i * VOCAB, logits, VOCAB * sizeof(*kept));
	}
	dur[DECODE] = (mark = now_ms()) - t0 - start[DECODE];
	if (!(dur[DECODE] > 0))
		die("the decode phase took no measurable time");

	start[VERIFY] = mark - t0;
	if (o->write_ref) {
		write_reference(o->write_ref, p, t, tokens);
		matched = t;
	} else {
		for (size_t i = 0; i < t; i++)
			matched += tokens[i] == want[i];
	}
	dur[VERIFY] = (mark = now_ms()) - t0 - start[VERIFY];
	if (kept) {
		numerical_check(&m, o, tokens, kept, &num);
		snprintf(numtext, sizeof(numtext),
			 ", \"numerical\": {\"cosine\": %.17g, \"argmax_match\": %.17g, "
			 "\"max_abs\": %.9g}",
			 num.cosine, num.argmax_match, num.max_abs);
		mark = now_ms();
	}

	start[TEARDOWN] = mark - t0;
	free(m.blocks);
	close(m.fd);
	dur[TEARDOWN] = now_ms() - t0 - start[TEARDOWN];

	printf("kernel: %s, row check: %s, P=%zu, T=%zu\n", o->kernel->name,
	       o->row_check ? "on" : "off", p, t);
	printf("tokens:");
	for (size_t i = 0; i < t; i++)
		printf(" %d", tokens[i]);
	printf("\nlogits: fnv1a64:%016" PRIx64 "\n", run.digest);
	/* the metrics line: the last line of stdout, read by fak bench experiment */
	printf("{\"tokens_per_second\": %.3f, \"end_to_end_milliseconds\": %.3f, "
	       "\"ttft_milliseconds\": %.3f, \"prefill_milliseconds\": %.3f, "
	       "\"decode_milliseconds\": %.3f, \"quality\": {\"name\": \"exact_match\", "
	       "\"score\": %.17g, \"higher_is_better\": true}%s, \"engine\": \"%s\", "
	       "\"forward_path\": \"cpu/q8-matvec-v1\"}\n",
	       (double)(t - 1) / (dur[DECODE] / 1e3), dur[PREFILL] + dur[FIRST] + dur[DECODE],
	       dur[PREFILL] + dur[FIRST], dur[PREFILL], dur[DECODE], (double)matched / (double)t,
	       numtext, o->engine);
	if (o->profile)
		write_profile(o, start, dur, m.bytes);
	free(h);
	free(y);
	free(logits);
	free(xq);
	free(tokens);
	free(want);
	free(kept);
}

/* Read-only sweeps of the weights: the memory-read roof of a token. */
static void run_roof(const struct options *o)
{
	struct model m;
	const unsigned char *w;
	size_t n, passes = 10;
	uint64_t sum = 0;
	double t0, ms;

	load(&m, o->weights);
	w = (const unsigned char *)m.blocks;
	n = m.bytes - HEADER_BYTES;
	t0 = now_ms();
	for (size_t k = 0; k < passes; k++)
		for (size_t i = 0; i + 32 <= n; i += 32) {
			uint64_t v[4];

			memcpy(v, w + i, sizeof(v));
			sum += v[0] ^ v[1] ^ v[2] ^ v[3];
		}
	ms = (now_ms() - t0) / (double)passes;
	printf("read %zu bytes per token in %.3f ms: %.2f GB/s, roof %.2f tok/s (checksum "
	       "%016" PRIx64 ")\n",
	       n, ms, (double)n / ms / 1e6, 1e3 / ms, sum);
	free(m.blocks);
	close(m.fd);
}

/* ---- options ---------------------------------------------------------------- */

static void usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void print_usage(FILE *f)
{
	fprintf(f, "usage: decode --generate FILE\n"
		   "       decode --weights FILE (--reference FILE | --write-reference FILE)\n"
		   "              [--kernel scalar|blocked] [--no-row-check] [--tf32-head]\n"
		   "              [--numerical] [--engine NAME]\n"
		   "              [--prompt-tokens P] [--decode-tokens T] [--profile FILE]\n"
		   "       decode --weights FILE --roof\n"
		   "       decode --help\n");
}

static void usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain(fmt, ap);
	va_end(ap);
	print_usage(stderr);
	exit(2);
}

static size_t count(const char *name, const char *v, size_t min)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || v[0] == '-' || n < min || n > MAX_TOKENS)
		usage("%s: want an integer in range", name);
	return (size_t)n;
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .kernel = &kernels[0], .row_check = true, .prompt = DEFAULT_PROMPT,
			       .decode = DEFAULT_DECODE };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **s = NULL;

		if (!strcmp(a, "--no-row-check")) {
			o->row_check = false;
			continue;
		}
		if (!strcmp(a, "--tf32-head")) {
#if defined(__SSE2__)
			o->head = &head_tf32;
			continue;
#else
			usage("--tf32-head needs SSE2 (x86-64)");
#endif
		}
		if (!strcmp(a, "--numerical")) {
			o->numerical = true;
			continue;
		}
		if (!strcmp(a, "--roof")) {
			o->roof = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_usage(stdout);
			exit(0);
		}
		if (!v)
			usage("%s needs a value", a);
		i++;
		if (!strcmp(a, "--weights"))
			s = &o->weights;
		else if (!strcmp(a, "--reference"))
			s = &o->reference;
		else if (!strcmp(a, "--write-reference"))
			s = &o->write_ref;
		else if (!strcmp(a, "--profile"))
			s = &o->profile;
		else if (!strcmp(a, "--generate"))
			s = &o->generate;
		else if (!strcmp(a, "--engine"))
			s = &o->engine;
		else if (!strcmp(a, "--prompt-tokens"))
			o->prompt = count(a, v, 1);
		else if (!strcmp(a, "--decode-tokens"))
			o->decode = count(a, v, 2);
		else if (!strcmp(a, "--kernel")) {
			size_t k, nk = sizeof(kernels) / sizeof(kernels[0]);

			for (k = 0; k < nk && strcmp(kernels[k].name, v); k++)
				;
			if (k == nk && !strcmp(v, "blocked"))
				usage("kernel '%s' needs SSE2 (x86-64)", v);
			if (k == nk)
				usage("unknown kernel '%s'", v);
			o->kernel = &kernels[k];
		} else {
			usage("unknown option '%s'", a);
		}
		if (s && !*v)
			usage("%s needs a non-empty value", a);
		if (s && *s)
			usage("%s is given twice", a);
		if (s)
			*s = v;
	}
	if (!o->head)
		o->head = o->kernel;
	if (!o->engine)
		o->engine = "fak-native";
	for (const char *c = o->engine; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._+-", *c)))
			usage("--engine: lowercase letters, digits, '.', '_', '+' and '-' only");
	if (o->generate) {
		if (argc != 3)
			usage("--generate takes no other option");
	} else if (!o->weights) {
		usage("--weights FILE is required");
	} else if (o->roof) {
		if (argc != 4)
			usage("--roof takes only --weights");
	} else if (!o->reference == !o->write_ref) {
		usage("give exactly one of --reference and --write-reference");
	}
}

int main(int argc, char **argv)
{
	struct options o;

	require_little_endian();
	parse(argc, argv, &o);
	if (o.generate)
		generate(o.generate);
	else if (o.roof)
		run_roof(&o);
	else
		run_decode(&o);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write standard output");
	return 0;
}
