// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd plumbing on the host: the inotify watcher sees in-place
 * writes, rename-over replacement (editors, schedulers), deletion and
 * re-creation, and ignores other files; the stat poll sees writes inotify
 * does not; the sd_notify client speaks the
 * protocol; plan pins in JSON convert to the reconciler's form.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"

#include "backend.h"
#include "rpd_log.h"
#include "reconcile.h"
#include "sd_notify.h"
#include "watch.h"

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		perror(path);
	close(fd);
}

/* Events for the watch, waiting up to 2 s for the first one. */
static int wait_changes(struct rpd_watch *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	int mask = 0;

	if (poll(&p, 1, 2000) <= 0)
		return 0;
	usleep(20000);	/* let a burst of events arrive */
	mask = rpd_watch_read(w);
	return mask;
}

FIXTURE(watch) {
	char dir[64];
	char topo[128], place[128], other[128], tmp[128];
	struct rpd_watch w;
};

FIXTURE_SETUP(watch)
{
	const char *paths[2];

	rpd_log_set_level(RPD_LOG_ERR);
	strcpy(self->dir, "/tmp/rocepathd-watch-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->topo, sizeof(self->topo), "%s/topology.json", self->dir);
	snprintf(self->place, sizeof(self->place), "%s/sub/placement.json", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/sub/other.json", self->dir);
	snprintf(self->tmp, sizeof(self->tmp), "%s/sub/.placement.json.tmp", self->dir);
	snprintf(self->tmp, sizeof(self->tmp), "%s/sub", self->dir);
	ASSERT_EQ(0, mkdir(self->tmp, 0755));
	snprintf(self->tmp, sizeof(self->tmp), "%s/sub/.placement.json.tmp", self->dir);
	put(self->topo, "{}");
	put(self->place, "{}");
	ASSERT_EQ(0, rpd_watch_open(&self->w));
	paths[0] = self->topo;
	paths[1] = self->place;
	ASSERT_EQ(0, rpd_watch_set(&self->w, paths, 2));
}

FIXTURE_TEARDOWN(watch)
{
	char cmd[128];

	rpd_watch_close(&self->w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		perror(cmd);
}

/* An in-place write (IN_CLOSE_WRITE) marks exactly that file. */
TEST_F(watch, write_in_place)
{
	put(self->place, "{\"jobs\": []}");
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
	put(self->topo, "{\"x\": 1}");
	EXPECT_EQ(1 << 0, wait_changes(&self->w));
}

/* Write a temp file and rename it over (IN_MOVED_TO), as editors do. */
TEST_F(watch, rename_over)
{
	put(self->tmp, "{\"jobs\": [1]}");
	/* The temp file itself is not one of ours. */
	EXPECT_EQ(0, rpd_watch_read(&self->w));
	ASSERT_EQ(0, rename(self->tmp, self->place));
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
	/* And again: the new inode is followed too (the directory is watched). */
	put(self->tmp, "{\"jobs\": [2]}");
	(void)rpd_watch_read(&self->w);
	ASSERT_EQ(0, rename(self->tmp, self->place));
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
}

/* Deletion and re-creation are both seen. */
TEST_F(watch, delete_and_create)
{
	ASSERT_EQ(0, unlink(self->place));
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
	put(self->place, "{}");
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
}

/* Other files in the same directory are ignored. */
TEST_F(watch, other_files_ignored)
{
	struct pollfd p = { .fd = self->w.fd, .events = POLLIN };

	put(self->other, "{}");
	ASSERT_EQ(1, poll(&p, 1, 2000));
	EXPECT_EQ(0, rpd_watch_read(&self->w));
}

/* A missing directory is reported and picked up once it exists. */
TEST_F(watch, missing_directory)
{
	char late[160], latedir[140];
	const char *paths[2];

	snprintf(latedir, sizeof(latedir), "%s/late", self->dir);
	snprintf(late, sizeof(late), "%s/placement.json", latedir);
	paths[0] = self->topo;
	paths[1] = late;
	EXPECT_EQ(1, rpd_watch_set(&self->w, paths, 2));
	EXPECT_EQ(1, rpd_watch_rearm(&self->w));
	ASSERT_EQ(0, mkdir(latedir, 0755));
	EXPECT_EQ(0, rpd_watch_rearm(&self->w));
	put(late, "{}");
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
}

/* Kubernetes ConfigMap style: the "..data" symlink is swapped. */
TEST_F(watch, configmap_data_swap)
{
	char data[160], link[160];

	snprintf(data, sizeof(data), "%s/sub/..data_tmp", self->dir);
	snprintf(link, sizeof(link), "%s/sub/..data", self->dir);
	ASSERT_EQ(0, symlink("x", data));
	(void)rpd_watch_read(&self->w);
	ASSERT_EQ(0, rename(data, link));
	EXPECT_EQ(1 << 1, wait_changes(&self->w));
}

/* sd_notify: unset socket is a no-op; a set one receives the datagram. */
TEST(sd_notify_protocol)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[256], path[64];
	ssize_t n;
	int fd;

	unsetenv("NOTIFY_SOCKET");
	EXPECT_EQ(0, rpd_sd_notify("READY=1"));

	snprintf(path, sizeof(path), "/tmp/rocepathd-notify-%d", getpid());
	unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0);
	strcpy(sun.sun_path, path);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sun, sizeof(sun)));
	setenv("NOTIFY_SOCKET", path, 1);
	EXPECT_EQ(1, rpd_sd_notify("READY=1"));
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ASSERT_EQ(7, n);
	buf[n] = '\0';
	EXPECT_STREQ("READY=1", buf);
	EXPECT_EQ(1, rpd_sd_notifyf("STATUS=%d pins", 3));
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	EXPECT_STREQ("STATUS=3 pins", buf);
	close(fd);
	unlink(path);

	/* Abstract namespace socket ("@name"). */
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_GE(fd, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(path, sizeof(path), "@rocepathd-test-%d", getpid());
	memcpy(sun.sun_path + 1, path + 1, strlen(path) - 1);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sun,
			  offsetof(struct sockaddr_un, sun_path) + strlen(path)));
	setenv("NOTIFY_SOCKET", path, 1);
	EXPECT_EQ(1, rpd_sd_notify("STOPPING=1"));
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ASSERT_EQ(10, n);
	close(fd);

	setenv("NOTIFY_SOCKET", "relative", 1);
	EXPECT_EQ(-EINVAL, rpd_sd_notify("READY=1"));
	unsetenv("NOTIFY_SOCKET");
}

/* Planner host pins (JSON) load through the one pins parser into the reconciler's pins. */
TEST(pins_from_json)
{
	const char *text =
		"[{\"dev\": null, \"remote\": \"192.0.2.2\", \"sports\": [49153, 50001],"
		"  \"rqpn\": null, \"lqpn\": null},"
		" {\"dev\": \"rxe0\", \"remote\": \"2001:db8::2\", \"sports\": [65535],"
		"  \"rqpn\": 17, \"lqpn\": null}]";
	json_object *arr = json_tokener_parse(text);
	struct rp_pins s = { 0 };
	char err[256] = "", buf[256];

	ASSERT_NE(NULL, arr);
	ASSERT_EQ(0, rp_pins_from_json(arr, "plan", &s, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, s.n);
	rp_pin_format(&s.v[0], buf, sizeof(buf));
	EXPECT_STREQ("192.0.2.2 sport 49153,50001", buf);
	rp_pin_format(&s.v[1], buf, sizeof(buf));
	EXPECT_STREQ("2001:db8::2 sport 65535 dev rxe0 rqpn 17", buf);
	json_object_put(arr);
	rp_pins_free(&s);

	/* Bad entries are rejected with the index. */
	arr = json_tokener_parse("[{\"remote\": \"192.0.2.2\", \"sports\": [80]}]");
	EXPECT_EQ(-EINVAL, rp_pins_from_json(arr, "plan", &s, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "plan: pin 0")) TH_LOG("%s", err);
	json_object_put(arr);
	arr = json_tokener_parse("[{\"remote\": \"h2\", \"sports\": [50000]}]");
	EXPECT_EQ(-EINVAL, rp_pins_from_json(arr, "plan", &s, err, sizeof(err)));
	json_object_put(arr);
	rp_pins_free(&s);
}

/* Two hosts on two leaves under one spine; the ring a -> b gives host a one pin. */
#define TWO_HOSTS \
	"{\"switches\": [" \
	"{\"name\": \"leaf0\", \"tier\": \"leaf\", \"hash\": {\"algorithm\": \"crc16-ccitt\", \"seed\": 0, \"fields\": [\"src_port\"]}}," \
	"{\"name\": \"leaf1\", \"tier\": \"leaf\", \"hash\": {\"algorithm\": \"crc16-ccitt\", \"seed\": 0, \"fields\": [\"src_port\"]}}," \
	"{\"name\": \"spine0\", \"tier\": \"spine\", \"hash\": {\"algorithm\": \"crc32\", \"seed\": 0, \"fields\": [\"src_port\"]}}]," \
	" \"links\": [{\"a\": \"leaf0\", \"a_port\": 1, \"b\": \"spine0\", \"b_port\": 1, \"up\": true}," \
	"            {\"a\": \"leaf1\", \"a_port\": 1, \"b\": \"spine0\", \"b_port\": 2, \"up\": true}]," \
	" \"hosts\": [" \
	"{\"name\": \"a\", \"nics\": [{\"rail\": 0, \"netdev\": \"eth0\", \"ip\": \"192.0.2.1\", \"leaf\": \"leaf0\"}]}," \
	"{\"name\": \"b\", \"nics\": [{\"rail\": 0, \"netdev\": \"eth0\", \"ip\": \"192.0.2.2\", \"leaf\": \"leaf1\"}]}]}"
#define RING_AB \
	"{\"jobs\": [{\"id\": \"j\", \"pattern\": \"ring\", \"qps_per_connection\": 2," \
	" \"rails\": [0], \"hosts\": [\"a\", \"b\"]}]}"

/* The daemon binary next to the tests: daemon/rocepathd/rocepathd. */
static int daemon_path(char *buf, size_t len)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');	/* .../daemon/tests/bin/test_daemon */
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(buf, len, "%s/../../rocepathd/rocepathd", self);
	return access(buf, X_OK);
}

/*
 * A temporary directory @dir with the two-host topology and, for
 * $NOTIFY_SOCKET, a datagram socket bound at @dir/notify (path in @sock):
 * its fd, or -1.
 */
static int e2e_setup(char *dir, char *sock, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[700];
	int fd;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/topology.json", dir);
	put(path, TWO_HOSTS);
	snprintf(sock, len, "%s/notify", dir);
	if (strlen(sock) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * End to end in dry-run mode: READY=1 over $NOTIFY_SOCKET after the first
 * (dry) push, STOPPING=1 and exit 0 on SIGTERM; a bad config exits 1.
 */
TEST(daemon_dry_run_lifecycle)
{
	char bin[600], dir[] = "/tmp/rocepathd-e2e-XXXXXX", path[700], sock[700];
	char buf[512], all[4096] = "";
	int fd, status, got_ready = 0;
	struct pollfd p;
	pid_t pid;

	if (daemon_path(bin, sizeof(bin)))
		SKIP(return, "daemon binary not built (%s)", bin);
	fd = e2e_setup(dir, sock, sizeof(sock));
	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "%s/placement.json", dir);
	put(path, RING_AB);
	snprintf(path, sizeof(path), "%s/rocepathd.conf", dir);
	put(path, "{\"topology\": \"topology.json\", \"placement\": \"placement.json\","
		  " \"host\": \"a\", \"log_level\": \"error\", \"status_file\": null}");

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		setenv("NOTIFY_SOCKET", sock, 1);
		execl(bin, bin, "-n", "-c", path, (char *)NULL);
		_exit(127);
	}
	p.fd = fd;
	p.events = POLLIN;
	while (!got_ready && poll(&p, 1, 20000) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n <= 0)
			break;
		buf[n] = '\0';
		strncat(all, buf, sizeof(all) - strlen(all) - 2);
		strcat(all, "|");
		got_ready = !!strstr(buf, "READY=1");
	}
	EXPECT_TRUE(got_ready) TH_LOG("notifications: %s", all);
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	got_ready = 0;	/* now: got STOPPING=1 */
	while (!got_ready && poll(&p, 1, 1000) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n <= 0)
			break;
		buf[n] = '\0';
		got_ready = !!strstr(buf, "STOPPING=1");
	}
	EXPECT_TRUE(got_ready);
	close(fd);

	/* A bad config: exit 1 right away. */
	put(path, "{\"topology\": \"topology.json\", \"placement\": \"placement.json\", \"hots\": \"a\"}");
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(bin, bin, "-n", "-c", path, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));

	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(buf));
}

/* Receives notifications on @fd into @all until one holds @needle or @ms pass. */
static bool wait_note(int fd, const char *needle, int ms, char *all, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[512];

	while (poll(&p, 1, ms) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n <= 0)
			break;
		buf[n] = '\0';
		strncat(all, buf, len - strlen(all) - 2);
		strcat(all, "|");
		if (strstr(buf, needle))
			return true;
	}
	return false;
}

/*
 * Runs rocepathd -n -c @conf with $NOTIFY_SOCKET @sock, its log into @log
 * (NULL: none); its pid.
 */
static pid_t start_daemon(const char *bin, const char *conf, const char *sock,
			  const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int out = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644) :
				open("/dev/null", O_WRONLY);

		/* a test that stops at an assertion leaves no daemon behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out, 2);
		setenv("NOTIFY_SOCKET", sock, 1);
		execl(bin, bin, "-n", "-c", conf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * What NFS does to inotify, on a local disk: the placement is a symlink
 * into another directory, so writes to it raise no event in the directory
 * rocepathd watches. The stat poll still sees them: a half-written file
 * is refused with the last good plan kept (1 pin), the whole one is
 * applied (0 pins). With the poll off the same write goes unseen.
 */
TEST(daemon_poll_sees_unwatched_writes)
{
	char bin[600], dir[] = "/tmp/rocepathd-poll-XXXXXX", path[700];
	char conf[700], place[700], sock[700], all[4096] = "", cmd[800];
	int fd, status;
	pid_t pid;

	if (daemon_path(bin, sizeof(bin)))
		SKIP(return, "daemon binary not built (%s)", bin);
	fd = e2e_setup(dir, sock, sizeof(sock));
	ASSERT_GE(fd, 0);
	snprintf(path, sizeof(path), "%s/shared", dir);
	ASSERT_EQ(0, mkdir(path, 0755));
	snprintf(place, sizeof(place), "%s/shared/placement.json", dir);
	put(place, RING_AB);
	snprintf(path, sizeof(path), "%s/placement.json", dir);
	ASSERT_EQ(0, symlink("shared/placement.json", path));
	snprintf(conf, sizeof(conf), "%s/rocepathd.conf", dir);
	put(conf, "{\"topology\": \"topology.json\", \"placement\": \"placement.json\","
		  " \"host\": \"a\", \"log_level\": \"error\", \"debounce_ms\": 0,"
		  " \"metrics\": {\"path\": null}, \"resync_interval_s\": 0,"
		  " \"poll_interval_ms\": 100}");

	pid = start_daemon(bin, conf, sock, NULL);
	ASSERT_GE(pid, 0);
	EXPECT_TRUE(wait_note(fd, "READY=1", 20000, all, sizeof(all)))
		TH_LOG("%s", all);
	EXPECT_NE(NULL, strstr(all, "STATUS=1 pins")) TH_LOG("%s", all);
	/* half written, as a reader on another NFS client may see it */
	put(place, "{\"jobs\": [{\"id\": \"j2\", \"pattern\": ");
	EXPECT_TRUE(wait_note(fd, "last error", 5000, all, sizeof(all)))
		TH_LOG("%s", all);
	/* the last good plan stays: "N pins, generation G; last error" */
	EXPECT_NE(NULL, strstr(all, "STATUS=1 pins, generation")) TH_LOG("%s", all);
	put(place, "{\"jobs\": []}");
	EXPECT_TRUE(wait_note(fd, "STATUS=0 pins installed", 5000, all,
			      sizeof(all))) TH_LOG("%s", all);
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* the control: no poll, and the write is not seen */
	put(place, RING_AB);
	put(conf, "{\"topology\": \"topology.json\", \"placement\": \"placement.json\","
		  " \"host\": \"a\", \"log_level\": \"error\", \"debounce_ms\": 0,"
		  " \"metrics\": {\"path\": null}, \"resync_interval_s\": 0,"
		  " \"poll_interval_ms\": 0}");
	all[0] = '\0';
	pid = start_daemon(bin, conf, sock, NULL);
	ASSERT_GE(pid, 0);
	EXPECT_TRUE(wait_note(fd, "READY=1", 20000, all, sizeof(all)))
		TH_LOG("%s", all);
	put(place, "{\"jobs\": []}");
	EXPECT_FALSE(wait_note(fd, "STATUS=0 pins", 1500, all, sizeof(all)))
		TH_LOG("%s", all);
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/* Runs bin with args, stdout into out; the exit status (-1: not run). */
static int run_cmd(char *argv[], char *out, size_t len)
{
	int pfd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		dup2(null, 2);
		close(pfd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while (got < len - 1 && (n = read(pfd[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The line rocepath_plan_info gives, in --check's "digest plan ..." form. */
static bool metric_digests(const char *prom, char *line, size_t len)
{
	static const char *const keys[] = { "plan", "input", "topology",
					    "placement", "probes" };
	char text[16384] = "", label[32];
	const char *info, *v;
	size_t off = 0;
	FILE *f = fopen(prom, "r");

	if (!f)
		return false;
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	info = strstr(text, "\nrocepath_plan_info{");
	if (!info)
		return false;
	off += snprintf(line, len, "digest");
	for (int i = 0; i < 5; i++) {
		snprintf(label, sizeof(label), "%s_digest=\"", keys[i]);
		v = strstr(info, label);
		if (!v)
			return false;
		v += strlen(label);
		off += snprintf(line + off, len - off, " %s %.24s", keys[i], v);
	}
	snprintf(line + off, len - off, "\n");
	return true;
}

/*
 * rocepathd --status shows what the running daemon plans with: the same
 * digests as its rocepath_plan_info metric and as --check on the same
 * files; once the daemon is gone it says so and exits 1.
 */
TEST(daemon_status_matches_metric)
{
	char bin[600], dir[] = "/tmp/rocepathd-status-XXXXXX", conf[700];
	char sock[700], all[4096] = "", prom[700], cmd[800];
	char out[4096], check[4096], want[512] = "";
	char *st_argv[] = { bin, "--status", "-c", conf, NULL };
	char *ck_argv[] = { bin, "--check", "-c", conf, NULL };
	const char *line;
	int fd, status, tries;
	pid_t pid;

	if (daemon_path(bin, sizeof(bin)))
		SKIP(return, "daemon binary not built (%s)", bin);
	fd = e2e_setup(dir, sock, sizeof(sock));
	ASSERT_GE(fd, 0);
	snprintf(conf, sizeof(conf), "%s/placement.json", dir);
	put(conf, RING_AB);
	snprintf(prom, sizeof(prom), "%s/rocepath.prom", dir);
	snprintf(conf, sizeof(conf), "%s/rocepathd.conf", dir);
	put(conf, "{\"topology\": \"topology.json\", \"placement\": \"placement.json\","
		  " \"host\": \"a\", \"log_level\": \"error\","
		  " \"metrics\": {\"path\": \"rocepath.prom\", \"interval_s\": 1},"
		  " \"status_file\": \"status.json\"}");

	pid = start_daemon(bin, conf, sock, NULL);
	ASSERT_GE(pid, 0);
	EXPECT_TRUE(wait_note(fd, "READY=1", 20000, all, sizeof(all)))
		TH_LOG("%s", all);
	for (tries = 0; tries < 100 && !metric_digests(prom, want, sizeof(want)); tries++)
		usleep(50000);
	ASSERT_NE(0, want[0]) TH_LOG("no rocepath_plan_info in %s", prom);
	ASSERT_EQ(0, run_cmd(st_argv, out, sizeof(out))) TH_LOG("%s", out);
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " running, status of ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "plan valid, 1 pin, last plan ok"));
	line = strstr(out, "digest plan ");
	ASSERT_NE(NULL, line);
	EXPECT_STREQ(want, line);
	ASSERT_EQ(0, run_cmd(ck_argv, check, sizeof(check)));
	EXPECT_NE(NULL, strstr(check, want)) TH_LOG("%s", check);

	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, run_cmd(st_argv, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "NOT running")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Two hosts on loopback addresses, two spines; the leaves hash with
 * @leaf_hash. No switch address is ever reached: the probes go to host b.
 */
#define LO_TOPO(leaf_hash) \
	"{\"switches\": [" \
	"{\"name\": \"l0\", \"tier\": \"leaf\", \"hash\": " leaf_hash ", \"addresses\": [\"127.0.9.1\"]}," \
	"{\"name\": \"l1\", \"tier\": \"leaf\", \"hash\": " leaf_hash ", \"addresses\": [\"127.0.9.2\"]}," \
	"{\"name\": \"s0\", \"tier\": \"spine\", \"hash\": {\"algorithm\": \"crc32\", \"seed\": 0, \"fields\": [\"src_port\"]}, \"addresses\": [\"127.0.9.3\"]}," \
	"{\"name\": \"s1\", \"tier\": \"spine\", \"hash\": {\"algorithm\": \"crc32\", \"seed\": 0, \"fields\": [\"src_port\"]}, \"addresses\": [\"127.0.9.4\"]}]," \
	" \"links\": [{\"a\": \"l0\", \"a_port\": 1, \"b\": \"s0\", \"b_port\": 1, \"up\": true}," \
	"            {\"a\": \"l0\", \"a_port\": 2, \"b\": \"s1\", \"b_port\": 1, \"up\": true}," \
	"            {\"a\": \"l1\", \"a_port\": 1, \"b\": \"s0\", \"b_port\": 2, \"up\": true}," \
	"            {\"a\": \"l1\", \"a_port\": 2, \"b\": \"s1\", \"b_port\": 2, \"up\": true}]," \
	" \"hosts\": [" \
	"{\"name\": \"a\", \"nics\": [{\"rail\": 0, \"ip\": \"127.0.8.1\", \"leaf\": \"l0\"}]}," \
	"{\"name\": \"b\", \"nics\": [{\"rail\": 0, \"ip\": \"127.0.8.2\", \"leaf\": \"l1\"}]}]}"
#define LO_MEASURED "{\"algorithm\": \"measured\"}"
#define LO_CRC16 "{\"algorithm\": \"crc16-ccitt\", \"seed\": 0, \"fields\": [\"src_port\"]}"

/*
 * Waits up to @ms for @needle in the file @path after offset @from; the
 * file is in @buf. The offset of the match, or -1.
 */
static long wait_log(const char *path, const char *needle, long from, int ms,
		     char *buf, size_t len)
{
	for (int waited = 0; waited <= ms; waited += 50) {
		FILE *f = fopen(path, "r");
		const char *at;

		buf[0] = '\0';
		if (f) {
			buf[fread(buf, 1, len - 1, f)] = '\0';
			fclose(f);
		}
		at = (size_t)from <= strlen(buf) ? strstr(buf + from, needle) : NULL;
		if (at)
			return at - buf;
		usleep(50000);
	}
	return -1;
}

/*
 * Probing runs beside the event loop. After a good plan the leaves become
 * measured, and the next plan probes host b, which takes the probes and
 * never answers: its round would last 16 ports x 1 s. While it runs the
 * loop still resyncs the pins of the last good plan and serves SIGHUP,
 * which ends the round and reloads (a new round starts), and SIGTERM ends
 * that one. No round may reach its end ("probed N ports (N packets, ...",
 * then "plan failed"), as every one would if the loop waited for it.
 */
TEST(daemon_probes_beside_the_loop)
{
	char bin[600], dir[] = "/tmp/rocepathd-probe-XXXXXX", topo[700];
	char conf[700], logf[700], sock[700], all[4096] = "", cmd[800];
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(4791) };
	static char log[1 << 16];
	long round, cut;
	int fd, sk, status;
	pid_t pid;

	if (daemon_path(bin, sizeof(bin)))
		SKIP(return, "daemon binary not built (%s)", bin);
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(sk, 0);
	inet_pton(AF_INET, "127.0.8.2", &sin.sin_addr);
	if (bind(sk, (struct sockaddr *)&sin, sizeof(sin))) {
		int e = errno;

		close(sk);
		SKIP(return, "cannot take 127.0.8.2 port 4791 for host b: %s",
		     strerror(e));
	}
	fd = e2e_setup(dir, sock, sizeof(sock));
	ASSERT_GE(fd, 0);
	snprintf(topo, sizeof(topo), "%s/topology.json", dir);
	put(topo, LO_TOPO(LO_CRC16));
	snprintf(conf, sizeof(conf), "%s/placement.json", dir);
	put(conf, RING_AB);
	snprintf(logf, sizeof(logf), "%s/rocepathd.log", dir);
	snprintf(conf, sizeof(conf), "%s/rocepathd.conf", dir);
	snprintf(cmd, sizeof(cmd),
		 "{\"topology\": \"topology.json\", \"placement\": \"placement.json\","
		 " \"host\": \"a\", \"log_level\": \"debug\", \"debounce_ms\": 0,"
		 " \"metrics\": {\"path\": null}, \"resync_interval_s\": 1,"
		 " \"poll_interval_ms\": 0, \"status_file\": null,"
		 " \"state_dir\": \"%s/state\", \"probe_tries\": 1,"
		 " \"probe_timeout_ms\": 1000}", dir);
	put(conf, cmd);

	pid = start_daemon(bin, conf, sock, logf);
	ASSERT_GE(pid, 0);
	ASSERT_TRUE(wait_note(fd, "READY=1", 20000, all, sizeof(all)))
		TH_LOG("%s", all);
	put(topo, LO_TOPO(LO_MEASURED));
	round = wait_log(logf, "probing from a", 0, 10000, log, sizeof(log));
	ASSERT_LE(0, round) TH_LOG("%s", log);
	cut = wait_log(logf, "match the plan, nothing to push", round, 5000,
		       log, sizeof(log));
	EXPECT_LE(0, cut) TH_LOG("no resync while probing: %s", log + round);
	kill(pid, SIGHUP);
	cut = wait_log(logf, "plan cancelled", round, 5000, log, sizeof(log));
	ASSERT_LE(0, cut) TH_LOG("%s", log + round);
	EXPECT_LE(0, wait_log(logf, "probing from a", cut, 5000, log,
			      sizeof(log))) TH_LOG("%s", log + cut);
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_LE(0, wait_log(logf, "SIGTERM", round, 0, log, sizeof(log)));
	/* "probed N ports (N packets, ...)" ends a round */
	EXPECT_EQ(NULL, strstr(log + round, " packets, ")) TH_LOG("%s", log + round);
	EXPECT_EQ(NULL, strstr(log + round, "plan failed")) TH_LOG("%s", log + round);
	close(sk);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
