// SPDX-License-Identifier: GPL-2.0
/*
 * Proves scripts/slurm/rocepath-slurmctld (PrologSlurmctld/EpilogSlurmctld)
 * adds and removes jobs in the placement file with node lists expanded by
 * (a fake) scontrol and node names mapped to topology hosts, takes rails
 * and QPs from the job comment or the config defaults, loses no update
 * when 16 jobs start at once, falls back to rocepathd's topology when
 * slurm.json names none, lands the newest file when post_command copies
 * overlap, and that every bad input (unknown node, no topology, no rails,
 * bad comment, failing scontrol, missing config, a held lock) leaves the
 * placement byte for byte unchanged, is logged, and exits 0.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"

#include "test_files.h"

static const char fake_scontrol[] =
	"#!/bin/bash\n"
	"[ -n \"$FAKE_FAIL\" ] && { echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1; }\n"
	"case \"$1 $2\" in\n"
	"'show hostnames')\n"
	"	n=$3; p=${n%%[*}\n"
	"	[ \"$p\" = \"$n\" ] && { tr , '\\n' <<<\"$n\"; exit 0; }\n"
	"	r=${n#*[}; r=${r%]}\n"
	"	for part in ${r//,/ }; do for i in $(seq -w ${part%-*} ${part#*-}); do echo $p$i; done; done ;;\n"
	"'show job') echo \"JobId=$4 JobName=train UserId=u(1) Comment=${FAKE_COMMENT:-(null)} Partition=gpu\" ;;\n"
	"*) exit 1 ;;\n"
	"esac\n";

static const char topology[] =
	"{\"hosts\": [\n"
	" {\"name\": \"node01-ib\", \"nics\": [{\"rail\": 0}, {\"rail\": 1}]},\n"
	" {\"name\": \"node02-ib\", \"nics\": [{\"rail\": 0}, {\"rail\": 1}]},\n"
	" {\"name\": \"node03-ib\", \"nics\": [{\"rail\": 0}]},\n"
	" {\"name\": \"spare04\", \"nics\": [{\"rail\": 0}]}]}\n";

FIXTURE(slurm) {
	char dir[64];
	char script[PATH_MAX + 64];
	char path[256];		/* scratch */
};


/* The whole file as a string (caller frees), "" when absent. */
static char *slurp(const char *dir, const char *name)
{
	char path[256], *buf = calloc(1, 1 << 16);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f) {
		if (fread(buf, 1, (1 << 16) - 1, f) == 0)
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

/* slurm.json with @keys (JSON members, each followed by a comma) first. */
static void write_config_keys(const char *dir, const char *keys,
			      const char *defaults, int lock_timeout)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "{%s\"placement\": \"%s/placement.json\",\n"
		 " \"scontrol\": \"%s/scontrol\", \"log_file\": \"%s/slurm.log\",\n"
		 " \"hosts\": {\"node04\": \"spare04\"}, \"host_format\": \"{node}-ib\",\n"
		 " \"lock_timeout_s\": %d, \"defaults\": %s}\n",
		 keys, dir, dir, dir, lock_timeout, defaults);
	test_put_file(dir, "slurm.json", text, 0644);
}

static void write_config(const char *dir, const char *defaults, int lock_timeout)
{
	char keys[256];

	snprintf(keys, sizeof(keys), "\"topology\": \"%s/topology.json\",\n", dir);
	write_config_keys(dir, keys, defaults, lock_timeout);
}

FIXTURE_SETUP(slurm)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_LT(0, n);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(self->script, sizeof(self->script),
		 "%s/../../../scripts/slurm/rocepath-slurmctld", exe);
	if (access(self->script, X_OK) || access("/usr/bin/python3", X_OK))
		SKIP(return, "no scripts/slurm/rocepath-slurmctld or no /usr/bin/python3");
	strcpy(self->dir, "/tmp/rp-slurm-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	test_put_file(self->dir, "scontrol", fake_scontrol, 0755);
	test_put_file(self->dir, "topology.json", topology, 0644);
	test_put_file(self->dir, "placement.json",
	    "{\"jobs\": [{\"id\": \"manual\", \"pattern\": \"ring\", \"qps_per_connection\": 1,"
	    " \"rails\": [0], \"hosts\": [\"node01-ib\", \"node03-ib\"]}]}\n", 0644);
	write_config(self->dir, "{\"rails\": [0], \"qps_per_connection\": 4}", 2);
}

FIXTURE_TEARDOWN(slurm)
{
	char cmd[128];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		perror(cmd);
}

/*
 * Runs the script: ARGS NULL-terminated after the script; CONTEXT/COMMENT
 * set in its environment when not NULL. Returns the exit status.
 */
static int run_env(const char *dir, const char *script, const char *context,
		   const char *comment, const char *jobid, const char *const *args)
{
	char cfg[128];
	pid_t pid = fork();
	int st;

	if (!pid) {
		const char *argv[8] = { script };
		int dn = open("/dev/null", O_WRONLY);

		for (int i = 0; args && args[i] && i < 6; i++)
			argv[i + 1] = args[i];
		snprintf(cfg, sizeof(cfg), "%s/slurm.json", dir);
		setenv("ROCEPATH_SLURM_CONFIG", cfg, 1);
		unsetenv("SLURM_JOB_COMMENT");
		if (context)
			setenv("SLURM_SCRIPT_CONTEXT", context, 1);
		if (comment)
			setenv("FAKE_COMMENT", comment, 1);
		if (jobid)
			setenv("SLURM_JOB_ID", jobid, 1);
		dup2(dn, 1);
		dup2(dn, 2);
		execv(script, (char **)argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int run(const char *dir, const char *script, const char *comment,
	       const char *a0, const char *a1, const char *a2)
{
	const char *args[] = { a0, a1, a2, NULL };

	return run_env(dir, script, NULL, comment, NULL, args);
}

/* The job with @id in the placement as compact JSON, or "" when absent. */
static const char *job(const char *dir, const char *id, char *buf, size_t len)
{
	char *text = slurp(dir, "placement.json");
	json_object *root = json_tokener_parse(text), *jobs;

	buf[0] = '\0';
	free(text);
	if (!root || !json_object_object_get_ex(root, "jobs", &jobs)) {
		json_object_put(root);
		return buf;
	}
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *v;

		if (json_object_object_get_ex(j, "id", &v) &&
		    !strcmp(json_object_get_string(v), id))
			snprintf(buf, len, "%s", json_object_to_json_string_ext(j,
				 JSON_C_TO_STRING_PLAIN));
	}
	json_object_put(root);
	return buf;
}

TEST_F(slurm, add_remove)
{
	char buf[1024], *before, *after;

	EXPECT_EQ(0, run(self->dir, self->script, "x rocepath:rails=0,1;qps=2 y",
			 "add", "101", "node[01-02]"));
	EXPECT_STREQ("{\"id\":\"slurm-101\",\"pattern\":\"ring\",\"qps_per_connection\":2,"
		     "\"rails\":[0,1],\"hosts\":[\"node01-ib\",\"node02-ib\"]}",
		     job(self->dir, "slurm-101", buf, sizeof(buf)));
	/* No comment: the config's defaults; node04 mapped explicitly. */
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "102", "node[03-04]"));
	EXPECT_STREQ("{\"id\":\"slurm-102\",\"pattern\":\"ring\",\"qps_per_connection\":4,"
		     "\"rails\":[0],\"hosts\":[\"node03-ib\",\"spare04\"]}",
		     job(self->dir, "slurm-102", buf, sizeof(buf)));
	EXPECT_STRNE("", job(self->dir, "manual", buf, sizeof(buf)));
	/* Epilog by context, as slurmctld runs it: no arguments. */
	EXPECT_EQ(0, run_env(self->dir, self->script, "epilog_slurmctld", NULL, "101", NULL));
	EXPECT_STREQ("", job(self->dir, "slurm-101", buf, sizeof(buf)));
	EXPECT_STRNE("", job(self->dir, "slurm-102", buf, sizeof(buf)));
	EXPECT_STRNE("", job(self->dir, "manual", buf, sizeof(buf)));
	/* Removing a job that is not there changes nothing. */
	before = slurp(self->dir, "placement.json");
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "remove", "999", NULL));
	after = slurp(self->dir, "placement.json");
	EXPECT_STREQ(before, after);
	free(before);
	free(after);
	before = slurp(self->dir, "slurm.log");
	EXPECT_NE(NULL, strstr(before, "job 101 added")) TH_LOG("%s", before);
	EXPECT_NE(NULL, strstr(before, "job 101 removed")) TH_LOG("%s", before);
	free(before);
}

/* Each bad case: exit 0, placement untouched, the reason in the log. */
TEST_F(slurm, bad_input)
{
	static const struct {
		const char *comment, *nodes, *fail, *defaults, *log;
	} c[] = {
		{ NULL, "node[01-02,09]", NULL, NULL,
		  "node node09 (host node09-ib) is not in the topology" },
		{ "rocepath:rails=0,1", "node[02-03]", NULL, NULL,
		  "host node03-ib has no NIC on rail(s) [1]" },
		{ "rocepath:rails=x", "node[01-02]", NULL, NULL, "job comment 'rocepath:rails=x'" },
		{ "rocepath:pattern=tree", "node[01-02]", NULL, NULL, "pattern 'tree' is not one of" },
		{ "rocepath:off", "node[01-02]", NULL, NULL, "rocepath:off" },
		{ NULL, "node01", NULL, NULL, "job runs on 1 node(s)" },
		{ NULL, "node[01-02]", "1", NULL, "Unable to contact slurm controller" },
		{ NULL, "node[01-02]", NULL, "{\"qps_per_connection\": 4}", "no rails" },
	};
	char *before = slurp(self->dir, "placement.json"), *after, *log;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *args[] = { "add", "201", c[i].nodes, NULL };

		if (c[i].defaults)
			write_config(self->dir, c[i].defaults, 2);
		if (c[i].fail)
			setenv("FAKE_FAIL", c[i].fail, 1);
		EXPECT_EQ(0, run_env(self->dir, self->script, NULL, c[i].comment, NULL, args));
		unsetenv("FAKE_FAIL");
		after = slurp(self->dir, "placement.json");
		log = slurp(self->dir, "slurm.log");
		EXPECT_STREQ(before, after) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(log, c[i].log)) TH_LOG("case %zu: no '%s' in:\n%s", i, c[i].log, log);
		EXPECT_NE(NULL, strstr(log, "placement unchanged"));
		free(after);
		free(log);
		unlink(strcat(strcpy(self->path, self->dir), "/slurm.log"));
	}
	/* A config it cannot use, then none at all: exit 0 (stderr, syslog say why). */
	write_config(self->dir, "{\"rails\": [0], \"bogus\": 1}", 2);
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "202", "node[01-02]"));
	after = slurp(self->dir, "placement.json");
	EXPECT_STREQ(before, after);
	free(after);
	unlink(strcat(strcpy(self->path, self->dir), "/slurm.json"));
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "202", "node[01-02]"));
	after = slurp(self->dir, "placement.json");
	EXPECT_STREQ(before, after);
	free(after);
	free(before);
}

/*
 * 16 prologs at once under flock: none loses another's entry. Generous
 * lock and test timeouts: a loaded CI host (valgrind, guests) is slow to
 * start 16 Python processes.
 */
TEST_F_TIMEOUT(slurm, concurrent_starts, 180)
{
	char buf[1024], id[16], name[32];
	pid_t pids[16];
	int st;

	write_config(self->dir, "{\"rails\": [0], \"qps_per_connection\": 4}", 60);
	for (int i = 0; i < 16; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			snprintf(id, sizeof(id), "%d", 300 + i);
			_exit(run(self->dir, self->script, NULL, "add", id,
				  i % 2 ? "node[01-02]" : "node[03-04]"));
		}
	}
	for (int i = 0; i < 16; i++) {
		waitpid(pids[i], &st, 0);
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "slurm-%d", 300 + i);
		EXPECT_STRNE("", job(self->dir, name, buf, sizeof(buf))) TH_LOG("%s lost", name);
	}
	/* No temp file left behind. */
	snprintf(buf, sizeof(buf), "ls -A '%s' | grep -c '^\\.placement\\.' >/dev/null", self->dir);
	EXPECT_NE(0, system(buf));
}

/*
 * No topology in slurm.json: the prolog checks the nodes against the one
 * rocepathd plans with (its config's topology key, relative to the config
 * file), and with neither it leaves the placement alone.
 */
TEST_F(slurm, topology_from_rocepathd_conf)
{
	char keys[512], buf[1024], *before, *after, *log;

	snprintf(keys, sizeof(keys), "\"rocepathd_config\": \"%s/rocepathd.conf\",\n", self->dir);
	write_config_keys(self->dir, keys, "{\"rails\": [0]}", 2);
	test_put_file(self->dir, "rocepathd.conf",
	    "{\"topology\": \"topology.json\", \"placement\": \"placement.json\"}\n", 0644);

	before = slurp(self->dir, "placement.json");
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "501", "node[01-02,09]"));
	after = slurp(self->dir, "placement.json");
	EXPECT_STREQ(before, after);
	free(after);
	log = slurp(self->dir, "slurm.log");
	snprintf(self->path, sizeof(self->path),
		 "node node09 (host node09-ib) is not in the topology %s/topology.json", self->dir);
	EXPECT_NE(NULL, strstr(log, self->path)) TH_LOG("%s", log);
	free(log);

	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "502", "node[01-02]"));
	EXPECT_STREQ("{\"id\":\"slurm-502\",\"pattern\":\"ring\",\"qps_per_connection\":1,"
		     "\"rails\":[0],\"hosts\":[\"node01-ib\",\"node02-ib\"]}",
		     job(self->dir, "slurm-502", buf, sizeof(buf)));

	/* Neither names a topology: unchanged, and the log says why. */
	free(before);
	before = slurp(self->dir, "placement.json");
	test_put_file(self->dir, "rocepathd.conf", "{\"placement\": \"placement.json\"}\n", 0644);
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "503", "node[01-02]"));
	after = slurp(self->dir, "placement.json");
	EXPECT_STREQ(before, after);
	free(after);
	log = slurp(self->dir, "slurm.log");
	EXPECT_NE(NULL, strstr(log, "job 503 add: no topology to check the nodes against"))
		TH_LOG("%s", log);
	free(log);
	free(before);
}

/*
 * Two prologs whose post_command copies overlap: the first copy read the
 * file before the second job was added and is slow to land. The second
 * copy must not run until the first landed, so the hosts end with the
 * newest placement, not the first job's.
 */
TEST_F_TIMEOUT(slurm, post_command_newest_lands, 120)
{
	char keys[1024], script[1024], *want, *got;
	pid_t pid;
	int st, i;

	snprintf(script, sizeof(script),
		 "#!/bin/bash\n"
		 "cp %1$s/placement.json %1$s/.push.$$\n"
		 "mkdir %1$s/first 2>/dev/null && sleep 2\n"
		 "mv %1$s/.push.$$ %1$s/pushed.json\n", self->dir);
	test_put_file(self->dir, "push.sh", script, 0755);
	snprintf(keys, sizeof(keys), "\"topology\": \"%1$s/topology.json\",\n"
		 " \"post_command\": \"%1$s/push.sh\",\n", self->dir);
	write_config_keys(self->dir, keys, "{\"rails\": [0]}", 10);

	pid = fork();
	if (!pid)
		_exit(run(self->dir, self->script, NULL, "add", "601", "node[01-02]"));
	/* The first copy has read the file and sleeps before it lands. */
	snprintf(self->path, sizeof(self->path), "%s/first", self->dir);
	for (i = 0; i < 400 && access(self->path, F_OK); i++)
		usleep(50000);
	ASSERT_EQ(0, access(self->path, F_OK));
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "602", "node[03-04]"));
	waitpid(pid, &st, 0);
	EXPECT_EQ(0, WEXITSTATUS(st));

	want = slurp(self->dir, "placement.json");
	got = slurp(self->dir, "pushed.json");
	EXPECT_NE(NULL, strstr(want, "slurm-602"));
	EXPECT_STREQ(want, got);
	free(want);
	free(got);
}

/* A lock held elsewhere: give up after lock_timeout_s, job not blocked. */
TEST_F(slurm, lock_held)
{
	char *before = slurp(self->dir, "placement.json"), *after, *log;
	int fd;

	write_config(self->dir, "{\"rails\": [0]}", 1);
	snprintf(self->path, sizeof(self->path), "%s/placement.json.lock", self->dir);
	fd = open(self->path, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, flock(fd, LOCK_EX));
	EXPECT_EQ(0, run(self->dir, self->script, NULL, "add", "401", "node[01-02]"));
	close(fd);
	after = slurp(self->dir, "placement.json");
	log = slurp(self->dir, "slurm.log");
	EXPECT_STREQ(before, after);
	EXPECT_NE(NULL, strstr(log, "cannot lock")) TH_LOG("%s", log);
	free(before);
	free(after);
	free(log);
}

TEST_HARNESS_MAIN
