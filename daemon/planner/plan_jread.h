/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compact read-only JSON document for the cluster files. json-c's tree of
 * a 131k-GPU topology (22 MB of text) took 380 MB: a hash table per object
 * and a heap block per value. Here every value is one 24-byte node of one
 * array, in document order, and strings sit in a few large blocks, so the
 * same file takes about 50 MB besides its text.
 *
 * The reader takes strict JSON only (RFC 8259, nesting as deep as json-c
 * allows). Anything else (comments, trailing commas, integers beyond 64
 * bits, a syntax error) it declines with -EINVAL, and rp_json_parse() hands
 * the text to json-c instead, whose verdict and messages stay the reference.
 */
#ifndef ROCEPATH_PLAN_JREAD_H
#define ROCEPATH_PLAN_JREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* json-c's nesting limit (JSON_TOKENER_DEFAULT_DEPTH): deeper is its error */
#define RP_JDEPTH	32

enum rp_jtype {
	RP_JNULL, RP_JBOOL, RP_JDOUBLE, RP_JINT, RP_JOBJECT, RP_JARRAY,
	RP_JSTRING,
};

/*
 * One value. A container's members or elements follow it, each with its
 * own subtree; skip steps over a whole subtree to the next sibling.
 */
struct rp_jv {
	uint8_t type;		/* enum rp_jtype */
	bool u64;		/* json-c's unsigned integer: i holds its bits */
	uint32_t skip;		/* nodes in this subtree, this one included */
	const char *key;	/* the member name when in an object, or NULL */
	union {
		bool b;
		int64_t i;
		double d;
		const char *s;	/* NUL-terminated, unescaped */
		size_t n;	/* members or elements */
	};
};

struct rp_jblock;

struct rp_jdoc {
	struct rp_jv *v;	/* v[0] is the document */
	size_t nv, cap;
	struct rp_jblock *blocks;	/* the strings */
};

/*
 * Parses strict JSON text (only white space after the document): 0,
 * -ENOMEM, or -EINVAL for anything json-c has to judge. Free d with
 * rp_jdoc_free(), also after an error.
 */
int rp_jdoc_parse(const char *text, size_t len, struct rp_jdoc *d);
void rp_jdoc_free(struct rp_jdoc *d);

/* Appends a value to d (for documents built another way): its index. */
int rp_jdoc_add(struct rp_jdoc *d, enum rp_jtype type, const char *key,
		size_t *at);
/* A copy of s[0..len) NUL-terminated in d's string blocks, or NULL. */
char *rp_jdoc_str(struct rp_jdoc *d, const char *s, size_t len);

static inline const struct rp_jv *rp_jv_first(const struct rp_jv *c)
{
	return c + 1;
}

static inline const struct rp_jv *rp_jv_next(const struct rp_jv *v)
{
	return v + v->skip;
}

/* Elements or members of a container; 0 for anything else. */
static inline size_t rp_jv_len(const struct rp_jv *v)
{
	return v && (v->type == RP_JOBJECT || v->type == RP_JARRAY) ? v->n : 0;
}

/* An integer as json-c's json_object_get_int64() gives it (clamped). */
static inline int64_t rp_jv_int(const struct rp_jv *v)
{
	return v->u64 && v->i < 0 ? INT64_MAX : v->i;
}

/* An integer's text as json-c prints it, for messages: buf. */
const char *rp_jv_itoa(const struct rp_jv *v, char *buf, size_t len);

/*
 * The member key of an object (the last one when the key repeats, as in
 * json-c), or NULL, also when obj is no object.
 */
const struct rp_jv *rp_jv_get(const struct rp_jv *obj, const char *key);

#endif /* ROCEPATH_PLAN_JREAD_H */
