// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the Prometheus writer escapes label values and help, refuses names
 * outside the format's grammar and duplicate families, that rocepathd's
 * metrics document has the documented names, labels and units, that the
 * file is replaced atomically (no temp file left, 0644, a failed write
 * leaves the old file), that the QP check warns once per path set, and
 * that the "metrics" config keys parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "harness.h"

#include "rpd_config.h"
#include "metrics.h"
#include "prom.h"

struct cap {
	char *buf;
	size_t len;
	FILE *fp;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->buf, &c->len);
}

static void cap_close(struct cap *c)
{
	fclose(c->fp);
}

TEST(escaping)
{
	struct rp_prom_label l[2] = {
		{ "dev", "a\"b\\c\nd" }, { "remote", "192.0.2.1" },
	};
	struct rp_prom p;
	struct cap c;

	cap_open(&c);
	rp_prom_begin(&p, c.fp);
	rp_prom_family(&p, "x_total", RP_PROM_COUNTER, "back\\slash\nnew \"q\"");
	rp_prom_u64(&p, l, 2, 18446744073709551615ULL);
	rp_prom_family(&p, "y", RP_PROM_GAUGE, "g");
	rp_prom_f64(&p, NULL, 0, 0.5);
	rp_prom_f64(&p, l + 1, 1, 1.0 / 0.0);
	ASSERT_EQ(0, rp_prom_end(&p));
	cap_close(&c);
	EXPECT_STREQ("# HELP x_total back\\\\slash\\nnew \"q\"\n"
		     "# TYPE x_total counter\n"
		     "x_total{dev=\"a\\\"b\\\\c\\nd\",remote=\"192.0.2.1\"} 18446744073709551615\n"
		     "# HELP y g\n# TYPE y gauge\n"
		     "y 0.5\n"
		     "y{remote=\"192.0.2.1\"} +Inf\n", c.buf);
	free(c.buf);
}

TEST(names)
{
	EXPECT_TRUE(rp_prom_name_ok("rocepath_flow_tx_bytes_total"));
	EXPECT_TRUE(rp_prom_name_ok("a:b_c9"));
	EXPECT_FALSE(rp_prom_name_ok("9abc"));
	EXPECT_FALSE(rp_prom_name_ok("a-b"));
	EXPECT_FALSE(rp_prom_name_ok(""));
	EXPECT_TRUE(rp_prom_label_name_ok("dev"));
	EXPECT_FALSE(rp_prom_label_name_ok("__name__"));
	EXPECT_FALSE(rp_prom_label_name_ok("a:b"));
	EXPECT_FALSE(rp_prom_label_name_ok("1a"));
}

/* Each misuse is a sticky error, reported by rp_prom_end(). */
TEST(misuse)
{
	struct rp_prom_label bad = { "a-b", "v" };
	struct rp_prom p;
	struct cap c;

	cap_open(&c);
	rp_prom_begin(&p, c.fp);
	rp_prom_family(&p, "x", RP_PROM_COUNTER, "counter without _total");
	EXPECT_EQ(-EINVAL, rp_prom_end(&p));
	rp_prom_begin(&p, c.fp);
	rp_prom_family(&p, "x_total", RP_PROM_GAUGE, "gauge named like a counter");
	EXPECT_EQ(-EINVAL, rp_prom_end(&p));
	rp_prom_begin(&p, c.fp);
	rp_prom_family(&p, "x", RP_PROM_GAUGE, "h");
	rp_prom_family(&p, "x", RP_PROM_GAUGE, "h");
	EXPECT_EQ(-EEXIST, rp_prom_end(&p));
	rp_prom_begin(&p, c.fp);
	rp_prom_u64(&p, NULL, 0, 1);
	EXPECT_EQ(-EINVAL, rp_prom_end(&p));
	rp_prom_begin(&p, c.fp);
	rp_prom_family(&p, "x", RP_PROM_GAUGE, "h");
	rp_prom_u64(&p, &bad, 1, 1);
	EXPECT_EQ(-EINVAL, rp_prom_end(&p));
	cap_close(&c);
	free(c.buf);
}

static void sample_data(struct rpd_metrics_data *d)
{
	static uint16_t sports[2] = { 49152, 49153 };
	static uint32_t qps[2] = { 2, 1 };
	static struct rp_pin pin;
	static struct rp_flow flow;
	static struct rp_dcqcn dc;

	memset(d, 0, sizeof(*d));
	d->module = true;
	rp_addr_parse("192.0.2.2", &pin.remote);
	pin.sports = sports;
	pin.nsports = 2;
	pin.sport_qps = qps;
	pin.nsport_qps = 2;
	d->pins.v = &pin;
	d->pins.n = 1;

	strcpy(flow.ibdev, "rxe0");
	rp_addr_parse("192.0.2.1", &flow.local);
	rp_addr_parse("192.0.2.2", &flow.remote);
	flow.sport = 49152;
	RP_SET(&flow, ROCEPATH_A_FLOW_DQPN);
	flow.dqpn = 17;
	for (int a = ROCEPATH_A_FLOW_TX_PACKETS; a <= ROCEPATH_A_FLOW_CNP_RX; a++) {
		RP_SET(&flow, a);
		flow.val[a] = a;
	}
	RP_SET(&flow, ROCEPATH_A_FLOW_RATE_KBPS);
	flow.val[ROCEPATH_A_FLOW_RATE_KBPS] = 1500;
	RP_SET(&flow, ROCEPATH_A_FLOW_ALPHA);
	flow.val[ROCEPATH_A_FLOW_ALPHA] = 512;
	d->flows.v = &flow;
	d->flows.n = 1;

	strcpy(dc.ibdev, "rxe0");
	RP_SET(&dc, ROCEPATH_A_DCQCN_RP_AI_RATE);
	dc.val[ROCEPATH_A_DCQCN_RP_AI_RATE] = 7;
	d->dcqcns.v = &dc;
	d->dcqcns.n = 1;

	RP_SET(&d->stats, ROCEPATH_A_STATS_FLOWS_MAX);
	d->stats.val[ROCEPATH_A_STATS_FLOWS_MAX] = 65536;
	d->have_plan = true;
	d->plan.flows = 8;
	d->plan.max_link_flows = 1;
	d->plan.lower_bound = 1;
	d->plan.ecmp_max_link_flows = 3;
	d->info.plan = 0x0123456789abcdefull;
	d->info.input = 2;
	d->info.topology = 3;
	d->info.placement = 4;
	d->info.probes = 0xcbf29ce484222325ull;
	d->plan_ok = d->reload_ok = true;
	d->plans_ok = 2;
	d->reloads_failed = 1;
}

static bool has_line(const char *doc, const char *line)
{
	if (strstr(doc, line))
		return true;
	fprintf(stderr, "# missing: %s", line);
	return false;
}

TEST(document)
{
	static const char *const want[] = {
		"# TYPE rocepath_flow_rx_ce_packets_total counter\n",
		"rocepath_flow_rx_ce_packets_total{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"17\"} 13\n",
		"rocepath_flow_cnp_sent_total{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"17\"} 14\n",
		"rocepath_flow_dcqcn_rate_bytes_per_second{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"17\"} 187500\n",
		"rocepath_flow_dcqcn_alpha_ratio{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"17\"} 0.5\n",
		"rocepath_dcqcn_parameter{dev=\"rxe0\",param=\"rp_ai_rate\"} 7\n",
		"rocepath_rule_ports{dev=\"\",remote=\"192.0.2.2\",rqpn=\"\",lqpn=\"\"} 2\n",
		"rocepath_rule_live_qps{dev=\"\",remote=\"192.0.2.2\",rqpn=\"\",lqpn=\"\"} 3\n",
		"rocepath_module_flows_max 65536\n",
		"rocepath_plan_max_link_flows 1\n",
		"rocepath_plan_lower_bound_flows 1\n",
		"rocepath_plan_ecmp_max_link_flows 3\n",
		"rocepath_plans_total{result=\"ok\"} 2\n",
		"rocepath_config_reloads_total{result=\"failed\"} 1\n",
		"rocepath_module_loaded 1\n",
		"# TYPE rocepath_plan_info gauge\n",
		"rocepath_plan_info{plan_digest=\"fnv1a64:0123456789abcdef\",input_digest=\"fnv1a64:0000000000000002\",topology_digest=\"fnv1a64:0000000000000003\",placement_digest=\"fnv1a64:0000000000000004\",probes_digest=\"fnv1a64:cbf29ce484222325\"} 1\n",
	};
	struct rpd_metrics_data d;
	struct cap c;

	sample_data(&d);
	cap_open(&c);
	ASSERT_EQ(0, rpd_metrics_render(c.fp, &d));
	cap_close(&c);
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT_TRUE(has_line(c.buf, want[i]));
	/* Without a module only the daemon's own families appear. */
	free(c.buf);
	d.module = false;
	d.have_plan = false;
	cap_open(&c);
	ASSERT_EQ(0, rpd_metrics_render(c.fp, &d));
	cap_close(&c);
	EXPECT_EQ(NULL, strstr(c.buf, "rocepath_flow_"));
	EXPECT_EQ(NULL, strstr(c.buf, "rocepath_plan_max_link_flows"));
	EXPECT_EQ(NULL, strstr(c.buf, "rocepath_plan_info"));
	EXPECT_NE(NULL, strstr(c.buf, "rocepath_module_loaded 0\n"));
	free(c.buf);
}

/*
 * An rx-only flow record (no dqpn from the kernel) has an empty dqpn
 * label, Prometheus' absent label, not dqpn="0"; a sent dqpn of 0 is QP 0.
 */
TEST(flow_rx_only_has_empty_dqpn)
{
	static const char *const want[] = {
		"rocepath_flow_rx_packets_total{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"\"} 10\n",
		"rocepath_flow_rx_packets_total{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49153\",dqpn=\"0\"} 10\n",
		"rocepath_flow_cnp_sent_total{dev=\"rxe0\",local=\"192.0.2.1\",remote=\"192.0.2.2\",sport=\"49152\",dqpn=\"\"} 14\n",
	};
	struct rpd_metrics_data d;
	struct rp_flow f[2];
	struct cap c;

	memset(f, 0, sizeof(f));
	for (int i = 0; i < 2; i++) {
		strcpy(f[i].ibdev, "rxe0");
		rp_addr_parse("192.0.2.1", &f[i].local);
		rp_addr_parse("192.0.2.2", &f[i].remote);
		f[i].sport = 49152 + i;
		for (int a = ROCEPATH_A_FLOW_TX_PACKETS; a <= ROCEPATH_A_FLOW_CNP_RX; a++) {
			RP_SET(&f[i], a);
			f[i].val[a] = a;
		}
	}
	RP_SET(&f[1], ROCEPATH_A_FLOW_DQPN);	/* dqpn 0 */
	memset(&d, 0, sizeof(d));
	d.module = true;
	d.flows.v = f;
	d.flows.n = 2;
	cap_open(&c);
	ASSERT_EQ(0, rpd_metrics_render(c.fp, &d));
	cap_close(&c);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT_TRUE(has_line(c.buf, want[i]));
	/* QP 0 only where the kernel said so */
	EXPECT_EQ(NULL, strstr(c.buf, "sport=\"49152\",dqpn=\"0\""));
	free(c.buf);
}

static int count_entries(const char *dir)
{
	struct dirent *e;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	closedir(dp);
	return n;
}

TEST(write_atomic)
{
	char dir[] = "/tmp/rp-metrics-XXXXXX", path[64], bad[96];
	struct rpd_metrics_data d;
	struct stat st;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rocepath.prom", dir);
	sample_data(&d);
	ASSERT_EQ(0, rpd_metrics_write_file(path, &d));
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0644, st.st_mode & 0777);
	EXPECT_EQ(1, count_entries(dir));	/* no temp file left */
	snprintf(bad, sizeof(bad), "%s/missing/rocepath.prom", dir);
	EXPECT_EQ(-ENOENT, rpd_metrics_write_file(bad, &d));
	/* A rename onto a directory fails: the temp file must go. */
	snprintf(bad, sizeof(bad), "%s/sub", dir);
	ASSERT_EQ(0, mkdir(bad, 0755));
	EXPECT_NE(0, rpd_metrics_write_file(bad, &d));
	EXPECT_EQ(2, count_entries(dir));
	rmdir(bad);
	unlink(path);
	rmdir(dir);
}

TEST(qp_check)
{
	struct rpd_metrics_data d;
	struct rpd_metrics m;

	rpd_metrics_init(&m);
	sample_data(&d);	/* 3 live QPs on 2 ports */
	EXPECT_EQ(1, rpd_metrics_check_qps(&m, &d.pins));
	EXPECT_EQ(0, rpd_metrics_check_qps(&m, &d.pins));	/* once */
	d.pins.v[0].sport_qps[0] = 1;				/* 2 on 2 */
	EXPECT_EQ(0, rpd_metrics_check_qps(&m, &d.pins));
	EXPECT_EQ(0u, m.nover);
	d.pins.v[0].sport_qps[0] = 2;
	EXPECT_EQ(1, rpd_metrics_check_qps(&m, &d.pins));	/* again */
	rpd_metrics_free(&m);
}

TEST(config)
{
	struct rpd_config c;
	char err[512] = "";

	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\", \"host\": \"h\"}",
				     "/etc/rocepath/x.conf", &c, err, sizeof(err)));
	EXPECT_STREQ(RPD_METRICS_PATH_DEFAULT, c.metrics_path);
	EXPECT_EQ(RPD_METRICS_INTERVAL_S_DEFAULT, c.metrics_interval_s);
	rpd_config_free(&c);
	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\", \"host\": \"h\","
				     " \"metrics\": {\"path\": \"m.prom\", \"interval_s\": 5}}",
				     "/etc/rocepath/x.conf", &c, err, sizeof(err)));
	EXPECT_STREQ("/etc/rocepath/m.prom", c.metrics_path);
	EXPECT_EQ(5, c.metrics_interval_s);
	rpd_config_free(&c);
	ASSERT_EQ(0, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\", \"host\": \"h\","
				     " \"metrics\": {\"path\": null}}",
				     "/etc/rocepath/x.conf", &c, err, sizeof(err)));
	EXPECT_EQ(NULL, c.metrics_path);
	rpd_config_free(&c);
	EXPECT_EQ(-EINVAL, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\","
					   " \"metrics\": {\"interval\": 5}}",
					   "/etc/rocepath/x.conf", &c, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "metrics.interval")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, rpd_config_parse("{\"topology\": \"t\", \"placement\": \"p\","
					   " \"metrics\": {\"interval_s\": 99999}}",
					   "/etc/rocepath/x.conf", &c, err, sizeof(err)));
}

TEST_HARNESS_MAIN
