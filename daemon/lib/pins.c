// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "out.h"
#include "parse.h"
#include "pins.h"

/* The one JSON form of a pin: -j output, pins files, rp_pins_to_json(). */
static struct json_object *pin_to_json(const struct rp_pin *p)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sp = json_object_new_array();
	struct json_object *qps = NULL;
	char buf[RP_ADDR_STRLEN];

	if (p->nsport_qps)
		qps = json_object_new_array();
	if (!o || !sp || (p->nsport_qps && !qps)) {
		json_object_put(o);
		json_object_put(sp);
		json_object_put(qps);
		return NULL;
	}
	json_object_object_add(o, "dev", p->ibdev[0] ?
			       json_object_new_string(p->ibdev) : NULL);
	json_object_object_add(o, "remote", json_object_new_string(
			       rp_addr_fmt(&p->remote, buf, sizeof(buf))));
	for (size_t j = 0; j < p->nsports; j++)
		json_object_array_add(sp, json_object_new_int(p->sports[j]));
	json_object_object_add(o, "sports", sp);
	json_object_object_add(o, "rqpn", RP_HAS(p, ROCEPATH_A_PIN_RQPN) ?
			       json_object_new_int64(p->rqpn) : NULL);
	json_object_object_add(o, "lqpn", RP_HAS(p, ROCEPATH_A_PIN_LQPN) ?
			       json_object_new_int64(p->lqpn) : NULL);
	for (size_t j = 0; j < p->nsport_qps; j++)
		json_object_array_add(qps, json_object_new_int64(p->sport_qps[j]));
	if (qps)
		json_object_object_add(o, "sport_qps", qps);
	return o;
}

void rp_pin_print(struct rp_out *o, const struct rp_pin *p)
{
	char buf[RP_ADDR_STRLEN];

	if (rp_out_is_json(o)) {
		rp_out_json(o, NULL, NULL, pin_to_json(p));
		return;
	}
	if (p->ibdev[0])
		rp_out_text(o, "dev %s ", p->ibdev);
	rp_out_text(o, "remote %s ", rp_addr_fmt(&p->remote, buf, sizeof(buf)));
	rp_out_text(o, "sport ");
	for (size_t i = 0; i < p->nsports; i++)
		rp_out_text(o, i ? ",%u" : "%u", p->sports[i]);
	rp_out_text(o, " ");
	if (RP_HAS(p, ROCEPATH_A_PIN_RQPN))
		rp_out_text(o, "rqpn %u ", p->rqpn);
	if (RP_HAS(p, ROCEPATH_A_PIN_LQPN))
		rp_out_text(o, "lqpn %u ", p->lqpn);
	if (p->nsport_qps) {
		rp_out_text(o, "qps ");
		for (size_t i = 0; i < p->nsport_qps; i++)
			rp_out_text(o, i ? ",%u" : "%u", p->sport_qps[i]);
	}
	rp_out_nl(o);
}

void rp_qp_rule_print(struct rp_out *o, const struct rp_qp *q)
{
	const struct rp_qp_rule *r = &q->rule;
	char buf[RP_ADDR_STRLEN];

	if (!RP_HAS(q, ROCEPATH_A_QP_RULE)) {
		rp_out_null(o, "rule", NULL);
		return;
	}
	rp_out_open_object(o, "rule");
	rp_out_text(o, " rule");
	if (RP_HAS(r, ROCEPATH_A_PIN_IBDEV))
		rp_out_string(o, "dev", " dev %s", r->ibdev);
	else
		rp_out_null(o, "dev", NULL);
	rp_out_string(o, "remote", " remote %s",
		      rp_addr_fmt(&r->remote, buf, sizeof(buf)));
	if (RP_HAS(r, ROCEPATH_A_PIN_RQPN))
		rp_out_uint(o, "rqpn", " rqpn %llu", r->rqpn);
	else
		rp_out_null(o, "rqpn", NULL);
	if (RP_HAS(r, ROCEPATH_A_PIN_LQPN))
		rp_out_uint(o, "lqpn", " lqpn %llu", r->lqpn);
	else
		rp_out_null(o, "lqpn", NULL);
	rp_out_close_object(o);
}

struct json_object *rp_pins_to_json(const struct rp_pins *pins)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < pins->n; i++) {
		struct json_object *o = pin_to_json(&pins->v[i]);

		if (!o) {
			json_object_put(arr);
			return NULL;
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

bool rp_pin_same_key(const struct rp_pin *a, const struct rp_pin *b)
{
	return !strcmp(a->ibdev, b->ibdev) &&
	       rp_addr_equal(&a->remote, &b->remote) &&
	       RP_HAS(a, ROCEPATH_A_PIN_RQPN) == RP_HAS(b, ROCEPATH_A_PIN_RQPN) &&
	       RP_HAS(a, ROCEPATH_A_PIN_LQPN) == RP_HAS(b, ROCEPATH_A_PIN_LQPN) &&
	       (!RP_HAS(a, ROCEPATH_A_PIN_RQPN) || a->rqpn == b->rqpn) &&
	       (!RP_HAS(a, ROCEPATH_A_PIN_LQPN) || a->lqpn == b->lqpn);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* An integer JSON value (not a double, not a numeric string) in range. */
static bool get_int(struct json_object *v, long long min, long long max,
		    long long *out)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return false;
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return false;
	/* Values above INT64_MAX come back clamped: reject them as well. */
	if (json_object_get_uint64(v) > (uint64_t)max && x >= 0)
		return false;
	*out = x;
	return true;
}

static int parse_one(struct json_object *obj, const char *what, size_t idx,
		     struct rp_pin *p, char *err, size_t errlen)
{
	struct json_object *v;
	long long x;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!json_object_is_type(obj, json_type_object))
		return fail(err, errlen, "%s: pin %zu: not a JSON object",
			    what, idx);
	json_object_object_foreach(obj, key, val) {
		(void)val;
		if (strcmp(key, "dev") && strcmp(key, "remote") &&
		    strcmp(key, "sports") && strcmp(key, "rqpn") &&
		    strcmp(key, "lqpn") && strcmp(key, "sport_qps"))
			return fail(err, errlen, "%s: pin %zu: unknown key \"%s\"",
				    what, idx, key);
	}

	if (json_object_object_get_ex(obj, "dev", &v) && v) {
		const char *s = json_object_get_string(v);

		if (!json_object_is_type(v, json_type_string) ||
		    rp_parse_ibdev(s))
			return fail(err, errlen,
				    "%s: pin %zu: \"dev\" must be a device name (1..63 characters) or null",
				    what, idx);
		strcpy(p->ibdev, s);
		RP_SET(p, ROCEPATH_A_PIN_IBDEV);
	}

	if (!json_object_object_get_ex(obj, "remote", &v) || !v)
		return fail(err, errlen, "%s: pin %zu: \"remote\" is missing",
			    what, idx);
	if (!json_object_is_type(v, json_type_string) ||
	    rp_addr_parse(json_object_get_string(v), &p->remote))
		return fail(err, errlen,
			    "%s: pin %zu: \"remote\" is not an IPv4 or IPv6 address",
			    what, idx);
	RP_SET(p, ROCEPATH_A_PIN_REMOTE);

	if (!json_object_object_get_ex(obj, "sports", &v) || !v)
		return fail(err, errlen, "%s: pin %zu: \"sports\" is missing",
			    what, idx);
	if (!json_object_is_type(v, json_type_array) ||
	    !(n = json_object_array_length(v)))
		return fail(err, errlen,
			    "%s: pin %zu: \"sports\" must be a non-empty array of ports",
			    what, idx);
	p->sports = calloc(n, sizeof(*p->sports));
	if (!p->sports)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!get_int(json_object_array_get_idx(v, i),
			     ROCEPATH_SPORT_MIN, ROCEPATH_SPORT_MAX, &x))
			return fail(err, errlen,
				    "%s: pin %zu: sports[%zu] is not a port in %d..%d",
				    what, idx, i, ROCEPATH_SPORT_MIN,
				    ROCEPATH_SPORT_MAX);
		for (size_t j = 0; j < i; j++)
			if (p->sports[j] == x)
				return fail(err, errlen,
					    "%s: pin %zu: port %lld listed twice",
					    what, idx, x);
		p->sports[i] = x;
		p->nsports++;
	}
	RP_SET(p, ROCEPATH_A_PIN_SPORT);

	if (json_object_object_get_ex(obj, "rqpn", &v) && v) {
		if (!get_int(v, 0, ROCEPATH_QPN_MAX, &x))
			return fail(err, errlen,
				    "%s: pin %zu: \"rqpn\" must be a QP number 0..%d or null",
				    what, idx, ROCEPATH_QPN_MAX);
		p->rqpn = x;
		RP_SET(p, ROCEPATH_A_PIN_RQPN);
	}
	if (json_object_object_get_ex(obj, "lqpn", &v) && v) {
		if (!get_int(v, 0, ROCEPATH_QPN_MAX, &x))
			return fail(err, errlen,
				    "%s: pin %zu: \"lqpn\" must be a QP number 0..%d or null",
				    what, idx, ROCEPATH_QPN_MAX);
		p->lqpn = x;
		RP_SET(p, ROCEPATH_A_PIN_LQPN);
	}
	return 0;
}

/* Order by key (dev, remote, rqpn, lqpn; an unset QPN first). */
static int pin_key_cmp(const struct rp_pin *x, const struct rp_pin *y)
{
	int r;

	r = strcmp(x->ibdev, y->ibdev);
	if (r)
		return r;
	if (x->remote.family != y->remote.family)
		return x->remote.family - y->remote.family;
	r = memcmp(x->remote.raw, y->remote.raw, rp_addr_len(&x->remote));
	if (r)
		return r;
	if (RP_HAS(x, ROCEPATH_A_PIN_RQPN) != RP_HAS(y, ROCEPATH_A_PIN_RQPN))
		return RP_HAS(x, ROCEPATH_A_PIN_RQPN) ? 1 : -1;
	if (x->rqpn != y->rqpn)
		return x->rqpn < y->rqpn ? -1 : 1;
	if (RP_HAS(x, ROCEPATH_A_PIN_LQPN) != RP_HAS(y, ROCEPATH_A_PIN_LQPN))
		return RP_HAS(x, ROCEPATH_A_PIN_LQPN) ? 1 : -1;
	if (x->lqpn != y->lqpn)
		return x->lqpn < y->lqpn ? -1 : 1;
	return 0;
}

/* Duplicate keys: sort an index by key and compare neighbours. */
static const struct rp_pin *sort_base;

static int key_cmp(const void *a, const void *b)
{
	int r = pin_key_cmp(&sort_base[*(const size_t *)a],
			    &sort_base[*(const size_t *)b]);

	if (r)
		return r;
	/* Stable: report the lower index first. */
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int check_dups(const struct rp_pins *pins, size_t from,
		      const char *what, char *err, size_t errlen)
{
	size_t n = pins->n - from, *idx;
	int ret = 0;

	if (n < 2)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = from + i;
	sort_base = pins->v;
	qsort(idx, n, sizeof(*idx), key_cmp);
	for (size_t i = 1; i < n; i++) {
		if (rp_pin_same_key(&pins->v[idx[i - 1]], &pins->v[idx[i]])) {
			size_t a = idx[i - 1], b = idx[i];

			ret = fail(err, errlen,
				   "%s: pin %zu: same dev, remote, rqpn and lqpn as pin %zu",
				   what, (b > a ? b : a) - from,
				   (b > a ? a : b) - from);
			break;
		}
	}
	free(idx);
	return ret;
}

int rp_pins_from_json(struct json_object *arr, const char *what,
		      struct rp_pins *pins, char *err, size_t errlen)
{
	size_t from = pins->n, n;
	int ret = 0;

	if (!json_object_is_type(arr, json_type_array)) {
		ret = fail(err, errlen,
			   "%s: expected a JSON array of pin objects", what);
		goto err_free;
	}
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct rp_pin p;

		ret = parse_one(json_object_array_get_idx(arr, i), what, i, &p,
				err, errlen);
		if (!ret)
			ret = rp_pins_push(pins, &p);
		if (ret) {
			rp_pin_release(&p);
			if (ret == -ENOMEM)
				fail(err, errlen, "%s: out of memory", what);
			goto err_free;
		}
	}
	ret = check_dups(pins, from, what, err, errlen);
	if (!ret)
		return 0;
err_free:
	rp_pins_free(pins);
	return ret;
}

int rp_pins_load(const char *path, struct rp_pins *pins, char *err,
		 size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *root;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *fp;
	int ret;

	fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!fp) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 65536 + 1);

			if (!nb) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto err_close;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (!got)
			break;
	}
	if (ferror(fp)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto err_close;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		ret = fail(err, errlen, "%s: not a text file (NUL byte)", path);
		goto err_close;
	}

	tok = json_tokener_new();
	if (!tok) {
		ret = -ENOMEM;
		goto err_close;
	}
	root = json_tokener_parse_ex(tok, buf, len);
	if (json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error jerr = json_tokener_get_error(tok);

		if (jerr == json_tokener_continue)
			ret = fail(err, errlen, "%s: truncated JSON", path);
		else
			ret = fail(err, errlen, "%s: invalid JSON at byte %zu: %s",
				   path, json_tokener_get_parse_end(tok),
				   json_tokener_error_desc(jerr));
		json_object_put(root);
		json_tokener_free(tok);
		goto err_close;
	}
	/* Nothing but white space may follow the document. */
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!strchr(" \t\r\n", buf[i])) {
			ret = fail(err, errlen,
				   "%s: trailing data after the JSON document at byte %zu",
				   path, i);
			json_object_put(root);
			json_tokener_free(tok);
			goto err_close;
		}
	}
	json_tokener_free(tok);
	ret = rp_pins_from_json(root, path, pins, err, errlen);
	json_object_put(root);
err_close:
	free(buf);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

int rp_pins_save(const char *path, const struct rp_pins *pins)
{
	struct json_object *arr = rp_pins_to_json(pins);
	char *tmp = NULL;
	int ret = 0;

	if (!arr)
		return -ENOMEM;
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		json_object_put(arr);
		return -ENOMEM;
	}
	if (json_object_to_file_ext(tmp, arr, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_SPACED |
				    JSON_C_TO_STRING_NOSLASHESCAPE) ||
	    rename(tmp, path)) {
		ret = errno ? -errno : -EIO;
		unlink(tmp);
	}
	free(tmp);
	json_object_put(arr);
	return ret;
}

int rp_pin_copy(struct rp_pin *dst, const struct rp_pin *src)
{
	*dst = *src;
	dst->sports = NULL;
	dst->sport_qps = NULL;
	if (src->nsports) {
		dst->sports = malloc(src->nsports * sizeof(*dst->sports));
		if (!dst->sports)
			goto err;
		memcpy(dst->sports, src->sports, src->nsports * sizeof(*dst->sports));
	}
	if (src->nsport_qps) {
		dst->sport_qps = malloc(src->nsport_qps * sizeof(*dst->sport_qps));
		if (!dst->sport_qps)
			goto err;
		memcpy(dst->sport_qps, src->sport_qps,
		       src->nsport_qps * sizeof(*dst->sport_qps));
	}
	return 0;
err:
	rp_pin_release(dst);
	return -ENOMEM;
}

int rp_pins_add(struct rp_pins *s, const struct rp_pin *p)
{
	struct rp_pin c;
	int ret = rp_pin_copy(&c, p);

	if (!ret)
		ret = rp_pins_push(s, &c);
	if (ret)
		rp_pin_release(&c);
	return ret;
}

void rp_pins_clear(struct rp_pins *s)
{
	for (size_t i = 0; i < s->n; i++)
		rp_pin_release(&s->v[i]);
	s->n = 0;
}

int rp_pins_copy(struct rp_pins *dst, const struct rp_pins *src)
{
	rp_pins_clear(dst);
	for (size_t i = 0; i < src->n; i++) {
		int ret = rp_pins_add(dst, &src->v[i]);

		if (ret)
			return ret;
	}
	dst->generation = src->generation;
	return 0;
}

static int u16_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

int rp_pin_cmp(const struct rp_pin *x, const struct rp_pin *y)
{
	int r = pin_key_cmp(x, y);

	if (r)
		return r;
	if (x->nsports != y->nsports)
		return x->nsports < y->nsports ? -1 : 1;
	return x->nsports ? memcmp(x->sports, y->sports,
				   x->nsports * sizeof(x->sports[0])) : 0;
}

static int pin_sort_cmp(const void *a, const void *b)
{
	return rp_pin_cmp(a, b);
}

void rp_pins_sort(struct rp_pins *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].nsports)
			qsort(s->v[i].sports, s->v[i].nsports,
			      sizeof(s->v[i].sports[0]), u16_cmp);
	if (s->n)
		qsort(s->v, s->n, sizeof(s->v[0]), pin_sort_cmp);
}

bool rp_pins_equal(const struct rp_pins *a, const struct rp_pins *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (rp_pin_cmp(&a->v[i], &b->v[i]))
			return false;
	return true;
}

void rp_pin_format(const struct rp_pin *p, char *buf, size_t len)
{
	char addr[RP_ADDR_STRLEN];
	size_t off;

	off = snprintf(buf, len, "%s sport ",
		       rp_addr_fmt(&p->remote, addr, sizeof(addr)));
	for (size_t i = 0; i < p->nsports && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
				p->sports[i]);
	if (p->ibdev[0] && off < len)
		off += snprintf(buf + off, len - off, " dev %s", p->ibdev);
	if (RP_HAS(p, ROCEPATH_A_PIN_RQPN) && off < len)
		off += snprintf(buf + off, len - off, " rqpn %u", p->rqpn);
	if (RP_HAS(p, ROCEPATH_A_PIN_LQPN) && off < len)
		snprintf(buf + off, len - off, " lqpn %u", p->lqpn);
}
