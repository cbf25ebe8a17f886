// SPDX-License-Identifier: GPL-2.0
/* Minimal sd_notify(3) client over a unix datagram socket. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sd_notify.h"

int rpd_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len, slen;
	socklen_t alen;
	ssize_t n;
	int fd;

	if (!path || !*path)
		return 0;
	slen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || slen >= sizeof(sun.sun_path))
		return -EINVAL;
	memcpy(sun.sun_path, path, slen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	alen = offsetof(struct sockaddr_un, sun_path) + slen;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	len = strlen(state);
	n = sendto(fd, state, len, MSG_NOSIGNAL, (struct sockaddr *)&sun, alen);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return (size_t)n == len ? 1 : -EMSGSIZE;
}

int rpd_sd_notifyf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EMSGSIZE;
	return rpd_sd_notify(buf);
}
