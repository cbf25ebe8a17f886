// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "out.h"
#include "parse.h"
#include "pins.h"

void rp_pin_print(struct rp_out *o, const struct rp_pin *p)
{
	char buf[RP_ADDR_STRLEN];

	rp_out_open_object(o, NULL);
	if (p->ibdev[0])
		rp_out_string(o, "dev", "dev %s ", p->ibdev);
	else
		rp_out_null(o, "dev", NULL);
	rp_out_string(o, "remote", "remote %s ",
		      rp_addr_fmt(&p->remote, buf, sizeof(buf)));
	rp_out_open_array(o, "sports");
	rp_out_text(o, "sport ");
	for (size_t i = 0; i < p->nsports; i++)
		rp_out_uint(o, NULL, i ? ",%llu" : "%llu", p->sports[i]);
	rp_out_text(o, " ");
	rp_out_close_array(o);
	if (RP_HAS(p, ROCEPATH_A_PIN_RQPN))
		rp_out_uint(o, "rqpn", "rqpn %llu ", p->rqpn);
	else
		rp_out_null(o, "rqpn", NULL);
	if (RP_HAS(p, ROCEPATH_A_PIN_LQPN))
		rp_out_uint(o, "lqpn", "lqpn %llu ", p->lqpn);
	else
		rp_out_null(o, "lqpn", NULL);
	if (p->nsport_qps) {
		rp_out_open_array(o, "sport_qps");
		rp_out_text(o, "qps ");
		for (size_t i = 0; i < p->nsport_qps; i++)
			rp_out_uint(o, NULL, i ? ",%llu" : "%llu",
				    p->sport_qps[i]);
		rp_out_close_array(o);
	}
	rp_out_close_object(o);
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
		const struct rp_pin *p = &pins->v[i];
		struct json_object *o = json_object_new_object();
		struct json_object *sp = json_object_new_array();
		char buf[RP_ADDR_STRLEN];

		if (!o || !sp) {
			json_object_put(o);
			json_object_put(sp);
			json_object_put(arr);
			return NULL;
		}
		json_object_object_add(o, "dev", p->ibdev[0] ?
				       json_object_new_string(p->ibdev) : NULL);
		json_object_object_add(o, "remote", json_object_new_string(
				       rp_addr_fmt(&p->remote, buf, sizeof(buf))));
		for (size_t j = 0; j < p->nsports; j++)
			json_object_array_add(sp,
					      json_object_new_int(p->sports[j]));
		json_object_object_add(o, "sports", sp);
		json_object_object_add(o, "rqpn",
				       RP_HAS(p, ROCEPATH_A_PIN_RQPN) ?
				       json_object_new_int64(p->rqpn) : NULL);
		json_object_object_add(o, "lqpn",
				       RP_HAS(p, ROCEPATH_A_PIN_LQPN) ?
				       json_object_new_int64(p->lqpn) : NULL);
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

/* Duplicate keys: sort an index by key and compare neighbours. */
static const struct rp_pin *sort_base;

static int key_cmp(const void *a, const void *b)
{
	const struct rp_pin *x = &sort_base[*(const size_t *)a];
	const struct rp_pin *y = &sort_base[*(const size_t *)b];
	int r;

	r = strcmp(x->ibdev, y->ibdev);
	if (r)
		return r;
	if (x->remote.family != y->remote.family)
		return x->remote.family - y->remote.family;
	r = memcmp(x->remote.raw, y->remote.raw, 16);
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
