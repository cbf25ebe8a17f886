// SPDX-License-Identifier: GPL-2.0
/* rocepathd reconcile core: desired vs installed pins, DCQCN profile push. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rpd_log.h"
#include "reconcile.h"

void rpd_rec_init(struct rpd_reconciler *r, const struct rpd_backend *be,
		  const struct rpd_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->be = be;
	r->cfg = cfg;
	memset(&r->desired, 0, sizeof(r->desired));
}

void rpd_rec_free(struct rpd_reconciler *r)
{
	rp_pins_free(&r->desired);
	rp_devs_free(&r->devs);
}

void rpd_rec_plan(const struct rpd_reconciler *r, struct rpd_plan_out *o)
{
	memset(o, 0, sizeof(*o));
	o->ret = r->be->plan(r->be->ctx, r->cfg, &o->pins, o->summary,
			     sizeof(o->summary), o->err, sizeof(o->err));
}

int rpd_rec_apply(struct rpd_reconciler *r, struct rpd_plan_out *o)
{
	int changed, ret = o->ret;

	if (ret) {
		r->st.plans_failed++;
		snprintf(r->last_error, sizeof(r->last_error), "%s",
			 o->err[0] ? o->err : strerror(-ret));
		if (r->have_desired)
			rpd_err("plan failed, keeping the last good plan (%zu pins): %s",
				r->desired.n, r->last_error);
		else
			rpd_err("plan failed, no good plan yet (installed pins left as they are): %s",
				r->last_error);
		rp_pins_free(&o->pins);
		return ret < 0 ? ret : -EINVAL;
	}
	rp_pins_sort(&o->pins);
	changed = !r->have_desired || !rp_pins_equal(&o->pins, &r->desired);
	r->st.plans_ok++;
	rpd_info("plan for host %s: %zu pins%s%s%s", r->cfg->host, o->pins.n,
		 o->summary[0] ? " (" : "", o->summary, o->summary[0] ? ")" : "");
	rp_pins_free(&r->desired);
	r->desired = o->pins;	/* moved: o no longer owns them */
	memset(&o->pins, 0, sizeof(o->pins));
	r->have_desired = true;
	r->last_error[0] = '\0';
	if (r->be->plan_applied)
		r->be->plan_applied(r->be->ctx);
	return changed;
}

int rpd_rec_replan(struct rpd_reconciler *r)
{
	struct rpd_plan_out o;

	rpd_rec_plan(r, &o);
	return rpd_rec_apply(r, &o);
}

static void log_diff(const struct rp_pins *from, const struct rp_pins *to)
{
	char buf[512];
	size_t i = 0, j = 0;

	if (rpd_log_get_level() < RPD_LOG_DEBUG)
		return;
	while (i < from->n || j < to->n) {
		int c = i == from->n ? 1 : j == to->n ? -1 :
			rp_pin_cmp(&from->v[i], &to->v[j]);

		if (c < 0) {
			rp_pin_format(&from->v[i++], buf, sizeof(buf));
			rpd_dbg("pin - %s", buf);
		} else if (c > 0) {
			rp_pin_format(&to->v[j++], buf, sizeof(buf));
			rpd_dbg("pin + %s", buf);
		} else {
			i++;
			j++;
		}
	}
}

int rpd_rec_sync(struct rpd_reconciler *r)
{
	struct rp_pins installed = { 0 };
	uint32_t gen = 0, new_gen = 0;
	char err[512];
	int ret = 0;

	if (!r->have_desired)
		return 0;
	r->st.syncs++;
	for (int attempt = 0; attempt < 3; attempt++) {
		rp_pins_clear(&installed);
		ret = r->be->pin_dump(r->be->ctx, &installed, &gen);
		if (ret) {
			snprintf(r->last_error, sizeof(r->last_error),
				 "pin dump failed: %s", strerror(-ret));
			rpd_err("%s", r->last_error);
			goto out;
		}
		rp_pins_sort(&installed);
		if (rp_pins_equal(&installed, &r->desired)) {
			r->installed_gen = gen;
			r->st.pushes_skipped++;
			rpd_dbg("installed pins (%zu, generation %u) match the plan, nothing to push",
				installed.n, gen);
			ret = 0;
			goto out;
		}
		log_diff(&installed, &r->desired);
		err[0] = '\0';
		ret = r->be->pin_replace(r->be->ctx, &r->desired, gen, &new_gen,
					 err, sizeof(err));
		if (ret != -ESTALE)
			break;
		rpd_info("pin set changed under us (generation %u), retrying", gen);
	}
	if (ret) {
		r->st.push_failures++;
		snprintf(r->last_error, sizeof(r->last_error),
			 "pin replace of %zu pins failed: %s", r->desired.n,
			 err[0] ? err : strerror(-ret));
		rpd_err("%s; installed pins unchanged", r->last_error);
		goto out;
	}
	r->installed_gen = new_gen;
	r->st.pushes++;
	rpd_info("pins installed: %zu pins (was %zu), generation %u",
		 r->desired.n, installed.n, new_gen);
	ret = 1;
out:
	rp_pins_free(&installed);
	return ret;
}

static void format_values(const struct rpd_dcqcn_values *v, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < RP_DCQCN_NPARAMS && off < len; i++)
		if (v->set & (1ULL << i))
			off += snprintf(buf + off, len - off, "%s%s %u", off ? " " : "",
					rp_dcqcn_params[i].name, v->val[i]);
}

int rpd_rec_dcqcn_dev(struct rpd_reconciler *r, const struct rp_dev *dev)
{
	struct rpd_dcqcn_values v;
	char err[512] = "", vals[1024];
	int ret, n;

	if (!rpd_config_dcqcn_for(r->cfg, dev->ibdev, &v) || !v.set) {
		rpd_dbg("dcqcn: no profile for %s", dev->ibdev);
		return 0;
	}
	/* Two patterns may meet only here (rpd_config.c checks the rest). */
	if (rp_dcqcn_check(v.val, v.set, err, sizeof(err))) {
		r->st.dcqcn_failures++;
		snprintf(r->last_error, sizeof(r->last_error),
			 "dcqcn on %s not pushed: %s once the profiles that match it are merged",
			 dev->ibdev, err);
		rpd_err("%s", r->last_error);
		return -ERANGE;
	}
	format_values(&v, vals, sizeof(vals));
	ret = r->be->dcqcn_set(r->be->ctx, dev->ibdev, &v, err, sizeof(err));
	if (ret) {
		r->st.dcqcn_failures++;
		snprintf(r->last_error, sizeof(r->last_error),
			 "dcqcn set on %s failed: %s", dev->ibdev,
			 err[0] ? err : strerror(-ret));
		rpd_err("%s", r->last_error);
		return ret;
	}
	r->st.dcqcn_pushes++;
	rpd_info("dcqcn: %s (%s): %s", dev->ibdev,
		 dev->driver[0] ? dev->driver : "?", vals);
	if (r->be->mlx5_cc_write && (!strncmp(dev->driver, "mlx5", 4) ||
				     (!dev->driver[0] && !strncmp(dev->ibdev, "mlx5_", 5)))) {
		n = r->be->mlx5_cc_write(r->be->ctx, dev, &v);
		if (n < 0)
			rpd_warn("dcqcn: %s: mlx5 debugfs cc_params not written: %s",
				 dev->ibdev, strerror(-n));
	}
	return 1;
}

int rpd_rec_dcqcn(struct rpd_reconciler *r)
{
	struct rp_devs devs = { 0 };
	int ret, first = 0, count = 0;

	ret = r->be->dev_dump(r->be->ctx, &devs);
	if (ret) {
		snprintf(r->last_error, sizeof(r->last_error),
			 "dev dump failed: %s", strerror(-ret));
		rpd_err("%s", r->last_error);
		return ret;
	}
	for (size_t i = 0; i < devs.n; i++) {
		/* A device shows once per port; configure it once. */
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(devs.v[j].ibdev, devs.v[i].ibdev))
				seen = true;
		if (seen)
			continue;
		ret = rpd_rec_dcqcn_dev(r, &devs.v[i]);
		if (ret < 0 && !first)
			first = ret;
		else if (ret > 0)
			count++;
	}
	rp_devs_free(&r->devs);
	r->devs = devs;
	return first ? first : count;
}
