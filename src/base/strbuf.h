#ifndef FAK_BASE_STRBUF_H
#define FAK_BASE_STRBUF_H
/* Growable, always NUL-terminated byte buffer. */
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* never NULL after the first add; "" when empty */
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT { 0 }

void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addch(struct strbuf *sb, int c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void sb_reset(struct strbuf *sb);
void sb_release(struct strbuf *sb);
/* Returns the buffer (caller frees) and resets sb. Never NULL. */
char *sb_detach(struct strbuf *sb, size_t *len);
/* The contents, "" for a buffer never written. Borrowed. */
const char *sb_str(const struct strbuf *sb);

#endif
