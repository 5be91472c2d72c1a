/* gguf_gen: writes the example's model, a small llama-architecture GGUF
 * file (version 3) with F32 weights drawn from a fixed seed, so the file is
 * the same bytes on every machine and llama-quantize turns it into the
 * same Q4_K_M file. No third-party code: the layout is GGUF's, as
 * llama.cpp's docs/gguf.md (in the bundled source) describes it.
 *
 *   gguf_gen OUT.gguf
 *
 * The model: 512-wide, 8 layers, 8 heads of 64, feed-forward 1536, a
 * 512-token vocabulary (3 control tokens, the 256 byte tokens, 253 more),
 * context 2048. Weights are uniform in [-a, a] from splitmix64 of the
 * tensor's index and the element's, a = sqrt(3 / fan_in) (unit variance
 * through each product); the output projection is 4x that, so the logits
 * are far apart and greedy decoding is stable under small numeric changes;
 * norms are 1. About 111 MB. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_EMBD 512
#define N_LAYER 8
#define N_HEAD 8
#define N_FF 1536
#define N_VOCAB 512
#define N_CTX 2048
#define ALIGN 32
#define SEED 0x66616b2d6c6c616dULL	/* "fak-llam" */

enum { T_U32 = 4, T_I32 = 5, T_F32 = 6, T_STRING = 8, T_ARRAY = 9 };

static FILE *out;
static const char *out_path;

static void die(const char *what)
{
	fprintf(stderr, "gguf_gen: %s '%s': %s\n", what, out_path, strerror(errno));
	exit(1);
}

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("cannot write");
}

static void u32(uint32_t v)
{
	put(&v, 4);	/* GGUF is little-endian, like every host llama.cpp runs on here */
}

static void u64(uint64_t v)
{
	put(&v, 8);
}

static void str(const char *s)
{
	u64(strlen(s));
	put(s, strlen(s));
}

static void kv_u32(const char *k, uint32_t v)
{
	str(k);
	u32(T_U32);
	u32(v);
}

static void kv_f32(const char *k, float v)
{
	str(k);
	u32(T_F32);
	put(&v, 4);
}

static void kv_str(const char *k, const char *v)
{
	str(k);
	u32(T_STRING);
	str(v);
}

/* The vocabulary: <unk> <s> </s>, <0x00>..<0xFF>, then "▁" + two letters. */
static void token(int i, char *buf, size_t cap)
{
	if (i < 3) {
		snprintf(buf, cap, "%s", (const char *[]){ "<unk>", "<s>", "</s>" }[i]);
	} else if (i < 3 + 256) {
		snprintf(buf, cap, "<0x%02X>", i - 3);
	} else {
		int k = i - 3 - 256;

		snprintf(buf, cap, "\xe2\x96\x81%c%c", 'a' + k / 26, 'a' + k % 26);
	}
}

static void vocab(void)
{
	char t[16];

	str("tokenizer.ggml.tokens");
	u32(T_ARRAY);
	u32(T_STRING);
	u64(N_VOCAB);
	for (int i = 0; i < N_VOCAB; i++) {
		token(i, t, sizeof(t));
		str(t);
	}
	str("tokenizer.ggml.scores");
	u32(T_ARRAY);
	u32(T_F32);
	u64(N_VOCAB);
	for (int i = 0; i < N_VOCAB; i++) {
		float s = i < 3 + 256 ? 0.0f : -(float)(i - 3 - 256);

		put(&s, 4);
	}
	str("tokenizer.ggml.token_type");
	u32(T_ARRAY);
	u32(T_I32);
	u64(N_VOCAB);
	for (int i = 0; i < N_VOCAB; i++) {
		/* unknown, control, byte, normal */
		int32_t ty = i == 0 ? 2 : i < 3 ? 3 : i < 3 + 256 ? 6 : 1;

		put(&ty, 4);
	}
}

struct tensor {
	char name[64];
	uint64_t ne[2];
	int nd;
	float scale;		/* 0: all ones (a norm) */
};

static struct tensor tensors[3 + 9 * N_LAYER];
static int nr_tensors;

static void add(const char *name, int layer, uint64_t ne0, uint64_t ne1, float mult)
{
	struct tensor *t = &tensors[nr_tensors++];

	if (layer < 0)
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		snprintf(t->name, sizeof(t->name), "blk.%d.%s", layer, name);
	t->ne[0] = ne0;
	t->ne[1] = ne1;
	t->nd = ne1 ? 2 : 1;
	/* ne0 is the input width of a matrix (the fan-in) */
	t->scale = mult > 0 ? mult * sqrtf(3.0f / (float)ne0) : 0;
}

static uint64_t bytes_of(const struct tensor *t)
{
	return 4 * t->ne[0] * (t->nd == 2 ? t->ne[1] : 1);
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void data(const struct tensor *t, int index)
{
	static float buf[4096];
	uint64_t n = bytes_of(t) / 4, done = 0;

	while (done < n) {
		size_t k = n - done < 4096 ? (size_t)(n - done) : 4096;

		for (size_t i = 0; i < k; i++) {
			uint64_t r = splitmix64(SEED ^ ((uint64_t)index << 40) ^ (done + i));
			/* 24 random bits -> [-1, 1): exact in a float */
			float u = (float)(r >> 40) / (float)(1 << 23) - 1.0f;

			buf[i] = t->scale > 0 ? u * t->scale : 1.0f;
		}
		put(buf, k * 4);
		done += k;
	}
}

int main(int argc, char **argv)
{
	static const char zeros[ALIGN];
	uint64_t offset = 0;
	long pos;

	if (argc != 2) {
		fprintf(stderr, "usage: gguf_gen OUT.gguf\n");
		return 2;
	}
	out_path = argv[1];
	add("token_embd.weight", -1, N_EMBD, N_VOCAB, 1);
	for (int l = 0; l < N_LAYER; l++) {
		add("attn_norm.weight", l, N_EMBD, 0, 0);
		add("attn_q.weight", l, N_EMBD, N_EMBD, 1);
		add("attn_k.weight", l, N_EMBD, N_EMBD, 1);
		add("attn_v.weight", l, N_EMBD, N_EMBD, 1);
		add("attn_output.weight", l, N_EMBD, N_EMBD, 1);
		add("ffn_norm.weight", l, N_EMBD, 0, 0);
		add("ffn_gate.weight", l, N_EMBD, N_FF, 1);
		add("ffn_up.weight", l, N_EMBD, N_FF, 1);
		add("ffn_down.weight", l, N_FF, N_EMBD, 1);
	}
	add("output_norm.weight", -1, N_EMBD, 0, 0);
	add("output.weight", -1, N_EMBD, N_VOCAB, 4);

	out = fopen(out_path, "wb");
	if (!out)
		die("cannot create");
	put("GGUF", 4);
	u32(3);				/* version */
	u64((uint64_t)nr_tensors);
	u64(17);			/* key-value pairs, as written below */
	kv_str("general.architecture", "llama");
	kv_str("general.name", "fak example (random weights)");
	kv_u32("general.file_type", 0);	/* all F32 */
	kv_u32("general.alignment", ALIGN);
	kv_u32("llama.context_length", N_CTX);
	kv_u32("llama.embedding_length", N_EMBD);
	kv_u32("llama.block_count", N_LAYER);
	kv_u32("llama.feed_forward_length", N_FF);
	kv_u32("llama.attention.head_count", N_HEAD);
	kv_u32("llama.attention.head_count_kv", N_HEAD);
	kv_u32("llama.rope.dimension_count", N_EMBD / N_HEAD);
	kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
	kv_str("tokenizer.ggml.model", "llama");
	vocab();			/* three pairs */
	kv_u32("tokenizer.ggml.bos_token_id", 1);
	for (int i = 0; i < nr_tensors; i++) {
		const struct tensor *t = &tensors[i];

		str(t->name);
		u32((uint32_t)t->nd);
		for (int d = 0; d < t->nd; d++)
			u64(t->ne[d]);
		u32(0);			/* GGML_TYPE_F32 */
		u64(offset);
		offset += (bytes_of(t) + ALIGN - 1) / ALIGN * ALIGN;
	}
	pos = ftell(out);
	if (pos < 0)
		die("cannot tell the position in");
	put(zeros, (size_t)((ALIGN - pos % ALIGN) % ALIGN));
	for (int i = 0; i < nr_tensors; i++) {
		data(&tensors[i], i);	/* every size is a multiple of ALIGN */
	}
	if (fclose(out) != 0)
		die("cannot write");
	return 0;
}
