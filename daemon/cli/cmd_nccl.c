// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath nccl-env [job ID] [config FILE] [host NAME] [dscp N]
 *
 * The NCCL environment that matches this host's part of the plan and the
 * DCQCN profile, as shell exports (or one JSON object with -j):
 *   NCCL_IB_QPS_PER_CONNECTION  the job's qps_per_connection: each QP of a
 *                               connection gets one planned port; more QPs
 *                               than ports share paths (rocepathd warns)
 *   NCCL_IB_TC                  DSCP << 2 | ECT(0): ECN-capable, so switches
 *                               mark CE instead of dropping and DCQCN reacts
 *   NCCL_IB_GID_INDEX           the RoCEv2 GID of the rail addresses the
 *                               plan pins (the ports are planned per IP)
 *   NCCL_IB_HCA                 the devices of the job's rails on this host
 * The plan comes from the rocepathd configuration's topology and placement
 * files, exactly as rocepathd computes it. Inside a Slurm job the job
 * defaults to slurm-$SLURM_JOB_ID, the id rocepath-slurmctld gives it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "objs.h"
#include "parse.h"
#include "plan.h"
#include "rpd_config.h"

#define NCCL_DSCP_DEFAULT 26	/* the usual RoCE data class (TC 106) */
#define ECN_ECT0 2
#define MAX_RAILS 64

struct rail {
	int rail;
	char ip[INET6_ADDRSTRLEN];
	char ibdev[256];
	unsigned int port, gid;
};

static const char *sysfs_ib(void)
{
	const char *s = getenv("ROCEPATH_SYSFS_IB");	/* tests */

	return s && *s ? s : "/sys/class/infiniband";
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/*
 * The RoCEv2 GID whose address is @ip (IPv4 as ::ffff:a.b.c.d), over every
 * device and port in sysfs. 0, or -ENOENT.
 */
static int find_gid(struct rail *r)
{
	struct in6_addr want, got;
	char path[512], buf[128];
	struct dirent *de;
	DIR *d;

	if (inet_pton(AF_INET6, r->ip, &want) != 1) {
		struct in_addr v4;

		if (inet_pton(AF_INET, r->ip, &v4) != 1)
			return -EINVAL;
		memset(&want, 0, sizeof(want));
		want.s6_addr[10] = want.s6_addr[11] = 0xff;
		memcpy(&want.s6_addr[12], &v4, 4);
	}
	d = opendir(sysfs_ib());
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (unsigned int port = 1; port <= 2; port++) {
			for (unsigned int i = 0; i < 256; i++) {
				snprintf(path, sizeof(path), "%s/%s/ports/%u/gids/%u",
					 sysfs_ib(), de->d_name, port, i);
				if (read_line(path, buf, sizeof(buf)))
					break;
				/* sysfs prints the GID as 8 groups of 4 hex digits. */
				if (inet_pton(AF_INET6, buf, &got) != 1 ||
				    memcmp(&got, &want, sizeof(got)))
					continue;
				snprintf(path, sizeof(path),
					 "%s/%s/ports/%u/gid_attrs/types/%u",
					 sysfs_ib(), de->d_name, port, i);
				if (read_line(path, buf, sizeof(buf)) ||
				    strcmp(buf, "RoCE v2"))
					continue;
				snprintf(r->ibdev, sizeof(r->ibdev), "%s", de->d_name);
				r->port = port;
				r->gid = i;
				closedir(d);
				return 0;
			}
		}
	}
	closedir(d);
	return -ENOENT;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static int jint(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int(v) : -1;
}

/* Jobs in which @host sends, as a comma-separated list, for messages. */
static void host_jobs(json_object *lists[2], const char *host, char *buf,
		      size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; lists[l] && i < json_object_array_length(lists[l]); i++) {
			json_object *f = json_object_array_get_idx(lists[l], i);
			const char *job = jstr(f, "job");
			char quoted[300];

			if (strcmp(jstr(f, "src_host"), host))
				continue;
			snprintf(quoted, sizeof(quoted), "\"%s\"", job);
			if (strstr(buf, quoted))
				continue;
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? ", " : "", quoted);
		}
	}
}

static void warn_dcqcn(const struct rpd_config *cfg, const char *ibdev)
{
	static const char *const need[] = { "np_enable", "rp_enable" };
	struct rpd_dcqcn_values v;

	rpd_config_dcqcn_for(cfg, ibdev, &v);
	for (size_t i = 0; i < 2; i++) {
		int k = rp_dcqcn_param_find(need[i]);

		if (k >= 0 && (v.set & (1ULL << k)) && !v.val[k])
			fprintf(stderr, "Warning: the DCQCN profile sets %s 0 on %s: ECN marks will not slow the senders down.\n",
				need[i], ibdev);
	}
}

static int emit(const struct rp_cli *cli, const struct rail *r, size_t nr,
		unsigned int qps, unsigned int dscp)
{
	char hca[1024] = "=", val[32];
	size_t n = 1;

	for (size_t i = 0; i < nr; i++)
		n += snprintf(hca + n, n < sizeof(hca) ? sizeof(hca) - n : 0,
			      "%s%s:%u", i ? "," : "", r[i].ibdev, r[i].port);
	rp_out_open_object(cli->out, NULL);
	snprintf(val, sizeof(val), "%u", qps);
	rp_out_string(cli->out, "NCCL_IB_QPS_PER_CONNECTION",
		      "export NCCL_IB_QPS_PER_CONNECTION=%s\n", val);
	snprintf(val, sizeof(val), "%u", dscp << 2 | ECN_ECT0);
	rp_out_string(cli->out, "NCCL_IB_TC", "export NCCL_IB_TC=%s\n", val);
	snprintf(val, sizeof(val), "%u", r[0].gid);
	rp_out_string(cli->out, "NCCL_IB_GID_INDEX",
		      "export NCCL_IB_GID_INDEX=%s\n", val);
	rp_out_string(cli->out, "NCCL_IB_HCA", "export NCCL_IB_HCA=%s\n", hca);
	rp_out_close_object(cli->out);
	return 0;
}

static int nccl_env(const char *job, const char *job_from,
		    const struct rpd_config *cfg, const char *host,
		    unsigned int dscp, const struct rp_cli *cli)
{
	json_object *o = NULL, *lists[2] = { NULL, NULL };
	struct rail rails[MAX_RAILS];
	struct rp_plan *plan = NULL;
	char buf[1200], jobs[1024];
	unsigned int qps = 0;
	struct rp_err err;
	size_t nr = 0;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = rp_plan_from_files(cfg->topology, cfg->placement, &plan, &err);
	if (ret)
		return rp_error_ret(ret, "%s", rp_err_str(&err, buf, sizeof(buf)));
	ret = rp_plan_to_json(plan, host, &o);
	if (ret == -ENOENT) {
		ret = rp_error("host \"%s\" is not in the topology %s", host,
			       cfg->topology);
		goto out;
	}
	if (ret) {
		ret = rp_error_ret(ret, "plan: %s", strerror(-ret));
		goto out;
	}
	json_object_object_get_ex(o, "flows", &lists[0]);
	json_object_object_get_ex(o, "unplaced", &lists[1]);
	host_jobs(lists, host, jobs, sizeof(jobs));
	if (!job) {
		if (!jobs[0] || strchr(jobs, ',')) {
			ret = rp_error("host \"%s\" is in %s of %s: name one with \"job ID\"",
				       host, jobs[0] ? jobs : "no job", cfg->placement);
			goto out;
		}
		snprintf(buf, sizeof(buf), "%.*s", (int)strlen(jobs) - 2, jobs + 1);
		job = buf;
	}
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; lists[l] && i < json_object_array_length(lists[l]); i++) {
			json_object *f = json_object_array_get_idx(lists[l], i);
			int rail = jint(f, "rail"), qp = jint(f, "qp");
			size_t k;

			if (strcmp(jstr(f, "src_host"), host) || strcmp(jstr(f, "job"), job))
				continue;
			if (qp >= 0 && (unsigned int)qp + 1 > qps)
				qps = qp + 1;
			for (k = 0; k < nr && rails[k].rail != rail; k++)
				;
			if (k < nr || nr == MAX_RAILS)
				continue;
			memset(&rails[nr], 0, sizeof(rails[nr]));
			rails[nr].rail = rail;
			snprintf(rails[nr].ip, sizeof(rails[nr].ip), "%s", jstr(f, "src_ip"));
			nr++;
		}
	}
	if (!nr) {
		ret = rp_error("host \"%s\" sends nothing in job \"%s\"%s of %s (its jobs: %s)",
			       host, job, job_from, cfg->placement, jobs[0] ? jobs : "none");
		goto out;
	}
	for (size_t k = 0; k < nr; k++) {
		if (find_gid(&rails[k])) {
			ret = rp_error_ret(-ENOENT, "no RoCEv2 GID with address %s (host \"%s\" rail %d) on this machine",
					   rails[k].ip, host, rails[k].rail);
			goto out;
		}
		if (rails[k].gid != rails[0].gid)
			fprintf(stderr, "Warning: rail %d uses GID index %u, rail %d %u; NCCL_IB_GID_INDEX is one value for all devices.\n",
				rails[0].rail, rails[0].gid, rails[k].rail, rails[k].gid);
		warn_dcqcn(cfg, rails[k].ibdev);
	}
	ret = emit(cli, rails, nr, qps, dscp);
out:
	json_object_put(o);
	rp_plan_free(plan);
	return ret;
}

int cmd_nccl_env(int argc, char **argv, const struct rp_cli *cli)
{
	const char *job = NULL, *cfgpath = RPD_CONFIG_DEFAULT, *host = NULL;
	const char *slurm_id = getenv("SLURM_JOB_ID"), *job_from = "";
	uint32_t dscp = NCCL_DSCP_DEFAULT;
	char err[1024], slurm_job[64];
	struct rpd_config cfg;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		const char **dst = NULL;

		if (rp_matches(*argv, "job"))
			dst = &job;
		else if (rp_matches(*argv, "config"))
			dst = &cfgpath;
		else if (rp_matches(*argv, "host"))
			dst = &host;
		else if (!rp_matches(*argv, "dscp"))
			return cli_unknown("nccl-env", *argv);
		if (argc < 2)
			return cli_missing(*argv);
		if (!dst) {
			if (rp_parse_u32(argv[1], 63, &dscp))
				return rp_error("dscp \"%s\": expected 0..63", argv[1]);
			continue;
		}
		*dst = argv[1];
	}
	/* Inside a Slurm job: the id rocepath-slurmctld put in the placement. */
	if (!job && slurm_id && *slurm_id) {
		snprintf(slurm_job, sizeof(slurm_job), "slurm-%s", slurm_id);
		job = slurm_job;
		job_from = " (from SLURM_JOB_ID)";
	}
	ret = rpd_config_load(cfgpath, &cfg, err, sizeof(err));
	if (ret)
		return rp_error_ret(ret, "%s", err);
	ret = nccl_env(job, job_from, &cfg, host ? host : cfg.host, dscp, cli);
	rpd_config_free(&cfg);
	return ret;
}
