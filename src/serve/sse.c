/* The event-stream parser and the completion chunk reader. */
#include "serve/sse.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"

static int field(struct sse *s, struct err *e)
{
	const char *l = s->line.buf ? s->line.buf : "";
	size_t n = s->line.len, name_len;
	const char *colon = memchr(l, ':', n), *v;

	if (!n || colon == l)	/* blank line or comment: handled by the caller */
		return 0;
	name_len = colon ? (size_t)(colon - l) : n;
	if (name_len != 4 || memcmp(l, "data", 4))
		return 0;	/* event, id, retry and unknown fields carry nothing we need */
	v = colon ? colon + 1 : l + n;
	if (v < l + n && *v == ' ')
		v++;
	if (s->has_data)
		sb_addch(&s->data, '\n');
	if (s->data.len + (size_t)(l + n - v) > SSE_EVENT_MAX) {
		s->failed = true;
		return err_set(e, "an event's data passes %zu bytes", SSE_EVENT_MAX);
	}
	sb_add(&s->data, v, (size_t)(l + n - v));
	s->has_data = true;
	return 0;
}

/* A line ended: a field, or at a blank line the event. */
static int end_line(struct sse *s, sse_event_fn fn, void *ctx, struct err *e)
{
	int rc = 0;

	if (s->line.len) {
		TRY(field(s, e));
	} else if (s->has_data) {
		s->events++;
		rc = fn(ctx, sb_str(&s->data), s->data.len);
		sb_reset(&s->data);
		s->has_data = false;
	}
	sb_reset(&s->line);
	return rc;
}

int sse_feed(struct sse *s, const char *buf, size_t len, sse_event_fn fn, void *ctx,
	     struct err *e)
{
	size_t i = 0;
	int rc;

	if (s->failed)
		return err_set(e, "the event stream failed earlier");
	while (i < len) {
		const char *nl;
		size_t run;

		if (s->after_cr) {
			s->after_cr = false;
			if (buf[i] == '\n') {
				i++;
				continue;
			}
		}
		/* the longest run without a line end */
		for (nl = buf + i; nl < buf + len && *nl != '\n' && *nl != '\r'; nl++)
			;
		run = (size_t)(nl - (buf + i));
		if (s->line.len + run > SSE_EVENT_MAX) {
			s->failed = true;
			return err_set(e, "a line of the event stream passes %zu bytes",
				       SSE_EVENT_MAX);
		}
		sb_add(&s->line, buf + i, run);
		i += run;
		if (i == len)
			break;
		s->after_cr = buf[i] == '\r';
		i++;
		if ((rc = end_line(s, fn, ctx, e)))
			return rc;
	}
	return 0;
}

bool sse_pending(const struct sse *s)
{
	return s->line.len || s->has_data;
}

void sse_reset(struct sse *s)
{
	sb_reset(&s->line);
	sb_reset(&s->data);
	s->has_data = s->after_cr = s->failed = false;
	s->events = 0;
}

void sse_release(struct sse *s)
{
	sb_release(&s->line);
	sb_release(&s->data);
	memset(s, 0, sizeof(*s));
}

static long long opt_count(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v)
								 : -1;
}

int sse_chunk_parse(const char *data, size_t len, struct sse_chunk *c, struct err *e)
{
	const json_t *choices, *usage, *timings, *error, *details;
	json_t *doc;

	memset(c, 0, sizeof(*c));
	c->completion_tokens = c->prompt_tokens = c->cached_tokens = -1;
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		c->kind = SSE_CHUNK_DONE;
		return 0;
	}
	doc = json_parse_strict(data, len, "chunk", e);
	if (!doc)
		return -1;
	if (!json_is_object(doc)) {
		json_decref(doc);
		return err_set(e, "chunk: expected a JSON object");
	}
	choices = json_object_get(doc, "choices");
	usage = json_object_get(doc, "usage");
	timings = json_object_get(doc, "timings");
	error = json_object_get(doc, "error");
	if (error) {
		const json_t *msg = json_is_object(error) ? json_object_get(error, "message")
							  : error;

		c->kind = SSE_CHUNK_ERROR;
		snprintf(c->error, sizeof(c->error), "%s",
			 json_is_string(msg) ? json_string_value(msg) : "(no message)");
		json_decref(doc);
		return 0;
	}
	if ((choices && !json_is_array(choices)) || (usage && !json_is_object(usage) &&
						      !json_is_null(usage)) ||
	    (timings && !json_is_object(timings))) {
		json_decref(doc);
		return err_set(e, "chunk: choices must be an array, usage and timings objects");
	}
	if (json_is_array(choices) && json_array_size(choices)) {
		const json_t *ch = json_array_get(choices, 0), *fr;

		if (!json_is_object(ch)) {
			json_decref(doc);
			return err_set(e, "chunk: choices[0] must be an object");
		}
		fr = json_object_get(ch, "finish_reason");
		c->finished = json_is_string(fr);
		c->kind = SSE_CHUNK_TEXT;
	} else if (json_is_object(usage) || timings) {
		c->kind = SSE_CHUNK_USAGE;
	} else {
		json_decref(doc);
		return err_set(e, "chunk: neither choices nor usage (not an OpenAI completion "
			       "chunk)");
	}
	if (json_is_object(usage)) {
		c->completion_tokens = opt_count(usage, "completion_tokens");
		c->prompt_tokens = opt_count(usage, "prompt_tokens");
		details = json_object_get(usage, "prompt_tokens_details");
		if (json_is_object(details))
			c->cached_tokens = opt_count(details, "cached_tokens");
	}
	if (timings && c->cached_tokens < 0)
		c->cached_tokens = opt_count(timings, "cache_n");
	json_decref(doc);
	return 0;
}
