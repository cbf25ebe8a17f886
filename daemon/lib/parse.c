// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rocepath.h>

#include "parse.h"

int rp_parse_u32(const char *s, uint32_t max, uint32_t *v)
{
	bool hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	unsigned long long x;
	char *end;

	/* No sign, no blanks, no octal: "010" is ten. */
	if (!s || !(hex ? isxdigit((unsigned char)*digits) :
		    isdigit((unsigned char)*digits)))
		return -EINVAL;
	errno = 0;
	x = strtoull(digits, &end, hex ? 16 : 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int rp_parse_sport(const char *s, uint16_t *v)
{
	uint32_t x;
	int ret;

	ret = rp_parse_u32(s, ROCEPATH_SPORT_MAX, &x);
	if (ret)
		return ret;
	if (x < ROCEPATH_SPORT_MIN)
		return -ERANGE;
	*v = x;
	return 0;
}

int rp_parse_sports(const char *s, uint16_t *ports, size_t max, size_t *n)
{
	const char *p = s;
	char item[16];
	size_t cnt = 0;
	int ret;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		uint16_t port;

		if (!len || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, p, len);
		item[len] = '\0';
		ret = rp_parse_sport(item, &port);
		if (ret)
			return ret;
		for (size_t i = 0; i < cnt; i++)
			if (ports[i] == port)
				return -EEXIST;
		if (cnt == max)
			return -E2BIG;
		ports[cnt++] = port;
		p += len;
		if (!*p)
			break;
		p++;
	}
	*n = cnt;
	return 0;
}

int rp_parse_ibdev(const char *s)
{
	size_t len;

	if (!s)
		return -EINVAL;
	len = strlen(s);
	if (!len || len > 63)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '/')
			return -EINVAL;
	return 0;
}
