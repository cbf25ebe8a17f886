// SPDX-License-Identifier: GPL-2.0
/*
 * The placement file parser, validated against the topology (hosts, rails)
 * and sorted canonically (jobs by id). Errors name the file, the JSON path
 * and the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_json.h"

void rp_place_free(struct rp_place *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->njobs; i++) {
		free(p->jobs[i].id);
		free(p->jobs[i].rails);
		free(p->jobs[i].hosts);
	}
	free(p->jobs);
	free(p);
}

int rp_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

int rp_job_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rp_job *)a)->id,
		      ((const struct rp_job *)b)->id);
}

static int parse_job(struct pctx *c, const struct rp_topo *t,
		     const struct rp_jv *j, const char *p, struct rp_job *job)
{
	const struct rp_jv *rails, *hosts, *e;
	const char *id, *pat;
	int64_t qps = 1;
	char q[320], num[24];
	size_t n;
	int ret;

	ret = rp_json_type(c, j, p, RP_JOBJECT);
	if (!ret)
		ret = rp_json_str(c, j, p, "id", true, &id);
	if (!ret)
		ret = rp_json_str(c, j, p, "pattern", true, &pat);
	if (!ret)
		ret = rp_json_int(c, j, p, "qps_per_connection", false, 1, 1024,
				  "qps_per_connection", &qps);
	if (!ret)
		ret = rp_json_member(c, j, p, "rails", RP_JARRAY, true, &rails);
	if (!ret)
		ret = rp_json_member(c, j, p, "hosts", RP_JARRAY, true, &hosts);
	if (ret)
		return ret;
	job->id = strdup(id);
	if (!job->id)
		return -ENOMEM;
	if (!strcmp(pat, "ring")) {
		job->pattern = RP_PAT_RING;
	} else if (!strcmp(pat, "alltoall")) {
		job->pattern = RP_PAT_ALLTOALL;
	} else {
		rp_json_pathf(q, sizeof(q), "%s.pattern", p);
		return rp_json_err(c, q, "unknown pattern \"%s\" (ring, alltoall)", pat);
	}
	job->qps = qps;
	n = rp_jv_len(rails);
	if (!n) {
		rp_json_pathf(q, sizeof(q), "%s.rails", p);
		return rp_json_err(c, q, "empty job \"%s\": no rails", id);
	}
	job->rails = calloc(n, sizeof(int));
	if (!job->rails)
		return -ENOMEM;
	job->nrails = n;
	e = rp_jv_first(rails);
	for (size_t i = 0; i < n; i++, e = rp_jv_next(e)) {
		rp_json_pathf(q, sizeof(q), "%s.rails[%zu]", p, i);
		ret = rp_json_type(c, e, q, RP_JINT);
		if (ret)
			return ret;
		if (rp_jv_int(e) < 0 || rp_jv_int(e) > 65535)
			return rp_json_err(c, q, "rail %s out of range (0..65535)",
					   rp_jv_itoa(e, num, sizeof(num)));
		job->rails[i] = e->i;
		for (size_t k = 0; k < i; k++)
			if (job->rails[k] == job->rails[i])
				return rp_json_err(c, q, "duplicate rail %d",
						   job->rails[i]);
	}
	qsort(job->rails, n, sizeof(int), rp_cmp_int);
	n = rp_jv_len(hosts);
	if (!n) {
		rp_json_pathf(q, sizeof(q), "%s.hosts", p);
		return rp_json_err(c, q, "empty job \"%s\": no hosts", id);
	}
	job->hosts = calloc(n, sizeof(int));
	if (!job->hosts)
		return -ENOMEM;
	job->nhosts = n;
	e = rp_jv_first(hosts);
	for (size_t i = 0; i < n; i++, e = rp_jv_next(e)) {
		int hi;

		rp_json_pathf(q, sizeof(q), "%s.hosts[%zu]", p, i);
		ret = rp_json_type(c, e, q, RP_JSTRING);
		if (ret)
			return ret;
		hi = rp_topo_find_host(t, e->s);
		if (hi < 0)
			return rp_json_err(c, q, "unknown host \"%s\"", e->s);
		for (size_t k = 0; k < i; k++)
			if (job->hosts[k] == hi)
				return rp_json_err(c, q, "duplicate host \"%s\" (also .hosts[%zu])",
						   t->hosts[hi].name, k);
		for (int r = 0; r < job->nrails; r++)
			if (rp_topo_host_nic(t, hi, job->rails[r]) < 0)
				return rp_json_err(c, q, "host \"%s\" has no nic on rail %d",
						   t->hosts[hi].name, job->rails[r]);
		job->hosts[i] = hi;
	}
	return 0;
}

int rp_place_json(struct pctx *c, const char *text, size_t len,
		  struct rp_jdoc *d, const struct rp_jv **jobs)
{
	int ret = rp_json_parse(c, text, len, d);

	if (!ret)
		ret = rp_json_type(c, d->v, "", RP_JOBJECT);
	if (!ret)
		ret = rp_json_member(c, d->v, "", "jobs", RP_JARRAY, true, jobs);
	if (ret)
		rp_jdoc_free(d);
	return ret;
}

int rp_place_parse(const char *name, const char *text, size_t len,
		   const struct rp_topo *t, struct rp_place **out,
		   struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	const struct rp_jv *jobs, *j;
	struct rp_place *pl;
	struct rp_jdoc d;
	char p[300];
	int ret;

	ret = rp_place_json(&c, text, len, &d, &jobs);
	if (ret)
		return ret;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return rp_json_end(&c, &d, -ENOMEM);
	pl->jobs = calloc(rp_jv_len(jobs) + 1, sizeof(*pl->jobs));
	if (!pl->jobs) {
		ret = -ENOMEM;
		goto out;
	}
	j = rp_jv_first(jobs);
	for (size_t i = 0; i < rp_jv_len(jobs); i++, j = rp_jv_next(j)) {
		rp_json_pathf(p, sizeof(p), ".jobs[%zu]", i);
		pl->njobs++;
		ret = parse_job(&c, t, j, p, &pl->jobs[i]);
		if (ret)
			goto out;
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(pl->jobs[k].id, pl->jobs[i].id)) {
				rp_json_pathf(p, sizeof(p), ".jobs[%zu].id", i);
				ret = rp_json_err(&c, p, "duplicate job id \"%s\" (also .jobs[%zu])",
						  pl->jobs[i].id, k);
				goto out;
			}
		}
	}
	qsort(pl->jobs, pl->njobs, sizeof(*pl->jobs), rp_job_cmp);
out:
	ret = rp_json_end(&c, &d, ret);
	if (ret) {
		rp_place_free(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

int rp_place_load(const char *path, const struct rp_topo *t,
		  struct rp_place **out, struct rp_err *err)
{
	size_t len;
	char *text;
	int ret;

	ret = rp_json_load_file(path, &text, &len, err);
	if (ret)
		return ret;
	ret = rp_place_parse(path, text, len, t, out, err);
	free(text);
	return ret;
}
