#ifndef FAK_BASE_ERR_H
#define FAK_BASE_ERR_H
/* Errors are values below the CLI: a function that can fail returns 0 or -1
 * and fills a caller-owned struct err. Only cli/ prints them. */
#include <stdarg.h>
#include <stdlib.h>

struct err {
	char msg[2048];
};

/* Format the message; always returns -1 so callers can `return err_set(...)`. */
int err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepend "<context>: " to the message already in e; returns -1. */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* err_set with ": <strerror(errnum)>" appended. */
int err_errno(struct err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Propagate a failure: evaluates x and returns -1 from the caller when x
 * is negative (the error is already in the caller's struct err). */
#define TRY(x)                     \
	do {                       \
		if ((x) < 0)       \
			return -1; \
	} while (0)

/* Broken invariant: print and abort. Never for bad input. The abort()
 * stands in the macro so that every analyser sees the path end (cppcheck
 * 2.10 does not honour _Noreturn on a declaration). */
#define BUG(...)                                              \
	do {                                                  \
		bug_report(__FILE__, __LINE__, __VA_ARGS__); \
		abort();                                      \
	} while (0)
void bug_report(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
