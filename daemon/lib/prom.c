// SPDX-License-Identifier: GPL-2.0
/* Prometheus text format writer (see prom.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "prom.h"

static const char *type_name[] = {
	[RP_PROM_COUNTER] = "counter",
	[RP_PROM_GAUGE] = "gauge",
};

void rp_prom_begin(struct rp_prom *p, FILE *fp)
{
	memset(p, 0, sizeof(*p));
	p->fp = fp;
}

int rp_prom_end(struct rp_prom *p)
{
	if (!p->err && (fflush(p->fp) || ferror(p->fp)))
		p->err = -EIO;
	return p->err;
}

static bool first_ok(char c, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':');
}

static bool name_ok(const char *s, bool colon)
{
	if (!s || !first_ok(*s, colon))
		return false;
	for (s++; *s; s++)
		if (!first_ok(*s, colon) && !(*s >= '0' && *s <= '9'))
			return false;
	return true;
}

bool rp_prom_name_ok(const char *name)
{
	return name_ok(name, true) && strlen(name) < sizeof(((struct rp_prom *)0)->fam[0]);
}

/* Names starting with "__" are reserved for Prometheus itself. */
bool rp_prom_label_name_ok(const char *name)
{
	return name_ok(name, false) && strncmp(name, "__", 2);
}

void rp_prom_escape(FILE *fp, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else if (*s == '"' && label)
			fputs("\\\"", fp);
		else
			fputc(*s, fp);
	}
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

void rp_prom_family(struct rp_prom *p, const char *name, enum rp_prom_type t,
		    const char *help)
{
	if (p->err)
		return;
	if (!rp_prom_name_ok(name) ||
	    (t == RP_PROM_COUNTER) != has_suffix(name, "_total")) {
		p->err = -EINVAL;
		return;
	}
	for (size_t i = 0; i < p->nfam; i++) {
		if (!strcmp(p->fam[i], name)) {
			p->err = -EEXIST;
			return;
		}
	}
	if (p->nfam == RP_PROM_FAMILIES_MAX) {
		p->err = -ENOSPC;
		return;
	}
	strcpy(p->fam[p->nfam++], name);
	fprintf(p->fp, "# HELP %s ", name);
	rp_prom_escape(p->fp, help, false);
	fprintf(p->fp, "\n# TYPE %s %s\n", name, type_name[t]);
}

static bool sample_head(struct rp_prom *p, const struct rp_prom_label *l,
			size_t n)
{
	if (p->err)
		return false;
	if (!p->nfam) {
		p->err = -EINVAL;	/* a sample outside any family */
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!rp_prom_label_name_ok(l[i].name) || !l[i].value) {
			p->err = -EINVAL;
			return false;
		}
	}
	fputs(p->fam[p->nfam - 1], p->fp);
	for (size_t i = 0; i < n; i++) {
		fprintf(p->fp, "%s%s=\"", i ? "," : "{", l[i].name);
		rp_prom_escape(p->fp, l[i].value, true);
		fputc('"', p->fp);
	}
	if (n)
		fputc('}', p->fp);
	return true;
}

void rp_prom_u64(struct rp_prom *p, const struct rp_prom_label *labels,
		 size_t nlabels, uint64_t v)
{
	if (sample_head(p, labels, nlabels))
		fprintf(p->fp, " %" PRIu64 "\n", v);
}

void rp_prom_f64(struct rp_prom *p, const struct rp_prom_label *labels,
		 size_t nlabels, double v)
{
	if (!sample_head(p, labels, nlabels))
		return;
	if (isnan(v))
		fputs(" NaN\n", p->fp);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", p->fp);
	else
		fprintf(p->fp, " %.12g\n", v);
}
