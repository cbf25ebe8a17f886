// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd reconcile logic against a fake backend (no netlink): the
 * desired/installed diff, no push when equal, the last good plan kept on
 * bad input, DCQCN profiles per device and the mlx5 debugfs writer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#include "rpd_config.h"
#include "objs.h"
#include "rpd_log.h"
#include "mlx5.h"
#include "reconcile.h"

struct fake {
	/* plan */
	int plan_ret;
	struct rp_pins plan;
	int plans;
	/* kernel */
	struct rp_pins installed;
	uint32_t gen;
	int dumps, replaces, replace_ret, stale_left;
	uint32_t last_expect;
	int dump_ret;
	/* devices */
	struct rp_dev devs[4];
	size_t ndevs;
	char set_dev[8][RPD_DEV_NAME_LEN];
	struct rpd_dcqcn_values set_val[8];
	int nset, dcqcn_ret, mlx5_calls;
};

static int f_plan(void *ctx, const struct rpd_config *cfg, struct rp_pins *out,
		  char *summary, size_t slen, char *err, size_t errlen)
{
	struct fake *f = ctx;

	f->plans++;
	if (f->plan_ret) {
		snprintf(err, errlen, "%s: bad placement", cfg->placement);
		return f->plan_ret;
	}
	snprintf(summary, slen, "fake");
	return rp_pins_copy(out, &f->plan);
}

static int f_dump(void *ctx, struct rp_pins *out, uint32_t *gen)
{
	struct fake *f = ctx;

	f->dumps++;
	if (f->dump_ret)
		return f->dump_ret;
	*gen = f->gen;
	return rp_pins_copy(out, &f->installed);
}

static int f_replace(void *ctx, const struct rp_pins *set, uint32_t expect,
		     uint32_t *new_gen, char *err, size_t errlen)
{
	struct fake *f = ctx;

	f->replaces++;
	f->last_expect = expect;
	if (f->stale_left) {
		f->stale_left--;
		f->gen++;	/* somebody else changed it */
		return -ESTALE;
	}
	if (f->replace_ret) {
		snprintf(err, errlen, "too many rules");
		return f->replace_ret;
	}
	if (expect && expect != f->gen)
		return -ESTALE;
	if (rp_pins_copy(&f->installed, set))
		return -ENOMEM;
	*new_gen = ++f->gen;
	return 0;
}

static int f_dev_dump(void *ctx, struct rp_devs *out)
{
	struct fake *f = ctx;

	out->v = calloc(f->ndevs ? f->ndevs : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	memcpy(out->v, f->devs, f->ndevs * sizeof(*out->v));
	out->n = out->cap = f->ndevs;
	return 0;
}

static int f_dcqcn_set(void *ctx, const char *ibdev, const struct rpd_dcqcn_values *v,
		       char *err, size_t errlen)
{
	struct fake *f = ctx;

	if (f->dcqcn_ret && !strcmp(ibdev, "bad0")) {
		snprintf(err, errlen, "value out of range");
		return f->dcqcn_ret;
	}
	snprintf(f->set_dev[f->nset], RPD_DEV_NAME_LEN, "%s", ibdev);
	f->set_val[f->nset++] = *v;
	return 0;
}

static int f_mlx5(void *ctx, const struct rp_dev *dev, const struct rpd_dcqcn_values *v)
{
	struct fake *f = ctx;

	f->mlx5_calls++;
	return 1;
}

/* A path-set pin; its ports are malloc'ed (rp_pins_push takes them). */
static struct rp_pin mkpin(const char *addr, int n, const uint16_t *ports)
{
	struct rp_pin p;

	memset(&p, 0, sizeof(p));
	if (rp_addr_parse(addr, &p.remote) || rp_pin_set_sports(&p, ports, n))
		abort();
	RP_SET(&p, ROCEPATH_A_PIN_REMOTE);
	return p;
}

FIXTURE(rec) {
	struct fake f;
	struct rpd_backend be;
	struct rpd_config cfg;
	struct rpd_reconciler r;
};

FIXTURE_SETUP(rec)
{
	static const uint16_t a[] = { 49153, 49160 }, b[] = { 50000 };
	char err[256];
	struct rp_pin p;

	rpd_log_set_level(RPD_LOG_DEBUG);
	memset(&self->f, 0, sizeof(self->f));
	self->be = (struct rpd_backend){
		.ctx = &self->f, .plan = f_plan, .pin_dump = f_dump,
		.pin_replace = f_replace, .dev_dump = f_dev_dump,
		.dcqcn_set = f_dcqcn_set, .mlx5_cc_write = f_mlx5,
	};
	ASSERT_EQ(0, rpd_config_parse(
		"{\"topology\": \"/t.json\", \"placement\": \"/p.json\", \"host\": \"h1\","
		" \"dcqcn\": {\"*\": {\"np_enable\": 1, \"rp_enable\": 1},"
		"            \"mlx5_0\": {\"rp_ai_rate\": 5}}}",
		"test.conf", &self->cfg, err, sizeof(err)));
	p = mkpin("192.0.2.2", 2, a);
	ASSERT_EQ(0, rp_pins_push(&self->f.plan, &p));
	p = mkpin("2001:db8::3", 1, b);
	strcpy(p.ibdev, "rxe0");
	RP_SET(&p, ROCEPATH_A_PIN_IBDEV);
	ASSERT_EQ(0, rp_pins_push(&self->f.plan, &p));
	self->f.gen = 7;
	rpd_rec_init(&self->r, &self->be, &self->cfg);
}

FIXTURE_TEARDOWN(rec)
{
	rpd_rec_free(&self->r);
	rp_pins_free(&self->f.plan);
	rp_pins_free(&self->f.installed);
	rpd_config_free(&self->cfg);
}

/* First plan and sync push the plan with the dumped generation. */
TEST_F(rec, first_push)
{
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	ASSERT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(1, self->f.replaces);
	EXPECT_EQ(7, self->f.last_expect);
	EXPECT_EQ(8, self->r.installed_gen);
	EXPECT_EQ(2, self->f.installed.n);
	rp_pins_sort(&self->f.installed);
	EXPECT_TRUE(rp_pins_equal(&self->f.installed, &self->r.desired));
}

/* Installed equal to the plan (in another order) means no push. */
TEST_F(rec, no_push_when_equal)
{
	struct rp_pin *p;

	/* Same pins, reversed order and reversed ports. */
	ASSERT_EQ(0, rp_pins_add(&self->f.installed, &self->f.plan.v[1]));
	ASSERT_EQ(0, rp_pins_add(&self->f.installed, &self->f.plan.v[0]));
	p = &self->f.installed.v[1];
	p->sports[0] = 49160;
	p->sports[1] = 49153;

	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.replaces);
	EXPECT_EQ(1, self->r.st.pushes_skipped);
	EXPECT_EQ(7, self->r.installed_gen);
	/* A second sync with nothing changed does not push either. */
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.replaces);
}

/* A different installed set (extra pin, changed port) is replaced. */
TEST_F(rec, push_on_diff)
{
	static const uint16_t x[] = { 60000 };
	struct rp_pin p = mkpin("192.0.2.9", 1, x);

	ASSERT_EQ(0, rp_pins_copy(&self->f.installed, &self->f.plan));
	ASSERT_EQ(0, rp_pins_push(&self->f.installed, &p));
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(2, self->f.installed.n);

	/* Now a port differs. */
	self->f.installed.v[0].sports[0] = 65000;
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(2, self->f.replaces);
	rp_pins_sort(&self->f.installed);
	EXPECT_TRUE(rp_pins_equal(&self->f.installed, &self->r.desired));
}

/* An exact rule (rqpn) differs from a path set to the same remote. */
TEST_F(rec, exact_rule_is_distinct)
{
	ASSERT_EQ(0, rp_pins_copy(&self->f.installed, &self->f.plan));
	self->f.installed.v[0].rqpn = 17;
	RP_SET(&self->f.installed.v[0], ROCEPATH_A_PIN_RQPN);
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
}

/* A bad new plan keeps the last good one installed and untouched. */
TEST_F(rec, bad_plan_keeps_last_good)
{
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	ASSERT_EQ(1, rpd_rec_sync(&self->r));

	self->f.plan_ret = -EINVAL;
	EXPECT_EQ(-EINVAL, rpd_rec_replan(&self->r));
	EXPECT_TRUE(self->r.have_desired);
	EXPECT_EQ(2, self->r.desired.n);
	EXPECT_NE(NULL, strstr(self->r.last_error, "bad placement"));
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(1, self->f.replaces);
	EXPECT_EQ(2, self->f.installed.n);
	EXPECT_EQ(1, self->r.st.plans_failed);

	/* A fixed file plans again; same pins: no push. */
	self->f.plan_ret = 0;
	EXPECT_EQ(0, rpd_rec_replan(&self->r));
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(1, self->f.replaces);
	EXPECT_STREQ("", self->r.last_error);
}

/* Before any good plan, the installed pins (from a previous run) stay. */
TEST_F(rec, no_good_plan_leaves_installed)
{
	ASSERT_EQ(0, rp_pins_copy(&self->f.installed, &self->f.plan));
	self->f.plan_ret = -ENOENT;
	EXPECT_EQ(-ENOENT, rpd_rec_replan(&self->r));
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.dumps);
	EXPECT_EQ(0, self->f.replaces);
	EXPECT_EQ(2, self->f.installed.n);
}

/* A plan with no flows for this host empties the installed set. */
TEST_F(rec, empty_plan_flushes)
{
	ASSERT_EQ(0, rp_pins_copy(&self->f.installed, &self->f.plan));
	rp_pins_clear(&self->f.plan);
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.installed.n);
	/* Empty equals empty afterwards. */
	EXPECT_EQ(0, rpd_rec_sync(&self->r));
	EXPECT_EQ(1, self->f.replaces);
}

/* ESTALE (a racing change) is retried with the fresh generation. */
TEST_F(rec, stale_retry)
{
	self->f.stale_left = 1;
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(2, self->f.replaces);
	EXPECT_EQ(8, self->f.last_expect);
	EXPECT_EQ(2, self->f.installed.n);

	/* Persistent staleness gives up after a few tries. */
	rp_pins_clear(&self->f.installed);
	self->f.stale_left = 100;
	EXPECT_EQ(-ESTALE, rpd_rec_sync(&self->r));
	EXPECT_EQ(5, self->f.replaces);
}

/* A failed replace reports the kernel's reason and leaves the set alone. */
TEST_F(rec, replace_failure)
{
	self->f.replace_ret = -ENOSPC;
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(-ENOSPC, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.installed.n);
	EXPECT_EQ(1, self->r.st.push_failures);
	EXPECT_NE(NULL, strstr(self->r.last_error, "too many rules"));
}

/* A failed dump (module gone) fails the sync without a replace. */
TEST_F(rec, dump_failure)
{
	self->f.dump_ret = -ENOENT;
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	EXPECT_EQ(-ENOENT, rpd_rec_sync(&self->r));
	EXPECT_EQ(0, self->f.replaces);
}

/* The module reloaded empty: the next sync re-pushes the same plan. */
TEST_F(rec, repush_after_reload)
{
	ASSERT_EQ(1, rpd_rec_replan(&self->r));
	ASSERT_EQ(1, rpd_rec_sync(&self->r));
	rp_pins_clear(&self->f.installed);
	self->f.gen = 1;
	EXPECT_EQ(1, rpd_rec_sync(&self->r));
	EXPECT_EQ(2, self->f.installed.n);
	EXPECT_EQ(2, self->r.installed_gen);
}

/* DCQCN: once per device, merged profile, mlx5 debugfs only for mlx5. */
TEST_F(rec, dcqcn_push)
{
	int ai = rp_dcqcn_param_find("rp_ai_rate");
	int np = rp_dcqcn_param_find("np_enable");

	strcpy(self->f.devs[0].ibdev, "rxe0");
	strcpy(self->f.devs[0].driver, "rxe");
	self->f.devs[1] = self->f.devs[0];	/* second port of rxe0 */
	strcpy(self->f.devs[2].ibdev, "mlx5_0");
	strcpy(self->f.devs[2].driver, "mlx5_core");
	self->f.ndevs = 3;

	EXPECT_EQ(2, rpd_rec_dcqcn(&self->r));
	ASSERT_EQ(2, self->f.nset);
	EXPECT_STREQ("rxe0", self->f.set_dev[0]);
	EXPECT_STREQ("mlx5_0", self->f.set_dev[1]);
	EXPECT_FALSE(self->f.set_val[0].set & (1ULL << ai));
	EXPECT_EQ(1, self->f.set_val[0].val[np]);
	EXPECT_EQ(5, self->f.set_val[1].val[ai]);
	EXPECT_EQ(1, self->f.set_val[1].val[np]);
	EXPECT_EQ(1, self->f.mlx5_calls);
}

/* One device failing does not stop the others. */
TEST_F(rec, dcqcn_one_fails)
{
	strcpy(self->f.devs[0].ibdev, "bad0");
	strcpy(self->f.devs[1].ibdev, "rxe1");
	self->f.ndevs = 2;
	self->f.dcqcn_ret = -ERANGE;
	EXPECT_EQ(-ERANGE, rpd_rec_dcqcn(&self->r));
	EXPECT_EQ(1, self->f.nset);
	EXPECT_STREQ("rxe1", self->f.set_dev[0]);
	EXPECT_NE(NULL, strstr(self->r.last_error, "bad0"));
}

/* A reconciler on a fake backend of @ndev devices, with config @text. */
static int dev_rec(struct fake *f, struct rpd_backend *be, struct rpd_config *cfg,
		   struct rpd_reconciler *r, const char *text,
		   const char *const *devs, int ndev)
{
	char err[256];

	memset(f, 0, sizeof(*f));
	*be = (struct rpd_backend){ .ctx = f, .dev_dump = f_dev_dump,
				    .dcqcn_set = f_dcqcn_set };
	if (rpd_config_parse(text, "x.conf", cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -EINVAL;
	}
	for (int i = 0; i < ndev; i++)
		strcpy(f->devs[i].ibdev, devs[i]);
	f->ndevs = ndev;
	rpd_rec_init(r, be, cfg);
	return 0;
}

/* No profile for a device: nothing is sent. */
TEST(dcqcn_no_profile)
{
	static const char *const devs[] = { "rxe0" };
	struct rpd_reconciler r;
	struct rpd_backend be;
	struct rpd_config cfg;
	struct fake f;

	ASSERT_EQ(0, dev_rec(&f, &be, &cfg, &r,
			     "{\"topology\": \"t\", \"placement\": \"p\", \"host\": \"h\"}",
			     devs, 1));
	EXPECT_EQ(0, rpd_rec_dcqcn(&r));
	EXPECT_EQ(0, f.nset);
	rpd_rec_free(&r);
	rpd_config_free(&cfg);
}

/*
 * Two patterns that meet on one device can break rp_min_rate <=
 * rp_max_rate only once merged for it: that device is not pushed (the
 * module would refuse it), the others are.
 */
TEST(dcqcn_patterns_merged_refused)
{
	static const char *const devs[] = { "mlx5_0", "mlx5_1" };
	struct rpd_reconciler r;
	struct rpd_backend be;
	struct rpd_config cfg;
	struct fake f;

	ASSERT_EQ(0, dev_rec(&f, &be, &cfg, &r,
			     "{\"topology\": \"t\", \"placement\": \"p\", \"host\": \"h\","
			     " \"dcqcn\": {\"mlx5_*\": {\"rp_min_rate\": 200},"
			     " \"*_0\": {\"rp_max_rate\": 100}}}", devs, 2));
	EXPECT_EQ(-ERANGE, rpd_rec_dcqcn(&r));
	ASSERT_EQ(1, f.nset);
	EXPECT_STREQ("mlx5_1", f.set_dev[0]);
	EXPECT_NE(NULL, strstr(r.last_error, "mlx5_0")) TH_LOG("%s", r.last_error);
	EXPECT_NE(NULL, strstr(r.last_error, "rp_min_rate 200 above rp_max_rate 100"))
		TH_LOG("%s", r.last_error);
	EXPECT_EQ(1, r.st.dcqcn_failures);
	rpd_rec_free(&r);
	rpd_config_free(&cfg);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror(path);
		close(fd);
	}
}

static void get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* mlx5 debugfs: files that exist are written, others skipped. */
TEST(mlx5_debugfs_writes)
{
	char root[] = "/tmp/rocepathd-mlx5-XXXXXX";
	char p[512], q[512], buf[32];
	struct rpd_dcqcn_values v = { 0 };
	int ai = rp_dcqcn_param_find("rp_ai_rate");
	int gd = rp_dcqcn_param_find("rp_gd");
	int np = rp_dcqcn_param_find("np_enable");

	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(p, sizeof(p), "%s/ib", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/ib/mlx5_0", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/pci", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/pci/0000:03:00.0", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/ib/mlx5_0/device", root);
	snprintf(q, sizeof(q), "../../pci/0000:03:00.0");
	ASSERT_EQ(0, symlink(q, p));
	snprintf(p, sizeof(p), "%s/dbg", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dbg/0000:03:00.0", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dbg/0000:03:00.0/cc_params", root); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dbg/0000:03:00.0/cc_params/rp_ai_rate", root);
	put(p, "5\n");

	v.set = (1ULL << ai) | (1ULL << gd) | (1ULL << np);
	v.val[ai] = 9;
	v.val[gd] = 11;
	v.val[np] = 1;

	snprintf(p, sizeof(p), "%s/ib", root);
	snprintf(q, sizeof(q), "%s/dbg", root);
	/* rp_gd has no file here, np_enable is no cc_params file at all. */
	EXPECT_EQ(1, rpd_mlx5_cc_write(p, q, "mlx5_0", &v));
	snprintf(p, sizeof(p), "%s/dbg/0000:03:00.0/cc_params/rp_ai_rate", root);
	get(p, buf, sizeof(buf));
	EXPECT_STREQ("9\n", buf);

	/* No such device / no debugfs directory. */
	snprintf(p, sizeof(p), "%s/ib", root);
	EXPECT_EQ(-ENOENT, rpd_mlx5_cc_write(p, q, "mlx5_9", &v));
	snprintf(q, sizeof(q), "%s/nodebugfs", root);
	EXPECT_EQ(-ENOENT, rpd_mlx5_cc_write(p, q, "mlx5_0", &v));

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	EXPECT_EQ(0, system(p));
}

/* Formatting and address parsing used in the logs. */
TEST(pin_format)
{
	static const uint16_t ports[] = { 49153, 49154 };
	struct rp_pin p = mkpin("192.0.2.2", 2, ports);
	char buf[256];

	rp_pin_format(&p, buf, sizeof(buf));
	EXPECT_STREQ("192.0.2.2 sport 49153,49154", buf);
	strcpy(p.ibdev, "rxe0");
	p.rqpn = 17;
	RP_SET(&p, ROCEPATH_A_PIN_RQPN);
	rp_pin_format(&p, buf, sizeof(buf));
	EXPECT_STREQ("192.0.2.2 sport 49153,49154 dev rxe0 rqpn 17", buf);
	EXPECT_EQ(0, rp_addr_parse("2001:db8::1", &p.remote));
	p.lqpn = 5;
	RP_SET(&p, ROCEPATH_A_PIN_LQPN);
	rp_pin_format(&p, buf, sizeof(buf));
	EXPECT_STREQ("2001:db8::1 sport 49153,49154 dev rxe0 rqpn 17 lqpn 5", buf);
	rp_pin_release(&p);
}

TEST_HARNESS_MAIN
