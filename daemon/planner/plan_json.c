// SPDX-License-Identifier: GPL-2.0
/*
 * JSON helpers of the cluster file parsers: errors with file, JSON path and
 * reason, whole-file reads, the parse (compact, or json-c's for what the
 * compact reader declines), typed member access.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_json.h"

void rp_err_set(struct rp_err *err, const char *file, const char *path,
		int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *rp_err_str(const struct rp_err *err, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (err->file[0])
		n += snprintf(buf + n, len - n, "%s", err->file);
	if (n < len && err->line)
		n += snprintf(buf + n, len - n, ":%d:%d", err->line, err->col);
	if (n < len && n)
		n += snprintf(buf + n, len - n, ": ");
	if (n < len && err->path[0])
		n += snprintf(buf + n, len - n, "%s: ", err->path);
	if (n < len)
		snprintf(buf + n, len - n, "%s", err->msg);
	return buf;
}

int rp_read_file(const char *path, char **text, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int e = -errno;

			if (e == -EINTR)
				continue;
			free(buf);
			close(fd);
			return e;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

/* Appends s[0..sl) to the path buf[0..*n), cut at len - 1 bytes. */
static void path_put(char *buf, size_t len, size_t *n, const char *s,
		     size_t sl)
{
	if (sl > len - 1 - *n)
		sl = len - 1 - *n;
	memcpy(buf + *n, s, sl);
	*n += sl;
}

/* The decimal of neg ? -u : u, ending at end; its start. */
static char *path_dec(char *end, unsigned long long u, bool neg)
{
	do {
		*--end = '0' + u % 10;
		u /= 10;
	} while (u);
	if (neg)
		*--end = '-';
	return end;
}

/*
 * The parsers make the path of every element before they know whether an
 * error will print it, 90,000 of them for 32k GPUs: %s, %d and %zu, which
 * are all they ask for, go without printf's machinery. Anything else is
 * vsnprintf()'s, to the same bytes.
 */
void rp_json_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;

	if (!len)
		return;
	va_start(ap, fmt);
	for (const char *f = fmt; *f;) {
		const char *e = strchrnul(f, '%'), *s;
		char num[24];

		path_put(buf, len, &n, f, e - f);
		if (!*e)
			break;
		if (e[1] == 's') {
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			path_put(buf, len, &n, s, strlen(s));
			f = e + 2;
		} else if (e[1] == 'd') {
			int v = va_arg(ap, int);

			s = path_dec(num + sizeof(num), v < 0 ?
				     -(unsigned long long)v : (unsigned long long)v,
				     v < 0);
			path_put(buf, len, &n, s, num + sizeof(num) - s);
			f = e + 2;
		} else if (e[1] == 'z' && e[2] == 'u') {
			s = path_dec(num + sizeof(num), va_arg(ap, size_t), false);
			path_put(buf, len, &n, s, num + sizeof(num) - s);
			f = e + 3;
		} else {
			va_end(ap);
			va_start(ap, fmt);
			vsnprintf(buf, len, fmt, ap);
			va_end(ap);
			return;
		}
	}
	buf[n] = 0;
	va_end(ap);
}

int rp_json_end(struct pctx *c, struct rp_jdoc *d, int ret)
{
	rp_jdoc_free(d);
	if (ret == -ENOMEM)
		rp_err_set(c->err, c->file, "", 0, 0, "out of memory");
	return ret;
}

int rp_json_err(struct pctx *c, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp_err_set(c->err, c->file, path, 0, 0, "%s", msg);
	return -EINVAL;
}

int rp_json_parse(struct pctx *c, const char *text, size_t len,
		  struct rp_jdoc *d)
{
	int ret = rp_jdoc_parse(text, len, d);

	if (ret != -EINVAL)
		return ret;
	rp_jdoc_free(d);
	return rp_json_parse_c(c, text, len, d);
}

int rp_json_type(struct pctx *c, const struct rp_jv *v, const char *path,
		 enum rp_jtype type)
{
	static const char *const tn[] = {
		[RP_JNULL] = "null", [RP_JBOOL] = "a boolean",
		[RP_JDOUBLE] = "a number", [RP_JINT] = "an integer",
		[RP_JOBJECT] = "an object", [RP_JARRAY] = "an array",
		[RP_JSTRING] = "a string",
	};

	if (v->type == type)
		return 0;
	return rp_json_err(c, path, "expected %s", tn[type]);
}

/* Typed member access; *v NULL when absent and optional. */
int rp_json_member(struct pctx *c, const struct rp_jv *obj, const char *opath,
		   const char *key, enum rp_jtype type, bool required,
		   const struct rp_jv **v)
{
	char p[300];

	/* paths are formatted only for errors: members are read by the 100,000 */
	*v = rp_jv_get(obj, key);
	if (!*v || (*v)->type == RP_JNULL) {
		*v = NULL;
		if (required)
			return rp_json_err(c, opath, "missing \"%s\"", key);
		return 0;
	}
	if ((*v)->type != type) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_type(c, *v, p, type);
	}
	return 0;
}

int rp_json_int(struct pctx *c, const struct rp_jv *obj, const char *opath,
		const char *key, bool required, int64_t lo, int64_t hi,
		const char *what, int64_t *out)
{
	const struct rp_jv *v;
	char p[300], n[24];
	int64_t x;
	int ret;

	ret = rp_json_member(c, obj, opath, key, RP_JINT, required, &v);
	if (ret || !v)
		return ret;
	x = rp_jv_int(v);
	if (x < lo || x > hi) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_err(c, p, "%s %s out of range (%lld..%lld)", what,
				   rp_jv_itoa(v, n, sizeof(n)), (long long)lo,
				   (long long)hi);
	}
	*out = x;
	return 0;
}

int rp_json_str(struct pctx *c, const struct rp_jv *obj, const char *opath,
		const char *key, bool required, const char **out)
{
	const struct rp_jv *v;
	char p[300];
	int ret;

	ret = rp_json_member(c, obj, opath, key, RP_JSTRING, required, &v);
	if (ret || !v)
		return ret;
	*out = v->s;
	if (!**out) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_err(c, p, "empty string");
	}
	return 0;
}

int rp_json_load_file(const char *path, char **text, size_t *len,
		      struct rp_err *err)
{
	int ret = rp_read_file(path, text, len);

	if (ret)
		rp_err_set(err, path, "", 0, 0, "cannot read: %s",
			   strerror(-ret));
	return ret;
}
