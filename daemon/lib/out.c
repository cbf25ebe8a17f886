// SPDX-License-Identifier: GPL-2.0
/*
 * Text/JSON printing layer. JSON documents are built with json-c and printed
 * whole, so a document is always well formed even when a command fails half
 * way (the error goes to stderr, the partial document is discarded).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "out.h"

#define OUT_DEPTH 16

struct rp_out {
	FILE *fp;
	bool json;
	bool pretty;
	struct json_object *root;	/* complete or in construction */
	struct json_object *stack[OUT_DEPTH];
	int depth;			/* open containers */
	int overflow;			/* containers opened past OUT_DEPTH */
};

struct rp_out *rp_out_new(FILE *fp, bool json, bool pretty)
{
	struct rp_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp ? fp : stdout;
	o->json = json;
	o->pretty = pretty;
	return o;
}

bool rp_out_is_json(const struct rp_out *o)
{
	return o && o->json;
}

void rp_out_discard(struct rp_out *o)
{
	if (!o)
		return;
	json_object_put(o->root);
	o->root = NULL;
	o->depth = 0;
	o->overflow = 0;
}

int rp_out_flush(struct rp_out *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;

	if (!o)
		return 0;
	if (!o->json) {
		fflush(o->fp);
		return ferror(o->fp) ? -EIO : 0;
	}
	if (!o->root || o->depth)
		return 0;
	flags |= o->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			     JSON_C_TO_STRING_PLAIN;
	s = json_object_to_json_string_ext(o->root, flags);
	fprintf(o->fp, "%s\n", s ? s : "null");
	json_object_put(o->root);
	o->root = NULL;
	fflush(o->fp);
	return ferror(o->fp) ? -EIO : 0;
}

void rp_out_free(struct rp_out *o)
{
	if (!o)
		return;
	rp_out_flush(o);
	rp_out_discard(o);
	free(o);
}

/* Attach val to the innermost open container; takes ownership. */
static void add(struct rp_out *o, const char *key, struct json_object *val)
{
	struct json_object *cur;

	if (o->overflow || !o->depth) {
		json_object_put(val);
		return;
	}
	cur = o->stack[o->depth - 1];
	if (json_object_is_type(cur, json_type_array))
		json_object_array_add(cur, val);
	else
		json_object_object_add(cur, key ? key : "", val);
}

static void open_container(struct rp_out *o, const char *key,
			   struct json_object *c)
{
	if (!c)
		return;
	if (o->overflow || o->depth == OUT_DEPTH) {
		o->overflow++;
		json_object_put(c);
		return;
	}
	if (!o->depth) {
		/* A new document; an unflushed complete one is printed first. */
		if (o->root)
			rp_out_flush(o);
		o->root = c;
	} else {
		add(o, key, c);
	}
	o->stack[o->depth++] = c;
}

static void close_container(struct rp_out *o)
{
	if (o->overflow) {
		o->overflow--;
		return;
	}
	if (o->depth)
		o->depth--;
}

void rp_out_open_object(struct rp_out *o, const char *key)
{
	if (o->json)
		open_container(o, key, json_object_new_object());
}

void rp_out_close_object(struct rp_out *o)
{
	if (o->json)
		close_container(o);
}

void rp_out_open_array(struct rp_out *o, const char *key)
{
	if (o->json)
		open_container(o, key, json_object_new_array());
}

void rp_out_close_array(struct rp_out *o)
{
	if (o->json)
		close_container(o);
}

/* The text formats come from the callers, as in iproute2's print_*(). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void rp_out_string(struct rp_out *o, const char *key, const char *fmt,
		   const char *val)
{
	if (o->json) {
		add(o, key, val ? json_object_new_string(val) : NULL);
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, val ? val : "-");
}

void rp_out_uint(struct rp_out *o, const char *key, const char *fmt,
		 unsigned long long val)
{
	if (o->json) {
		add(o, key, json_object_new_uint64(val));
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, val);
}

void rp_out_int(struct rp_out *o, const char *key, const char *fmt,
		long long val)
{
	if (o->json) {
		add(o, key, json_object_new_int64(val));
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, val);
}

void rp_out_double(struct rp_out *o, const char *key, const char *fmt,
		   double val)
{
	if (o->json) {
		add(o, key, json_object_new_double(val));
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, val);
}

void rp_out_bool(struct rp_out *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		add(o, key, json_object_new_boolean(val));
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, val ? "true" : "false");
}

void rp_out_null(struct rp_out *o, const char *key, const char *fmt)
{
	if (o->json) {
		add(o, key, NULL);
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, "-");
}

void rp_out_json(struct rp_out *o, const char *key, const char *fmt,
		 struct json_object *val)
{
	if (o->json) {
		add(o, key, val);
		return;
	}
	if (fmt)
		fprintf(o->fp, fmt, json_object_to_json_string_ext(val,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(val);
}

void rp_out_text(struct rp_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
}

#pragma GCC diagnostic pop

void rp_out_nl(struct rp_out *o)
{
	if (!o->json)
		fputc('\n', o->fp);
}

static void verror(const char *fmt, va_list ap)
{
	char buf[1024];
	size_t len;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	fflush(stdout);
	fprintf(stderr, "Error: %s%s\n", buf,
		len && buf[len - 1] == '.' ? "" : ".");
}

int rp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rp_error_ret(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	return ret;
}
