/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printing layer for text and JSON, in the style of iproute2's
 * json_print.c: every value is printed with a JSON key and a text format;
 * in text mode the format is printf'ed (nothing when it is NULL), in JSON
 * mode the value is added under the key to the innermost open object (or
 * appended to the innermost open array, the key then being ignored).
 *
 * A JSON document is complete when its outermost container is closed;
 * rp_out_flush() (also called by rp_out_free()) prints it as one line, or
 * indented with -p, followed by a newline. `monitor` uses one document per
 * event; every other command prints one document per run.
 *
 * Text conventions: one line per object, "key value" pairs separated by
 * spaces, rp_out_nl() ends the line (it does nothing in JSON mode).
 */
#ifndef ROCEPATH_OUT_H
#define ROCEPATH_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct json_object;
struct rp_out;

struct rp_out *rp_out_new(FILE *fp, bool json, bool pretty);
/* Prints any pending JSON document, then frees. NULL is fine. */
void rp_out_free(struct rp_out *o);
bool rp_out_is_json(const struct rp_out *o);
/* Prints the pending JSON document (if complete). Returns 0 or -errno. */
int rp_out_flush(struct rp_out *o);
/* Drops everything not yet printed (used when a dump is restarted). */
void rp_out_discard(struct rp_out *o);

/* key is ignored at top level and inside arrays; fmt as for the values. */
void rp_out_open_object(struct rp_out *o, const char *key);
void rp_out_close_object(struct rp_out *o);
void rp_out_open_array(struct rp_out *o, const char *key);
void rp_out_close_array(struct rp_out *o);

/* Values: fmt is the text format ("dev %s "), NULL for JSON only. */
void rp_out_string(struct rp_out *o, const char *key, const char *fmt,
		   const char *val);
void rp_out_uint(struct rp_out *o, const char *key, const char *fmt,
		 unsigned long long val);		/* fmt uses %llu/%llx */
void rp_out_int(struct rp_out *o, const char *key, const char *fmt,
		long long val);				/* fmt uses %lld */
void rp_out_double(struct rp_out *o, const char *key, const char *fmt,
		   double val);				/* fmt uses %f/%g */
void rp_out_bool(struct rp_out *o, const char *key, const char *fmt,
		 bool val);		/* text: fmt gets "true"/"false" via %s */
/* JSON null; text prints fmt with "-" as its %s argument (NULL: nothing). */
void rp_out_null(struct rp_out *o, const char *key, const char *fmt);
/*
 * Adds a ready json-c object under key (ownership is taken, also on
 * error). In text mode it is printed as compact JSON through fmt ("%s").
 */
void rp_out_json(struct rp_out *o, const char *key, const char *fmt,
		 struct json_object *val);

/* Text mode only: printf-like free text, and the end of a line. */
void rp_out_text(struct rp_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rp_out_nl(struct rp_out *o);

/*
 * Errors, always text on stderr: "Error: <message>." (the full stop is
 * added unless the message already ends with one). Returns -EINVAL so that
 * callers can `return rp_error(...)`; use rp_error_ret() for another code.
 */
int rp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int rp_error_ret(int ret, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* ROCEPATH_OUT_H */
