// SPDX-License-Identifier: GPL-2.0
/*
 * The compact JSON reader (plan_jread.h): one recursive descent over the
 * text into an array of nodes. It only ever declines: every input it does
 * not take goes to json-c, so it need not mimic json-c's leniencies or its
 * error messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_jread.h"

/* String blocks: large, so that a few mmaps hold a million short strings. */
#define JBLOCK		(1 << 20)
/* Containers nested below this are json-c's to judge (it stops at 32). */
#define JNEST_MAX	(RP_JDEPTH - 2)
/* Longer numbers are json-c's (strtod needs a NUL-terminated copy). */
#define JNUM_MAX	63

struct rp_jblock {
	struct rp_jblock *next;
	size_t used, cap;
	char buf[];
};

struct jp {
	const char *s, *end;
	struct rp_jdoc *d;
	int nest;
};

void rp_jdoc_free(struct rp_jdoc *d)
{
	struct rp_jblock *b = d->blocks;

	while (b) {
		struct rp_jblock *n = b->next;

		free(b);
		b = n;
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* Room for len bytes in the string blocks, or NULL. */
static char *jalloc(struct rp_jdoc *d, size_t len)
{
	struct rp_jblock *b = d->blocks;
	char *r;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > JBLOCK ? len : JBLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		/* a string too big for a block gets its own, behind the current */
		if (cap > JBLOCK && d->blocks) {
			b->next = d->blocks->next;
			d->blocks->next = b;
		} else {
			b->next = d->blocks;
			d->blocks = b;
		}
	}
	r = b->buf + b->used;
	b->used += len;
	return r;
}

char *rp_jdoc_str(struct rp_jdoc *d, const char *s, size_t len)
{
	char *r = jalloc(d, len + 1);

	if (r) {
		memcpy(r, s, len);
		r[len] = 0;
	}
	return r;
}

int rp_jdoc_add(struct rp_jdoc *d, enum rp_jtype type, const char *key,
		size_t *at)
{
	if (d->nv == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		struct rp_jv *v;

		if (cap > UINT32_MAX)
			return -ENOMEM;
		v = realloc(d->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	*at = d->nv++;
	memset(&d->v[*at], 0, sizeof(d->v[*at]));
	d->v[*at].type = type;
	d->v[*at].skip = 1;
	d->v[*at].key = key;
	return 0;
}

/* JSON's four white-space characters; json-c decides about others. */
static void ws(struct jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\n' ||
				 *p->s == '\r' || *p->s == '\t'))
		p->s++;
}

static int hex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static char *utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		*o++ = cp;
	} else if (cp < 0x800) {
		*o++ = 0xC0 | (cp >> 6);
		*o++ = 0x80 | (cp & 0x3F);
	} else if (cp < 0x10000) {
		*o++ = 0xE0 | (cp >> 12);
		*o++ = 0x80 | ((cp >> 6) & 0x3F);
		*o++ = 0x80 | (cp & 0x3F);
	} else {
		*o++ = 0xF0 | (cp >> 18);
		*o++ = 0x80 | ((cp >> 12) & 0x3F);
		*o++ = 0x80 | ((cp >> 6) & 0x3F);
		*o++ = 0x80 | (cp & 0x3F);
	}
	return o;
}

/*
 * One \u escape at s (after the backslash and 'u'), a surrogate pair
 * included: its code point and length. A lone surrogate or U+0000 is
 * json-c's to judge (it substitutes or cuts the string).
 */
static int uesc(const char *s, const char *end, unsigned int *cp, int *len)
{
	unsigned int lo;

	if (end - s < 4 || hex4(s, cp) || !*cp || (*cp >= 0xDC00 && *cp < 0xE000))
		return -EINVAL;
	*len = 4;
	if (*cp < 0xD800 || *cp >= 0xDC00)
		return 0;
	if (end - s < 10 || s[4] != '\\' || s[5] != 'u' || hex4(s + 6, &lo) ||
	    lo < 0xDC00 || lo >= 0xE000)
		return -EINVAL;
	*cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
	*len = 10;
	return 0;
}

/* A string at p->s (on its opening quote), unescaped into the blocks. */
static int jstring(struct jp *p, const char **out)
{
	const char *s = p->s + 1, *q = s;
	char *o, *r;

	/* the closing quote, and whether anything needs unescaping */
	while (q < p->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
		q++;
	if (q < p->end && *q == '"') {
		r = rp_jdoc_str(p->d, s, q - s);
		if (!r)
			return -ENOMEM;
		*out = r;
		p->s = q + 1;
		return 0;
	}
	while (q < p->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	if (q >= p->end)
		return -EINVAL;
	/* escapes only shorten: the raw length is room enough */
	r = o = jalloc(p->d, q - s + 1);
	if (!r)
		return -ENOMEM;
	while (s < q) {
		unsigned int cp;
		int n;

		if ((unsigned char)*s < 0x20)
			return -EINVAL;
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		switch (s[1]) {
		case '"': case '\\': case '/':
			*o++ = s[1];
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (uesc(s + 2, q, &cp, &n))
				return -EINVAL;
			o = utf8(o, cp);
			s += n;
			break;
		default:
			return -EINVAL;
		}
		s += 2;
	}
	*o = 0;
	*out = r;
	p->s = q + 1;
	return 0;
}

static bool digit(const struct jp *p, const char *s)
{
	return s < p->end && *s >= '0' && *s <= '9';
}

/*
 * A number, typed as json-c types it: a fraction or an exponent makes a
 * double. Integers beyond 18 digits are json-c's (it clamps them).
 */
static int jnumber(struct jp *p, struct rp_jv *v)
{
	const char *s = p->s, *i0;
	bool dbl = false;
	char buf[JNUM_MAX + 1];

	if (s < p->end && *s == '-')
		s++;
	i0 = s;
	if (!digit(p, s))
		return -EINVAL;
	if (*s == '0')
		s++;
	else
		while (digit(p, s))
			s++;
	if (s < p->end && *s == '.') {
		dbl = true;
		if (!digit(p, ++s))
			return -EINVAL;
		while (digit(p, s))
			s++;
	}
	if (s < p->end && (*s == 'e' || *s == 'E')) {
		dbl = true;
		s++;
		if (s < p->end && (*s == '+' || *s == '-'))
			s++;
		if (!digit(p, s))
			return -EINVAL;
		while (digit(p, s))
			s++;
	}
	if (!dbl) {
		int64_t x = 0;

		if (s - i0 > 18)
			return -EINVAL;
		for (const char *c = i0; c < s; c++)
			x = x * 10 + (*c - '0');
		v->type = RP_JINT;
		v->i = *p->s == '-' ? -x : x;
	} else {
		if (s - p->s > JNUM_MAX)
			return -EINVAL;
		memcpy(buf, p->s, s - p->s);
		buf[s - p->s] = 0;
		v->type = RP_JDOUBLE;
		v->d = strtod(buf, NULL);
	}
	p->s = s;
	return 0;
}

static int literal(struct jp *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return -EINVAL;
	p->s += n;
	return 0;
}

static int jvalue(struct jp *p, const char *key);

/* An array or object at p->s: its elements or members, then its size. */
static int jcontainer(struct jp *p, size_t at)
{
	bool obj = *p->s == '{';
	char close = obj ? '}' : ']';
	size_t n = 0;
	int ret;

	if (++p->nest > JNEST_MAX)
		return -EINVAL;
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		goto done;
	}
	for (;;) {
		const char *key = NULL;

		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return -EINVAL;
			ret = jstring(p, &key);
			if (ret)
				return ret;
			ws(p);
			if (p->s >= p->end || *p->s != ':')
				return -EINVAL;
			p->s++;
			ws(p);
		}
		ret = jvalue(p, key);
		if (ret)
			return ret;
		n++;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			ws(p);
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			break;
		}
		return -EINVAL;
	}
done:
	p->nest--;
	p->d->v[at].n = n;
	p->d->v[at].skip = p->d->nv - at;
	return 0;
}

/* A value at p->s (white space skipped). */
static int jvalue(struct jp *p, const char *key)
{
	size_t at;
	int ret;

	if (p->s >= p->end)
		return -EINVAL;
	ret = rp_jdoc_add(p->d, RP_JNULL, key, &at);
	if (ret)
		return ret;
	switch (*p->s) {
	case '{':
		p->d->v[at].type = RP_JOBJECT;
		return jcontainer(p, at);
	case '[':
		p->d->v[at].type = RP_JARRAY;
		return jcontainer(p, at);
	case '"':
		p->d->v[at].type = RP_JSTRING;
		return jstring(p, &p->d->v[at].s);
	case 't':
		p->d->v[at].type = RP_JBOOL;
		p->d->v[at].b = true;
		return literal(p, "true");
	case 'f':
		p->d->v[at].type = RP_JBOOL;
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	default:
		return jnumber(p, &p->d->v[at]);
	}
}

int rp_jdoc_parse(const char *text, size_t len, struct rp_jdoc *d)
{
	struct jp p = { .s = text, .end = text + len, .d = d };
	int ret;

	memset(d, 0, sizeof(*d));
	ws(&p);
	ret = jvalue(&p, NULL);
	if (ret)
		return ret;
	ws(&p);
	return p.s == p.end ? 0 : -EINVAL;
}

const struct rp_jv *rp_jv_get(const struct rp_jv *obj, const char *key)
{
	const struct rp_jv *m, *r = NULL;

	if (!obj || obj->type != RP_JOBJECT)
		return NULL;
	m = rp_jv_first(obj);
	for (size_t i = 0; i < obj->n; i++, m = rp_jv_next(m))
		if (!strcmp(m->key, key))
			r = m;
	return r;
}

const char *rp_jv_itoa(const struct rp_jv *v, char *buf, size_t len)
{
	if (v->u64)
		snprintf(buf, len, "%llu", (unsigned long long)v->i);
	else
		snprintf(buf, len, "%lld", (long long)v->i);
	return buf;
}
