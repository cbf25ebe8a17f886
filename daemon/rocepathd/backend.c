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
#include "log.h"
#include "mlx5.h"
#include "nl.h"
#include "plan.h"

void rpd_kernel_init(struct rpd_kernel *k, bool dry_run)
{
	memset(k, 0, sizeof(*k));
	k->dry_run = dry_run;
	k->sysfs_ib = RP_SYSFS_IB;
	k->debugfs_mlx5 = RP_DEBUGFS_MLX5;
	rpd_pinset_init(&k->dry_installed);
}

void rpd_kernel_free(struct rpd_kernel *k)
{
	if (k->nl)
		rp_nl_close(k->nl);
	k->nl = NULL;
	rpd_pinset_free(&k->dry_installed);
}

static int pin_err(char *err, size_t errlen, size_t i, const char *what)
{
	snprintf(err, errlen, "pin [%zu]: %s", i, what);
	return -EINVAL;
}

static int get_qpn(json_object *o, const char *key, uint32_t *out)
{
	json_object *v;
	int64_t x;

	*out = RPD_QPN_NONE;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	x = json_object_get_int64(v);
	if (x < 0 || x > ROCEPATH_QPN_MAX)
		return -ERANGE;
	*out = x;
	return 0;
}

int rpd_pins_from_json(json_object *arr, struct rpd_pinset *out, char *err,
		       size_t errlen)
{
	size_t n;

	if (!json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "pins: expected an array");
		return -EINVAL;
	}
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		struct rpd_pin p;
		size_t ns;
		int ret;

		memset(&p, 0, sizeof(p));
		if (!json_object_is_type(o, json_type_object))
			return pin_err(err, errlen, i, "expected an object");
		if (json_object_object_get_ex(o, "dev", &v) && v) {
			const char *s = json_object_get_string(v);

			if (!json_object_is_type(v, json_type_string) ||
			    strlen(s) >= sizeof(p.ibdev))
				return pin_err(err, errlen, i, "bad dev");
			strcpy(p.ibdev, s);
		}
		if (!json_object_object_get_ex(o, "remote", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    rpd_pin_set_remote(&p, json_object_get_string(v)))
			return pin_err(err, errlen, i, "bad or missing remote");
		if (!json_object_object_get_ex(o, "sports", &v) ||
		    !json_object_is_type(v, json_type_array))
			return pin_err(err, errlen, i, "bad or missing sports");
		ns = json_object_array_length(v);
		if (!ns || ns > RPD_PIN_MAX_SPORTS)
			return pin_err(err, errlen, i, "sports: 1..64 ports expected");
		for (size_t j = 0; j < ns; j++) {
			json_object *s = json_object_array_get_idx(v, j);
			int64_t x = json_object_get_int64(s);

			if (!json_object_is_type(s, json_type_int) ||
			    x < ROCEPATH_SPORT_MIN || x > ROCEPATH_SPORT_MAX)
				return pin_err(err, errlen, i, "sport out of 49152..65535");
			p.sports[j] = x;
		}
		p.n_sports = ns;
		if (get_qpn(o, "rqpn", &p.rqpn) || get_qpn(o, "lqpn", &p.lqpn))
			return pin_err(err, errlen, i, "bad rqpn or lqpn");
		ret = rpd_pinset_add(out, &p);
		if (ret)
			return ret;
	}
	return 0;
}

static int from_lib_pin(const struct rp_pin *lp, struct rpd_pin *p);

int rpd_plan_files(const struct rp_config *cfg, struct rpd_pinset *out,
		   char *summary, size_t slen, char *err, size_t errlen)
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
	for (size_t i = 0; i < pins.n && !ret; i++) {
		struct rpd_pin p;

		ret = from_lib_pin(&pins.v[i], &p);
		if (!ret)
			ret = rpd_pinset_add(out, &p);
		if (ret)
			snprintf(err, errlen, "host pins for %s: pin [%zu]: %s",
				 cfg->host, i, strerror(-ret));
	}
	if (ret)
		goto out;
	s = rp_plan_summary(plan);
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

static int be_plan(void *ctx, const struct rp_config *cfg, struct rpd_pinset *out,
		   char *summary, size_t slen, char *err, size_t errlen)
{
	(void)ctx;
	return rpd_plan_files(cfg, out, summary, slen, err, errlen);
}

static void to_lib_pin(const struct rpd_pin *p, struct rp_pin *lp)
{
	memset(lp, 0, sizeof(*lp));
	strcpy(lp->ibdev, p->ibdev);
	if (p->ibdev[0])
		RP_SET(lp, ROCEPATH_A_PIN_IBDEV);
	lp->remote.family = p->family;
	memcpy(lp->remote.raw, p->remote, p->family == AF_INET ? 4 : 16);
	RP_SET(lp, ROCEPATH_A_PIN_REMOTE);
	lp->sports = (uint16_t *)p->sports;	/* borrowed, never freed */
	lp->nsports = p->n_sports;
	RP_SET(lp, ROCEPATH_A_PIN_SPORT);
	if (p->rqpn != RPD_QPN_NONE) {
		lp->rqpn = p->rqpn;
		RP_SET(lp, ROCEPATH_A_PIN_RQPN);
	}
	if (p->lqpn != RPD_QPN_NONE) {
		lp->lqpn = p->lqpn;
		RP_SET(lp, ROCEPATH_A_PIN_LQPN);
	}
}

static int from_lib_pin(const struct rp_pin *lp, struct rpd_pin *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->ibdev, sizeof(p->ibdev), "%s", lp->ibdev);
	p->family = lp->remote.family;
	memcpy(p->remote, lp->remote.raw, sizeof(p->remote));
	if (lp->nsports > RPD_PIN_MAX_SPORTS)
		return -E2BIG;
	p->n_sports = lp->nsports;
	if (lp->nsports)
		memcpy(p->sports, lp->sports, lp->nsports * sizeof(p->sports[0]));
	p->rqpn = RP_HAS(lp, ROCEPATH_A_PIN_RQPN) ? lp->rqpn : RPD_QPN_NONE;
	p->lqpn = RP_HAS(lp, ROCEPATH_A_PIN_LQPN) ? lp->lqpn : RPD_QPN_NONE;
	return 0;
}

static int be_pin_dump(void *ctx, struct rpd_pinset *out, uint32_t *gen)
{
	struct rpd_kernel *k = ctx;
	struct rp_pins pins = { 0 };
	int ret;

	if (k->dry_run) {
		*gen = k->dry_gen;
		return rpd_pinset_copy(out, &k->dry_installed);
	}
	if (!k->nl)
		return -ENOENT;
	ret = rp_pin_dump(k->nl, &pins);
	if (ret)
		return ret;
	*gen = pins.generation;
	for (size_t i = 0; i < pins.n && !ret; i++) {
		struct rpd_pin p;

		ret = from_lib_pin(&pins.v[i], &p);
		if (!ret)
			ret = rpd_pinset_add(out, &p);
	}
	rp_pins_free(&pins);
	return ret;
}

static int be_pin_replace(void *ctx, const struct rpd_pinset *set,
			  uint32_t expect_gen, uint32_t *new_gen, char *err,
			  size_t errlen)
{
	struct rpd_kernel *k = ctx;
	struct rp_pin *lp;
	int ret;

	if (k->dry_run) {
		char buf[512];

		for (size_t i = 0; i < set->n; i++) {
			rpd_pin_format(&set->pins[i], buf, sizeof(buf));
			rpd_info("dry-run: pin %s", buf);
		}
		*new_gen = ++k->dry_gen;
		return rpd_pinset_copy(&k->dry_installed, set);
	}
	if (!k->nl)
		return -ENOENT;
	lp = calloc(set->n ? set->n : 1, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++)
		to_lib_pin(&set->pins[i], &lp[i]);
	ret = rp_pin_replace(k->nl, lp, set->n, expect_gen ? &expect_gen : NULL,
			     new_gen);
	if (ret && rp_nl_errmsg(k->nl))
		snprintf(err, errlen, "%s", rp_nl_errmsg(k->nl));
	free(lp);	/* sports were borrowed */
	return ret;
}

static int be_dev_dump(void *ctx, struct rpd_devlist *out)
{
	struct rpd_kernel *k = ctx;
	struct rp_devs devs = { 0 };
	int ret;

	out->devs = NULL;
	out->n = 0;
	if (k->dry_run)
		return 0;
	if (!k->nl)
		return -ENOENT;
	ret = rp_dev_dump(k->nl, NULL, &devs);
	if (ret)
		return ret;
	out->devs = calloc(devs.n ? devs.n : 1, sizeof(*out->devs));
	if (!out->devs) {
		rp_devs_free(&devs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < devs.n; i++) {
		struct rpd_dev *d = &out->devs[i];

		snprintf(d->ibdev, sizeof(d->ibdev), "%s", devs.v[i].ibdev);
		snprintf(d->netdev, sizeof(d->netdev), "%s", devs.v[i].netdev);
		snprintf(d->driver, sizeof(d->driver), "%s", devs.v[i].driver);
		d->soft = devs.v[i].soft;
	}
	out->n = devs.n;
	rp_devs_free(&devs);
	return 0;
}

static int be_dcqcn_set(void *ctx, const char *ibdev, const struct rp_dcqcn_values *v,
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
	for (size_t i = 0; i < rp_dcqcn_nparams; i++) {
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

static int be_mlx5(void *ctx, const struct rpd_dev *dev, const struct rp_dcqcn_values *v)
{
	struct rpd_kernel *k = ctx;

	if (k->dry_run)
		return 0;
	return rp_mlx5_cc_write(k->sysfs_ib, k->debugfs_mlx5, dev->ibdev, v);
}

void rpd_backend_init(struct rp_backend *be, struct rpd_kernel *k)
{
	*be = (struct rp_backend){
		.ctx = k,
		.plan = be_plan,
		.pin_dump = be_pin_dump,
		.pin_replace = be_pin_replace,
		.dev_dump = be_dev_dump,
		.dcqcn_set = be_dcqcn_set,
		.mlx5_cc_write = be_mlx5,
	};
}
