// SPDX-License-Identifier: GPL-2.0
/*
 * Proves `rocepath nccl-env` prints the placement's QPs per connection, an
 * ECN-capable traffic class and the RoCEv2 GID index of the rail address
 * the plan pins (found in a fake sysfs tree), that inside a Slurm job the
 * job defaults to slurm-$SLURM_JOB_ID, and that a wrong job, host, DSCP or
 * a missing GID are errors naming the reason. Runs ../rocepath.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char top[PATH_MAX + 32], dir[64], bin[PATH_MAX + 32];

static int put(const char *rel, const char *text)
{
	char path[256], cmd[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * Runs rocepath with ARGS (a shell word list) and ENV (VAR=value words);
 * stdout+stderr in out.
 */
static int run_env(const char *env, const char *args, char *out, size_t len)
{
	char cmd[2 * PATH_MAX + 1024];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s ROCEPATH_SYSFS_IB=%s/ib %s %s 2>&1", env, dir, bin, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	return WEXITSTATUS(pclose(p));
}

/* Outside any Slurm job, even when the tests run inside one. */
static int run(const char *args, char *out, size_t len)
{
	return run_env("env -u SLURM_JOB_ID", args, out, len);
}

static int setup(void)
{
	char exe[PATH_MAX], conf[2 * PATH_MAX + 256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(bin, sizeof(bin), "%s/../../rocepath", exe);
	snprintf(top, sizeof(top), "%s/../../..", exe);
	strcpy(dir, "/tmp/rp-nccl-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(conf, sizeof(conf),
		 "{\"topology\": \"%s/examples/two-host/topology.json\",\n"
		 " \"placement\": \"placement.json\", \"host\": \"h1\",\n"
		 " \"dcqcn\": {\"*\": {\"np_enable\": 1, \"rp_enable\": 1}}}\n", top);
	return put("rocepathd.conf", conf) ||
	       put("placement.json",
		   "{\"jobs\": [{\"id\": \"a\", \"pattern\": \"ring\", \"qps_per_connection\": 3,"
		   " \"rails\": [0], \"hosts\": [\"h1\", \"h2\"]}]}") ||
	       /* As rocepath-slurmctld writes a Slurm job, beside a manual one. */
	       put("slurm/placement.json",
		   "{\"jobs\": [{\"id\": \"a\", \"pattern\": \"ring\", \"qps_per_connection\": 3,"
		   " \"rails\": [0], \"hosts\": [\"h1\", \"h2\"]},"
		   " {\"id\": \"slurm-7\", \"pattern\": \"ring\", \"qps_per_connection\": 2,"
		   " \"rails\": [0], \"hosts\": [\"h1\", \"h2\"]}]}") ||
	       /* Index 0 link-local, 1 IPv4-mapped RoCE v1, 2 IPv4-mapped RoCE v2. */
	       put("ib/rxe0/ports/1/gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3401\n") ||
	       put("ib/rxe0/ports/1/gid_attrs/types/0", "RoCE v2\n") ||
	       put("ib/rxe0/ports/1/gids/1", "0000:0000:0000:0000:0000:ffff:c000:0201\n") ||
	       put("ib/rxe0/ports/1/gid_attrs/types/1", "IB/RoCE v1\n") ||
	       put("ib/rxe0/ports/1/gids/2", "0000:0000:0000:0000:0000:ffff:c000:0201\n") ||
	       put("ib/rxe0/ports/1/gid_attrs/types/2", "RoCE v2\n");
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		perror("rm");
}

TEST(nccl_env)
{
	char out[4096], args[512];

	if (setup())
		SKIP(return, "cannot create the test files");
	if (access(bin, X_OK)) {
		cleanup();
		SKIP(return, "rocepath binary not built (make -C daemon)");
	}
	snprintf(args, sizeof(args), "nccl-env config %s/rocepathd.conf", dir);
	EXPECT_EQ(0, run(args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("export NCCL_IB_QPS_PER_CONNECTION=3\n"
		     "export NCCL_IB_TC=106\n"
		     "export NCCL_IB_GID_INDEX=2\n"
		     "export NCCL_IB_HCA==rxe0:1\n", out);

	snprintf(args, sizeof(args), "-j nccl-env job a dscp 24 config %s/rocepathd.conf", dir);
	EXPECT_EQ(0, run(args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_STREQ("{\"NCCL_IB_QPS_PER_CONNECTION\":\"3\",\"NCCL_IB_TC\":\"98\","
		     "\"NCCL_IB_GID_INDEX\":\"2\",\"NCCL_IB_HCA\":\"=rxe0:1\"}\n", out);

	snprintf(args, sizeof(args), "nccl-env job b config %s/rocepathd.conf", dir);
	EXPECT_EQ(1, run(args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Error: host \"h1\" sends nothing in job \"b\"")) TH_LOG("%s", out);

	snprintf(args, sizeof(args), "nccl-env host h9 config %s/rocepathd.conf", dir);
	EXPECT_EQ(1, run(args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "host \"h9\" is not in the topology")) TH_LOG("%s", out);

	snprintf(args, sizeof(args), "nccl-env dscp 64 config %s/rocepathd.conf", dir);
	EXPECT_EQ(1, run(args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "dscp \"64\"")) TH_LOG("%s", out);

	/* h2's address has no GID on this "machine". */
	snprintf(args, sizeof(args), "nccl-env host h2 config %s/rocepathd.conf", dir);
	EXPECT_EQ(1, run(args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "no RoCEv2 GID with address 192.0.2.2")) TH_LOG("%s", out);

	EXPECT_EQ(1, run("nccl-env config /nonexistent.conf", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "/nonexistent.conf: cannot open")) TH_LOG("%s", out);
	cleanup();
}

/* Inside a Slurm job, no "job" argument: the job is slurm-$SLURM_JOB_ID. */
TEST(nccl_env_slurm_job)
{
	char out[4096], args[512], conf[2 * PATH_MAX + 256];

	if (setup())
		SKIP(return, "cannot create the test files");
	if (access(bin, X_OK)) {
		cleanup();
		SKIP(return, "rocepath binary not built (make -C daemon)");
	}
	snprintf(conf, sizeof(conf),
		 "{\"topology\": \"%s/examples/two-host/topology.json\",\n"
		 " \"placement\": \"placement.json\", \"host\": \"h1\"}\n", top);
	ASSERT_EQ(0, put("slurm/rocepathd.conf", conf));
	snprintf(args, sizeof(args), "nccl-env config %s/slurm/rocepathd.conf", dir);

	EXPECT_EQ(0, run_env("SLURM_JOB_ID=7", args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "export NCCL_IB_QPS_PER_CONNECTION=2\n")) TH_LOG("%s", out);
	/* Outside Slurm, two jobs on h1: it must be told which. */
	EXPECT_EQ(1, run(args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "name one with \"job ID\"")) TH_LOG("%s", out);
	/* An explicit job wins over the Slurm job. */
	snprintf(args, sizeof(args), "nccl-env job a config %s/slurm/rocepathd.conf", dir);
	EXPECT_EQ(0, run_env("SLURM_JOB_ID=7", args, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "export NCCL_IB_QPS_PER_CONNECTION=3\n")) TH_LOG("%s", out);
	/* A Slurm job the prolog left out (rocepath:off, one node...). */
	snprintf(args, sizeof(args), "nccl-env config %s/slurm/rocepathd.conf", dir);
	EXPECT_EQ(1, run_env("SLURM_JOB_ID=8", args, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "sends nothing in job \"slurm-8\" (from SLURM_JOB_ID)"))
		TH_LOG("%s", out);
	cleanup();
}

TEST_HARNESS_MAIN
