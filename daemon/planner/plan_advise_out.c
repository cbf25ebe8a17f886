// SPDX-License-Identifier: GPL-2.0
/*
 * The advisor's placement file: the input placement with the advised job
 * appended, written atomically so that a scheduler or rocepathd reading
 * the file never sees half of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "plan_advise.h"
#include "plan_json.h"

struct json_object *rp_advice_job_json(const struct rp_advice *a)
{
	json_object *j = json_object_new_object();
	json_object *rails = json_object_new_array();
	json_object *hosts = json_object_new_array();
	bool ok = j && rails && hosts;

	for (int i = 0; ok && i < a->nrails; i++)
		ok = !json_object_array_add(rails, json_object_new_int(a->rails[i]));
	for (int i = 0; ok && i < a->nhosts; i++)
		ok = !json_object_array_add(hosts,
					    json_object_new_string(a->hosts[i]));
	if (ok)
		ok = !json_object_object_add(j, "id",
					     json_object_new_string(a->job)) &&
		     !json_object_object_add(j, "pattern",
					     json_object_new_string(a->pattern)) &&
		     !json_object_object_add(j, "qps_per_connection",
					     json_object_new_int(a->qps));
	if (ok) {
		ok = !json_object_object_add(j, "rails", rails);
		rails = NULL;
	}
	if (ok) {
		ok = !json_object_object_add(j, "hosts", hosts);
		hosts = NULL;
	}
	json_object_put(rails);
	json_object_put(hosts);
	if (!ok) {
		json_object_put(j);
		return NULL;
	}
	return j;
}

int rp_advice_placement_text(const struct rp_advice *a, const char *name,
			     const char *place_text, size_t len, char **out,
			     struct rp_err *err)
{
	struct pctx c = { .file = name, .err = err };
	json_object *root, *jobs, *job;
	const struct rp_jv *jv;
	struct rp_jdoc d;
	const char *s;
	int ret;

	/* checked as the planner reads it; json-c's tree to print it again */
	ret = rp_place_json(&c, place_text, len, &d, &jv);
	if (ret)
		return ret;
	rp_jdoc_free(&d);
	ret = rp_json_tree(&c, place_text, len, &root);
	if (ret)
		return rp_json_end(&c, &d, ret);
	jobs = json_object_object_get(root, "jobs");
	ret = -ENOMEM;
	job = rp_advice_job_json(a);
	if (!job)
		goto out;
	if (json_object_array_add(jobs, job)) {
		json_object_put(job);
		goto out;
	}
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s || asprintf(out, "%s\n", s) < 0)
		goto out;
	ret = 0;
out:
	rp_json_tree_put(root);
	return rp_json_end(&c, &d, ret);
}

static int put_text(FILE *fp, void *text)
{
	return fputs(text, fp) < 0 ? -EIO : 0;
}

int rp_advice_save(const struct rp_advice *a, const char *place_path,
		   const char *out_path, struct rp_err *err)
{
	char *text = NULL, *res = NULL;
	size_t len;
	int ret;

	ret = rp_json_load_file(place_path, &text, &len, err);
	if (!ret)
		ret = rp_advice_placement_text(a, place_path, text, len, &res,
					       err);
	/* fsync'ed: the scheduler acts on the file once this returns */
	if (!ret) {
		ret = rp_write_atomic(out_path, true, put_text, res);
		if (ret)
			rp_err_set(err, out_path, "", 0, 0, "cannot write: %s",
				   strerror(-ret));
	}
	free(text);
	free(res);
	return ret;
}
