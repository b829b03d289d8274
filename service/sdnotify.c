/*
 * sdnotify.c: systemd notifications over $NOTIFY_SOCKET (sdnotify.h).
 *
 * The address: a path is copied NUL-terminated into sun_path (at most
 * sizeof sun_path - 1 bytes); an abstract name "@name" becomes "\0name",
 * not NUL-terminated, and the address length counts exactly its bytes
 * (a trailing NUL would be part of the name).  The datagram is sent with
 * MSG_NOSIGNAL on a SOCK_CLOEXEC socket opened and closed in the call;
 * close() never overwrites the errno of a failure.
 */
#include "sdnotify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Fill *sa from NOTIFY_SOCKET's value e; its length, or 0 with errno. */
static socklen_t notify_addr(struct sockaddr_un *sa, const char *e)
{
	size_t n = strlen(e), room = sizeof sa->sun_path;

	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (e[0] != '/' && e[0] != '@') {
		errno = EAFNOSUPPORT;
		return 0;
	}
	if (e[0] == '@' && n < 2) {
		errno = EINVAL;      /* "@" alone names nothing */
		return 0;
	}
	if (e[0] == '@' ? n > room : n >= room) {
		errno = ENAMETOOLONG;
		return 0;
	}
	memcpy(sa->sun_path, e, n);
	if (e[0] == '/')
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	sa->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

int west_sd_notify(const char *state)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen;
	size_t n;
	ssize_t sent;
	int fd, saved;

	if (!e || !*e)
		return 0;
	if (!state) {
		errno = EINVAL;
		return -1;
	}
	if (!(salen = notify_addr(&sa, e)))
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	n = strlen(state);
	sent = sendto(fd, state, n, MSG_NOSIGNAL, (const struct sockaddr *)&sa, salen);
	saved = errno;
	close(fd);
	if (sent >= 0 && (size_t)sent != n)
		saved = EMSGSIZE;    /* a datagram goes whole or not at all */
	errno = saved;
	return sent >= 0 && (size_t)sent == n ? 1 : -1;
}

int west_sd_notifyf(const char *fmt, ...)
{
	va_list ap;
	char small[256], *s = small;
	int n, r, saved;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof small && (s = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (n < 0 || !s) {
		errno = n < 0 ? EINVAL : ENOMEM;
		return -1;
	}
	r = west_sd_notify(s);
	saved = errno;
	if (s != small)
		free(s);
	errno = saved;
	return r;
}

/* s as a decimal integer in 1..ULLONG_MAX, all of it; 0 otherwise. */
static unsigned long long parse_positive(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return 0;
	return v;
}

unsigned long long west_sd_watchdog_usec(void)
{
	const char *pid = getenv("WATCHDOG_PID");
	int saved = errno;
	unsigned long long usec = parse_positive(getenv("WATCHDOG_USEC"));

	if (usec && pid && parse_positive(pid) != (unsigned long long)getpid())
		usec = 0;
	errno = saved;
	return usec;
}

unsigned long long west_sd_monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL
		+ (unsigned long long)ts.tv_nsec / 1000ULL;
}
