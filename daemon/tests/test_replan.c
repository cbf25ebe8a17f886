// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd stable re-plans, through the real backend (planner, no
 * kernel): a job starting keeps every running job's ports on every host,
 * the recorded previous placement survives a restart, a bad or missing
 * state file plans from scratch with a warning, the scheduler's
 * previous_placement wins, and "stable_replan": false plans from scratch.
 * Runs on examples/ai-zone with jobs job1 and job2 running and job3
 * starting (from scratch, 192 of their 768 flows would change port).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

/* The harness's setjmp() around fixtures this size is not -Wextra clean. */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "harness.h"

#include "addr.h"
#include "backend.h"
#include "pins.h"
#include "reconcile.h"
#include "replan_state.h"
#include "rpd_config.h"
#include "rpd_log.h"

/* The example AI zone next to the binary's tree (tests/bin/../../..). */
static void example(char *buf, size_t len, const char *file)
{
	char exe[PATH_MAX / 2];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	snprintf(buf, len, "%s/../../../examples/ai-zone/%s", exe, file);
}

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/*
 * Writes the example placement with only the jobs named in @ids (a
 * space-separated list) to @path; returns the hosts of those jobs in
 * *hosts (a NULL-terminated strdup'ed array) when hosts is not NULL.
 */
static int put_jobs(const char *path, const char *ids, char ***hosts)
{
	char src[PATH_MAX], key[64];
	json_object *root, *jobs, *keep, *out;
	size_t nh = 0;
	int ret;

	example(src, sizeof(src), "placement.json");
	root = json_object_from_file(src);
	if (!root || !json_object_object_get_ex(root, "jobs", &jobs))
		return -EINVAL;
	keep = json_object_new_array();
	if (hosts)
		*hosts = calloc(1024, sizeof(char *));
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *id, *hs;

		json_object_object_get_ex(j, "id", &id);
		snprintf(key, sizeof(key), " %s ", json_object_get_string(id));
		{
			char list[256];

			snprintf(list, sizeof(list), " %s ", ids);
			if (!strstr(list, key))
				continue;
		}
		json_object_array_add(keep, json_object_get(j));
		if (!hosts || !json_object_object_get_ex(j, "hosts", &hs))
			continue;
		for (size_t h = 0; h < json_object_array_length(hs) && nh < 1023; h++)
			(*hosts)[nh++] = strdup(json_object_get_string(
				json_object_array_get_idx(hs, h)));
	}
	out = json_object_new_object();
	json_object_object_add(out, "jobs", keep);
	ret = json_object_to_file(path, out) ? -EIO : 0;
	json_object_put(out);
	json_object_put(root);
	return ret;
}

static void free_hosts(char **hosts)
{
	for (size_t i = 0; hosts && hosts[i]; i++)
		free(hosts[i]);
	free(hosts);
}

/* One rocepathd as main.c wires it, with the real (non-dry) backend. */
struct sim {
	struct rpd_config cfg;
	struct rpd_kernel k;
	struct rpd_backend be;
	struct rpd_reconciler r;
};

/* @extra: more config members (",\"key\": value"), or "". */
static int sim_start(struct sim *s, const char *dir, const char *host,
		     const char *extra)
{
	char topo[PATH_MAX], text[4 * PATH_MAX], cpath[PATH_MAX], err[512];
	int ret;

	example(topo, sizeof(topo), "topology.json");
	snprintf(cpath, sizeof(cpath), "%s/rocepathd.conf", dir);
	snprintf(text, sizeof(text),
		 "{\"topology\": \"%s\", \"placement\": \"placement.json\","
		 " \"host\": \"%s\", \"state_dir\": \"state\"%s%s}",
		 topo, host,
		 /* on, unless the test turns it off (the default is off) */
		 strstr(extra, "stable_replan") ? "" : ", \"stable_replan\": true",
		 extra);
	ret = rpd_config_parse(text, cpath, &s->cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "config: %s\n", err);
		return ret;
	}
	rpd_kernel_init(&s->k, false);
	rpd_backend_init(&s->be, &s->k);
	rpd_rec_init(&s->r, &s->be, &s->cfg);
	return 0;
}

static void sim_stop(struct sim *s)
{
	rpd_rec_free(&s->r);
	rpd_kernel_free(&s->k);
	rpd_config_free(&s->cfg);
}

/* Re-plans with stderr captured into @log (may be NULL); rpd_rec_replan(). */
static int sim_plan(struct sim *s, char *log, size_t loglen)
{
	char path[] = "/tmp/rpd-replan-log.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), ret;
	char scratch[64];
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	ret = rpd_rec_replan(&s->r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	if (!log) {
		log = scratch;
		loglen = sizeof(scratch);
	}
	n = read(fd, log, loglen - 1);
	log[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return ret;
}

/* The ports of @from that @to no longer has for the same remote address. */
static size_t lost_ports(const struct rp_pins *from, const struct rp_pins *to,
			 size_t *total)
{
	size_t lost = 0;

	for (size_t i = 0; i < from->n; i++) {
		const struct rp_pin *a = &from->v[i], *b = NULL;

		for (size_t j = 0; j < to->n && !b; j++)
			if (rp_addr_equal(&a->remote, &to->v[j].remote))
				b = &to->v[j];
		for (size_t k = 0; k < a->nsports; k++) {
			bool kept = false;

			for (size_t m = 0; b && m < b->nsports && !kept; m++)
				kept = a->sports[k] == b->sports[m];
			lost += !kept;
			(*total)++;
		}
	}
	return lost;
}

FIXTURE(replan) {
	char dir[64];
	char place[128];
	char state[128];
	char **hosts;		/* of the running jobs */
};

FIXTURE_SETUP(replan)
{
	strcpy(self->dir, "/tmp/rpd-replan.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->place, sizeof(self->place), "%s/placement.json", self->dir);
	snprintf(self->state, sizeof(self->state), "%s/state", self->dir);
	ASSERT_EQ(0, mkdir(self->state, 0755));
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2", &self->hosts));
	ASSERT_NE(NULL, self->hosts[0]);
	rpd_log_set_level(RPD_LOG_WARN);
}

FIXTURE_TEARDOWN(replan)
{
	char cmd[128];

	free_hosts(self->hosts);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", self->dir);
}

static void clear_state(const char *state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", state, RPD_REPLAN_STATE_FILE);
	unlink(path);
}

/*
 * Every host's daemon, job3 starting: the pins of every host keep every
 * port they had (stable), while "stable_replan": false moves some. It
 * plans every host twice: about 12 s of CPU under valgrind, which the
 * harness's default 30 s did not cover on a loaded 2-core machine.
 */
TEST_F_TIMEOUT(replan, job_start_keeps_every_running_port, 180)
{
	size_t total = 0, lost = 0, total_off = 0, lost_off = 0;
	int off;

	for (off = 0; off < 2; off++) {
		for (size_t h = 0; self->hosts[h]; h++) {
			struct rp_pins before = { 0 };
			struct sim s;
			char log[4096];

			clear_state(self->state);
			ASSERT_EQ(0, put_jobs(self->place, "job1 job2", NULL));
			ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[h],
					       off ? ", \"stable_replan\": false" : ""));
			ASSERT_LE(0, sim_plan(&s, log, sizeof(log)));
			ASSERT_EQ(0, rp_pins_copy(&before, &s.r.desired));
			ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
			ASSERT_LE(0, sim_plan(&s, log, sizeof(log)));
			if (!off)
				EXPECT_EQ(NULL, strstr(log, "from scratch"));
			if (off)
				lost_off += lost_ports(&before, &s.r.desired, &total_off);
			else
				lost += lost_ports(&before, &s.r.desired, &total);
			rp_pins_free(&before);
			sim_stop(&s);
		}
	}
	/* 24 hosts x 8 rails x 4 QPs, one ring neighbour each */
	EXPECT_EQ(768, total);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(768, total_off);
	EXPECT_LT(0, lost_off);
	fprintf(stderr, "# job start: stable moved %zu of %zu ports, from scratch %zu\n",
		lost, total, lost_off);
}

/* Pins of @host for the placement file as it is, planned from scratch. */
static int scratch_pins(const char *dir, const char *host, struct rp_pins *out)
{
	struct sim s;
	int ret = sim_start(&s, dir, host, ", \"stable_replan\": false");

	if (ret)
		return ret;
	ret = sim_plan(&s, NULL, 0);
	if (ret >= 0)
		ret = rp_pins_copy(out, &s.r.desired);
	sim_stop(&s);
	return ret;
}

/*
 * A daemon restarted after job3 started reproduces the stable plan (no
 * push), not the from-scratch one, and then re-plans job2's end as a
 * daemon that kept running does: hosts agree across restarts.
 */
TEST_F(replan, restart_keeps_the_previous_placement)
{
	struct rp_pins stable = { 0 }, scratch = { 0 };
	const char *host = NULL;
	struct sim a, b;
	char log[4096];

	/* a host whose stable pins differ from the from-scratch ones */
	for (size_t h = 0; self->hosts[h] && !host; h++) {
		clear_state(self->state);
		ASSERT_EQ(0, put_jobs(self->place, "job1 job2", NULL));
		ASSERT_EQ(0, sim_start(&a, self->dir, self->hosts[h], ""));
		ASSERT_LE(0, sim_plan(&a, log, sizeof(log)));
		ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
		ASSERT_LE(0, sim_plan(&a, log, sizeof(log)));
		rp_pins_free(&scratch);
		ASSERT_EQ(0, scratch_pins(self->dir, self->hosts[h], &scratch));
		if (!rp_pins_equal(&scratch, &a.r.desired)) {
			host = self->hosts[h];
			ASSERT_EQ(0, rp_pins_copy(&stable, &a.r.desired));
		} else {
			sim_stop(&a);
		}
	}
	ASSERT_NE(NULL, host);

	/* restart: same placement, the state file gives the same plan */
	ASSERT_EQ(0, sim_start(&b, self->dir, host, ""));
	ASSERT_LE(0, sim_plan(&b, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "from scratch"));
	EXPECT_TRUE(rp_pins_equal(&stable, &b.r.desired));

	/* job2 ends: the restarted daemon and the running one agree */
	ASSERT_EQ(0, put_jobs(self->place, "job1 job3", NULL));
	ASSERT_LE(0, sim_plan(&a, log, sizeof(log)));
	ASSERT_LE(0, sim_plan(&b, log, sizeof(log)));
	EXPECT_TRUE(rp_pins_equal(&a.r.desired, &b.r.desired));
	sim_stop(&b);
	sim_stop(&a);
	rp_pins_free(&stable);
	rp_pins_free(&scratch);
}

/*
 * Missing, unreadable or invalid state: a good from-scratch plan and a
 * warning that says so, and a valid state file written afterwards.
 */
TEST_F(replan, bad_state_plans_from_scratch_with_a_warning)
{
	static const char *const bad[] = {
		NULL,			/* no file */
		"",
		"garbage",
		"{\"version\": 1, \"placement\": \"{\\\"jobs\\\": [",	/* cut */
		"[]",
		"{}",
		"{\"version\": 2, \"placement\": \"x\", \"previous\": null}",
		"{\"version\": 1, \"placement\": 5, \"previous\": null}",
		"{\"version\": 1, \"placement\": \"x\", \"previous\": 7}",
		"{\"version\": 1, \"previous\": null}",
		/* not JSON as a placement */
		"{\"version\": 1, \"placement\": \"not json\", \"previous\": null}",
		/* a placement with a host this topology does not have */
		"{\"version\": 1, \"placement\": \"{\\\"jobs\\\": [{\\\"id\\\": \\\"x\\\","
		" \\\"pattern\\\": \\\"ring\\\", \\\"rails\\\": [0],"
		" \\\"hosts\\\": [\\\"nohost\\\", \\\"host00000\\\"]}]}\", \"previous\": null}",
	};
	char path[PATH_MAX];
	struct rp_pins scratch = { 0 };
	const char *host = self->hosts[0];

	snprintf(path, sizeof(path), "%s/%s", self->state, RPD_REPLAN_STATE_FILE);
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
	ASSERT_EQ(0, scratch_pins(self->dir, host, &scratch));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rpd_replan_state st = { 0 };
		char log[4096], err[512];
		struct sim s;

		unlink(path);
		if (bad[i])
			ASSERT_EQ(0, put(path, bad[i]));
		ASSERT_EQ(0, sim_start(&s, self->dir, host, ""));
		ASSERT_EQ(1, sim_plan(&s, log, sizeof(log)));
		EXPECT_TRUE(rp_pins_equal(&scratch, &s.r.desired))
			TH_LOG("state %zu", i);
		EXPECT_NE(NULL, strstr(log, "warn"));
		EXPECT_NE(NULL, strstr(log, "planning from scratch"))
			TH_LOG("state %zu: %s", i, log);
		sim_stop(&s);
		/* recorded: the placement planned, from scratch */
		ASSERT_EQ(0, rpd_replan_state_load(self->state, &st, err, sizeof(err)));
		EXPECT_NE(NULL, st.placement);
		EXPECT_EQ(NULL, st.previous);
		rpd_replan_state_free(&st);
	}
	rp_pins_free(&scratch);
}

/*
 * A missing state directory is created; one that cannot be (below a
 * regular file): the plan still goes in, with a warning.
 */
TEST_F(replan, unwritable_state_dir_warns)
{
	struct rpd_replan_state st = { 0 };
	char log[4096], err[512];
	struct sim s;

	ASSERT_EQ(0, rmdir(self->state));
	ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[0], ""));
	ASSERT_EQ(1, sim_plan(&s, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "cannot write"));
	sim_stop(&s);
	ASSERT_EQ(0, rpd_replan_state_load(self->state, &st, err, sizeof(err)));
	rpd_replan_state_free(&st);

	ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[0],
			       ", \"state_dir\": \"placement.json/state\""));
	ASSERT_EQ(1, sim_plan(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "cannot write"));
	EXPECT_NE(NULL, strstr(log, "after a restart"));
	/* in memory the daemon still re-plans stably */
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
	ASSERT_LE(0, sim_plan(&s, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "from scratch"));
	sim_stop(&s);
}

/*
 * previous_placement (the scheduler's record) wins over the state: a host
 * with no state plans job3's start as one that saw job1 + job2.
 */
TEST_F(replan, previous_placement_wins)
{
	char prev[PATH_MAX], log[4096];
	struct sim a, b;

	snprintf(prev, sizeof(prev), "%s/previous.json", self->dir);
	ASSERT_EQ(0, put_jobs(prev, "job1 job2", NULL));
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2", NULL));
	ASSERT_EQ(0, sim_start(&a, self->dir, self->hosts[0], ""));
	ASSERT_LE(0, sim_plan(&a, log, sizeof(log)));
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
	ASSERT_LE(0, sim_plan(&a, log, sizeof(log)));

	clear_state(self->state);
	/* and a state naming something else: the key still wins */
	ASSERT_EQ(0, sim_start(&b, self->dir, self->hosts[0],
			       ", \"previous_placement\": \"previous.json\""));
	ASSERT_LE(0, sim_plan(&b, log, sizeof(log)));
	EXPECT_EQ(NULL, strstr(log, "from scratch"));
	EXPECT_TRUE(rp_pins_equal(&a.r.desired, &b.r.desired));
	sim_stop(&b);

	/* a missing file: from scratch, and the warning names it */
	ASSERT_EQ(0, sim_start(&b, self->dir, self->hosts[0],
			       ", \"previous_placement\": \"nofile.json\""));
	ASSERT_LE(0, sim_plan(&b, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "nofile.json: cannot read"));
	EXPECT_NE(NULL, strstr(log, "planning from scratch"));
	sim_stop(&b);
	sim_stop(&a);
}

/* "stable_replan": false neither reads nor writes the state. */
TEST_F(replan, opt_out_keeps_no_state)
{
	char path[PATH_MAX], log[4096];
	struct sim s;

	snprintf(path, sizeof(path), "%s/%s", self->state, RPD_REPLAN_STATE_FILE);
	ASSERT_EQ(0, put(path, "garbage"));
	ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[0],
			       ", \"stable_replan\": false"));
	ASSERT_EQ(1, sim_plan(&s, log, sizeof(log)));
	EXPECT_STREQ("", log);
	sim_stop(&s);
	{
		char buf[16] = "";
		FILE *f = fopen(path, "re");

		ASSERT_NE(NULL, f);
		EXPECT_NE(NULL, fgets(buf, sizeof(buf), f));
		fclose(f);
		EXPECT_STREQ("garbage", buf);
	}
}

/*
 * The digests of the audit (metrics, status): two hosts planning the same
 * files report the same plan and input digests; a placement change moves
 * the placement, input and plan digests and not the topology's; with the
 * same inputs a stable re-plan and a plan from scratch differ in the plan
 * digest alone, which is what the plan digest is for.
 */
TEST_F(replan, digests_follow_inputs_and_plan)
{
	struct rpd_plan_info a, b, c, d;
	struct sim s;

	ASSERT_NE(NULL, self->hosts[1]);
	for (int i = 0; i < 2; i++) {
		clear_state(self->state);
		ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[i], ""));
		ASSERT_LE(0, sim_plan(&s, NULL, 0));
		if (i)
			b = s.k.plan_info;
		else
			a = s.k.plan_info;
		if (!i) {
			/* job3 starts: a stable re-plan from job1 + job2 */
			ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
			ASSERT_LE(0, sim_plan(&s, NULL, 0));
			c = s.k.plan_info;
			ASSERT_EQ(0, put_jobs(self->place, "job1 job2", NULL));
		}
		sim_stop(&s);
	}
	EXPECT_NE(0, a.plan);
	EXPECT_EQ(a.plan, b.plan);
	EXPECT_EQ(a.input, b.input);
	EXPECT_EQ(a.topology, c.topology);
	EXPECT_EQ(a.probes, c.probes);
	EXPECT_NE(a.placement, c.placement);
	EXPECT_NE(a.input, c.input);
	EXPECT_NE(a.plan, c.plan);

	/* the same three jobs from scratch: same inputs, another plan */
	ASSERT_EQ(0, put_jobs(self->place, "job1 job2 job3", NULL));
	ASSERT_EQ(0, sim_start(&s, self->dir, self->hosts[0],
			       ", \"stable_replan\": false"));
	ASSERT_LE(0, sim_plan(&s, NULL, 0));
	d = s.k.plan_info;
	sim_stop(&s);
	EXPECT_EQ(c.input, d.input);
	EXPECT_NE(c.plan, d.plan);
}

TEST_HARNESS_MAIN
