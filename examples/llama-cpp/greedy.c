/* greedy: the llama.cpp example's quality probe. It loads MODEL with the
 * llama.cpp C API (include/llama.h of the bundled source), feeds a fixed
 * prompt of token ids (BOS, then 300..307), decodes N tokens greedily
 * (argmax of the logits, no sampler) with the given configuration, and
 * prints the N token ids on one line. The ids, not text: the model's vocabulary
 * is made up, and an exact comparison needs the exact choices.
 *
 *   greedy MODEL N [-t THREADS] [-fa on|off] [-ctk f16|q8_0] [-ctv f16|q8_0]
 *
 * N is 1 to 247 (a context of 256 holds the prompt of 9 and N tokens).
 *
 * The flags take llama-bench's names and values, so an arm's flags serve both.
 * llama.cpp's own log goes to nowhere; errors go to stderr, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

#define PROMPT_LEN 9
#define N_CTX 256	/* the prompt and at most N_CTX - PROMPT_LEN generated tokens */

static void quiet(enum ggml_log_level level, const char *text, void *ctx)
{
	(void)level;
	(void)text;
	(void)ctx;
}

static int usage(void)
{
	fprintf(stderr, "usage: greedy MODEL N [-t THREADS] [-fa on|off] [-ctk f16|q8_0] "
			"[-ctv f16|q8_0]\n(N: 1 to %d)\n", N_CTX - PROMPT_LEN);
	return 2;
}

static int cache_type(const char *v, enum ggml_type *out)
{
	if (!strcmp(v, "f16"))
		*out = GGML_TYPE_F16;
	else if (!strcmp(v, "q8_0"))
		*out = GGML_TYPE_Q8_0;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct llama_model_params mp;
	struct llama_context_params cp;
	struct llama_model *model;
	struct llama_context *ctx;
	llama_token tokens[PROMPT_LEN];
	int n, n_vocab, rc = 1;

	if (argc < 3 || (n = atoi(argv[2])) <= 0 || n > N_CTX - PROMPT_LEN || (argc - 3) % 2)
		return usage();
	llama_log_set(quiet, NULL);
	llama_backend_init();
	mp = llama_model_default_params();
	cp = llama_context_default_params();
	cp.n_ctx = N_CTX;
	cp.n_batch = N_CTX;
	cp.n_threads = cp.n_threads_batch = 1;
	cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
	for (int i = 3; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "-t") && atoi(v) > 0)
			cp.n_threads = cp.n_threads_batch = atoi(v);
		else if (!strcmp(k, "-fa") && (!strcmp(v, "on") || !strcmp(v, "off")))
			cp.flash_attn_type = !strcmp(v, "on") ? LLAMA_FLASH_ATTN_TYPE_ENABLED
							      : LLAMA_FLASH_ATTN_TYPE_DISABLED;
		else if (!strcmp(k, "-ctk") && cache_type(v, &cp.type_k) == 0)
			;
		else if (!strcmp(k, "-ctv") && cache_type(v, &cp.type_v) == 0)
			;
		else
			return usage();
	}
	model = llama_model_load_from_file(argv[1], mp);
	if (!model) {
		fprintf(stderr, "greedy: cannot load '%s'\n", argv[1]);
		return 1;
	}
	ctx = llama_init_from_model(model, cp);
	if (!ctx) {
		fprintf(stderr, "greedy: cannot create a context with these flags\n");
		llama_model_free(model);
		return 1;
	}
	n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
	tokens[0] = 1;	/* BOS */
	for (int i = 1; i < PROMPT_LEN; i++)
		tokens[i] = 299 + i;
	if (llama_decode(ctx, llama_batch_get_one(tokens, PROMPT_LEN)) != 0) {
		fprintf(stderr, "greedy: the prompt did not decode\n");
		goto out;
	}
	for (int k = 0; k < n; k++) {
		const float *logits = llama_get_logits_ith(ctx, -1);
		llama_token best = 0;

		for (llama_token t = 1; t < n_vocab; t++)
			if (logits[t] > logits[best])
				best = t;
		printf("%s%d", k ? " " : "", best);
		if (llama_decode(ctx, llama_batch_get_one(&best, 1)) != 0) {
			fprintf(stderr, "greedy: token %d did not decode\n", k + 1);
			goto out;
		}
	}
	printf("\n");
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	llama_free(ctx);
	llama_model_free(model);
	llama_backend_free();
	return rc;
}
