// SPDX-License-Identifier: GPL-2.0
/* rocepathd backend: planner + netlink library adapters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <json-c/json.h>
#include <linux/rocepath.h>

#include "backend.h"
#include "rpd_log.h"
#include "mlx5.h"
#include "rp_netlink.h"
#include "plan.h"

void rpd_kernel_init(struct rpd_kernel *k, bool dry_run)
{
	memset(k, 0, sizeof(*k));
	k->dry_run = dry_run;
	k->sysfs_ib = RPD_SYSFS_IB;
	k->debugfs_mlx5 = RPD_DEBUGFS_MLX5;
	memset(&k->dry_installed, 0, sizeof(k->dry_installed));
}

void rpd_kernel_free(struct rpd_kernel *k)
{
	if (k->nl)
		rp_nl_close(k->nl);
	k->nl = NULL;
	rp_pins_free(&k->dry_installed);
}

int rpd_plan_files(const struct rpd_config *cfg, struct rp_pins *out,
		   char *summary, size_t slen, char *err, size_t errlen)
{
	return rpd_plan_files_sum(cfg, out, NULL, summary, slen, err, errlen);
}

int rpd_plan_files_sum(const struct rpd_config *cfg, struct rp_pins *out,
		       struct rp_plan_summary *sum, char *summary, size_t slen,
		       char *err, size_t errlen)
{
	const struct rp_plan_summary *s;
	struct rp_pins pins = { 0 };
	struct rp_plan *plan = NULL;
	struct rp_err perr;
	int ret;

	memset(&perr, 0, sizeof(perr));
	ret = rp_plan_from_files(cfg->topology, cfg->placement, &plan, &perr);
	if (ret) {
		rp_err_str(&perr, err, errlen);
		if (!err[0])
			snprintf(err, errlen, "planning %s + %s: %s", cfg->topology,
				 cfg->placement, strerror(-ret));
		return ret;
	}
	ret = rp_plan_host_pins(plan, cfg->host, &pins);
	if (ret) {
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s: host \"%s\" is not in the topology",
				 cfg->topology, cfg->host);
		else
			snprintf(err, errlen, "host pins for %s: %s", cfg->host,
				 strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < pins.n && !ret; i++)
		ret = rp_pins_add(out, &pins.v[i]);
	if (ret) {
		snprintf(err, errlen, "host pins for %s: %s", cfg->host,
			 strerror(-ret));
		goto out;
	}
	s = rp_plan_summary(plan);
	if (s && sum)
		*sum = *s;
	if (s && summary)
		snprintf(summary, slen,
			 "fabric: %u flows, %u unplaced, max link load %u flows, lower bound %u, ECMP baseline %u",
			 s->flows, s->unplaced, s->max_link_flows, s->lower_bound,
			 s->ecmp_max_link_flows);
out:
	rp_pins_free(&pins);
	rp_plan_free(plan);
	return ret;
}

static int be_plan(void *ctx, const struct rpd_config *cfg, struct rp_pins *out,
		   char *summary, size_t slen, char *err, size_t errlen)
{
	struct rpd_kernel *k = ctx;
	struct rp_plan_summary sum = { 0 };
	int ret;

	ret = rpd_plan_files_sum(cfg, out, &sum, summary, slen, err, errlen);
	if (!ret)
		k->plan_sum = sum;
	return ret;
}

static int be_pin_dump(void *ctx, struct rp_pins *out, uint32_t *gen)
{
	struct rpd_kernel *k = ctx;
	int ret;

	if (k->dry_run) {
		*gen = k->dry_gen;
		return rp_pins_copy(out, &k->dry_installed);
	}
	if (!k->nl)
		return -ENOENT;
	rp_pins_free(out);
	ret = rp_pin_dump(k->nl, out);
	if (!ret)
		*gen = out->generation;
	return ret;
}

static int be_pin_replace(void *ctx, const struct rp_pins *set,
			  uint32_t expect_gen, uint32_t *new_gen, char *err,
			  size_t errlen)
{
	struct rpd_kernel *k = ctx;
	int ret;

	if (k->dry_run) {
		char buf[512];

		for (size_t i = 0; i < set->n; i++) {
			rp_pin_format(&set->v[i], buf, sizeof(buf));
			rpd_info("dry-run: pin %s", buf);
		}
		*new_gen = ++k->dry_gen;
		return rp_pins_copy(&k->dry_installed, set);
	}
	if (!k->nl)
		return -ENOENT;
	ret = rp_pin_replace(k->nl, set->v, set->n, expect_gen ? &expect_gen : NULL,
			     new_gen);
	if (ret && rp_nl_errmsg(k->nl))
		snprintf(err, errlen, "%s", rp_nl_errmsg(k->nl));
	return ret;
}

static int be_dev_dump(void *ctx, struct rp_devs *out)
{
	struct rpd_kernel *k = ctx;

	rp_devs_free(out);
	if (k->dry_run)
		return 0;
	if (!k->nl)
		return -ENOENT;
	return rp_dev_dump(k->nl, NULL, out);
}

static int be_dcqcn_set(void *ctx, const char *ibdev, const struct rpd_dcqcn_values *v,
			char *err, size_t errlen)
{
	struct rpd_kernel *k = ctx;
	struct rp_dcqcn d;
	int ret;

	if (k->dry_run)
		return 0;
	if (!k->nl)
		return -ENOENT;
	memset(&d, 0, sizeof(d));
	snprintf(d.ibdev, sizeof(d.ibdev), "%s", ibdev);
	RP_SET(&d, ROCEPATH_A_DCQCN_IBDEV);
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++) {
		int attr = rp_dcqcn_params[i].attr;

		if (!(v->set & (1ULL << i)))
			continue;
		d.val[attr] = v->val[i];
		RP_SET(&d, attr);
	}
	ret = rp_dcqcn_set(k->nl, &d);
	if (ret && rp_nl_errmsg(k->nl))
		snprintf(err, errlen, "%s", rp_nl_errmsg(k->nl));
	return ret;
}

static int be_mlx5(void *ctx, const struct rp_dev *dev, const struct rpd_dcqcn_values *v)
{
	struct rpd_kernel *k = ctx;

	if (k->dry_run)
		return 0;
	return rpd_mlx5_cc_write(k->sysfs_ib, k->debugfs_mlx5, dev->ibdev, v);
}

void rpd_backend_init(struct rpd_backend *be, struct rpd_kernel *k)
{
	*be = (struct rpd_backend){
		.ctx = k,
		.plan = be_plan,
		.pin_dump = be_pin_dump,
		.pin_replace = be_pin_replace,
		.dev_dump = be_dev_dump,
		.dcqcn_set = be_dcqcn_set,
		.mlx5_cc_write = be_mlx5,
	};
}
