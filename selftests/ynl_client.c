// SPDX-License-Identifier: GPL-2.0
/*
 * ynl_client: one YNL CLI call, run by a warm Python in the guest.
 *
 *   ynl_client PATH/ynl_cli.py PATH/cli.py [cli.py options]
 *
 * takes the arguments of `python3 ynl_cli.py ...` and gives the same
 * output and exit code. Under TCG a cold python3 spends about 1.7 s
 * importing YNL and parsing the spec before it sends one message, and the
 * selftests make hundreds of calls. ynl_server.py (next to ynl_cli.py) has
 * done that once; per call it forks a worker that takes this process's
 * stdin, stdout and stderr (passed over the socket), its directory and,
 * for an unprivileged caller, its user and groups.
 *
 * The server runs only in the test guests (scripts/vm/guest-init.sh marks
 * them with /run/rpvm.guest); the first root call there starts it. Anywhere
 * else, and for a caller the server cannot stand in for (other namespaces,
 * partial capabilities: ynl_server.py decides), this runs python3 itself.
 *
 *   ynl_client --python ARGS
 *
 * stands for `python3 ARGS` (a script, -c CODE or -) in the same way: the
 * tests' JSON one-liners then cost a fork of the warm Python, not a cold
 * start (under TCG on 6.12, 0.13 s against 0.37 s). Started by such a
 * call, the server preloads YNL only when YNL_DIR and YNL_SPEC (lib.sh)
 * are in the environment, and finds its script under ROCEPATH_TOP.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUEST_MARK "/run/rpvm.guest"
#define SOCK_PATH "/run/rocepath-ynl.sock"
#define LOCK_PATH "/run/rocepath-ynl.lock"
#define LOG_PATH "/run/rocepath-ynl.log"
#define START_WAIT_MS 60000
#define REQ_MAX (1 << 20)

static int connect_server(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(sa.sun_path, SOCK_PATH);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static bool python_mode(char **argv)
{
	return !strcmp(argv[1], "--python");
}

/*
 * The server's script sits next to ynl_cli.py, the first argument of a
 * YNL call; a --python call finds both through the tests' environment.
 */
static int start_server(char **argv)
{
	char script[4096], cli[4096];
	const char *slash = strrchr(argv[1], '/');
	const char *spec = "", *top, *dir, *ynl_spec;
	pid_t pid;
	int i;

	if (python_mode(argv)) {
		top = getenv("ROCEPATH_TOP");
		dir = getenv("YNL_DIR");
		ynl_spec = getenv("YNL_SPEC");
		if (!top)
			return -ENOENT;
		snprintf(script, sizeof(script), "%s/selftests/ynl_server.py", top);
		strcpy(cli, "-");
		if (dir && ynl_spec) {
			snprintf(cli, sizeof(cli), "%s/cli.py", dir);
			spec = ynl_spec;
		}
	} else {
		if (slash)
			snprintf(script, sizeof(script), "%.*s/ynl_server.py",
				 (int)(slash - argv[1]), argv[1]);
		else
			snprintf(script, sizeof(script), "ynl_server.py");
		snprintf(cli, sizeof(cli), "%s", argv[2]);
		for (i = 2; argv[i]; i++)
			if (!strcmp(argv[i], "--spec") && argv[i + 1])
				spec = argv[i + 1];
	}

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		int log = open(LOG_PATH, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (null < 0 || log < 0)
			_exit(127);
		dup2(null, 0);
		dup2(log, 1);
		dup2(log, 2);
		setsid();
		/* Detached: the calls of every later test are its clients. */
		if (fork() == 0) {
			execlp("python3", "python3", script, SOCK_PATH, cli,
			       spec, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	return waitpid(pid, NULL, 0) < 0 ? -errno : 0;
}

/* Connects, starting the server under a lock when nobody has yet. */
static int server(char **argv)
{
	struct timespec nap = { .tv_nsec = 50 * 1000 * 1000 };
	int fd, lock, waited;

	fd = connect_server();
	if (fd >= 0 || getuid() != 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
		return fd;
	lock = open(LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0)
		return -errno;
	if (flock(lock, LOCK_EX) < 0) {
		fd = -errno;
		goto out;
	}
	fd = connect_server();
	if (fd >= 0)
		goto out;
	unlink(SOCK_PATH);
	fd = start_server(argv);
	if (fd < 0)
		goto out;
	for (waited = 0; waited < START_WAIT_MS; waited += 50) {
		fd = connect_server();
		if (fd >= 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
			break;
		nanosleep(&nap, NULL);
	}
out:
	close(lock);
	return fd;
}

static int send_request(int fd, char **argv)
{
	char *buf, cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct iovec iov;
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int fds[3] = { 0, 1, 2 };
	size_t len = 4, off;
	uint32_t n;
	ssize_t r;
	int i;

	for (i = 1; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	if (len > REQ_MAX)
		return -E2BIG;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	n = len - 4;
	memcpy(buf, &n, 4);
	for (off = 4, i = 1; argv[i]; i++) {
		memcpy(buf + off, argv[i], strlen(argv[i]) + 1);
		off += strlen(argv[i]) + 1;
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	iov.iov_base = buf;
	iov.iov_len = len;
	for (off = 0; off < len; off += r) {
		r = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (r < 0) {
			free(buf);
			return -errno;
		}
		iov.iov_base = buf + off + r;
		iov.iov_len = len - off - r;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	}
	free(buf);
	return 0;
}

static int read_full(int fd, void *p, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, (char *)p + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		got += r;
	}
	return 0;
}

static void run_python(char **argv)
{
	if (python_mode(argv))
		argv++;
	argv[0] = "python3";
	execvp("python3", argv);
	perror("ynl_client: python3");
	exit(127);
}

int main(int argc, char **argv)
{
	char verdict;
	int32_t rc;
	int fd, err;

	if (argc < 3) {
		fprintf(stderr, "usage: ynl_client PATH/ynl_cli.py PATH/cli.py [OPTIONS]\n"
			"       ynl_client --python ARGS\n");
		return 2;
	}
	if (access(GUEST_MARK, F_OK))
		run_python(argv);
	fd = server(argv);
	if (fd < 0)
		run_python(argv);
	err = send_request(fd, argv);
	if (!err)
		err = read_full(fd, &verdict, 1);
	/* Nothing has run yet: python3 itself does the same call. */
	if (err || verdict != 'R') {
		close(fd);
		run_python(argv);
	}
	err = read_full(fd, &rc, sizeof(rc));
	if (err) {
		fprintf(stderr, "ynl_client: the worker died: %s\n", strerror(-err));
		return 1;
	}
	return rc;
}
