/*
 * test_sdnotify.c: systemd notifications without libsystemd
 * (service/sdnotify.h).
 *
 * A test plays systemd: it binds a unix datagram socket, in a fresh
 * mkdtemp directory under /tmp or under a random abstract name, points
 * $NOTIFY_SOCKET at it and reads back what west_sd_notify sent.  Criterion
 * runs each test in its own process, so setenv stays inside the test.
 * The receiving socket has a 10 s receive timeout, so a missing datagram
 * fails the test instead of hanging it.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sdnotify.h"

static char dir[64], path[128];
static int rfd = -1;

static void setup(void)
{
	dir[0] = path[0] = '\0';
	rfd = -1;
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

static void teardown(void)
{
	if (rfd >= 0)
		close(rfd);
	if (path[0])
		unlink(path);
	if (dir[0])
		rmdir(dir);
}

TestSuite(sdnotify, .init = setup, .fini = teardown);

/* Bind the receiving socket to sa (len bytes). */
static void bind_receiver(const struct sockaddr_un *sa, socklen_t len)
{
	struct timeval tv = { .tv_sec = 10 };

	rfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(rfd, 0, "socket: %s", strerror(errno));
	cr_assert_eq(setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
	cr_assert_eq(bind(rfd, (const struct sockaddr *)sa, len), 0, "bind: %s",
		     strerror(errno));
}

/* A socket file in a fresh directory; NOTIFY_SOCKET names it. */
static void path_receiver(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(dir, sizeof dir, "/tmp/test_sdnotify.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof path, "%s/notify", dir);
	cr_assert_lt(strlen(path), sizeof sa.sun_path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	bind_receiver(&sa, sizeof sa);
	cr_assert_eq(setenv("NOTIFY_SOCKET", path, 1), 0);
}

/* An abstract socket with a random name padded with 'n' to at least pad
 * bytes; NOTIFY_SOCKET is "@name". */
static void abstract_receiver(char *env, size_t envlen, size_t pad)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec ts;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	srand((unsigned)(ts.tv_nsec ^ getpid()));
	snprintf(env, envlen, "@westd-test-%d-%ld-%d", (int)getpid(),
		 (long)ts.tv_nsec, rand());
	while ((n = strlen(env)) < pad && n + 1 < envlen)
		strcat(env, "n");
	cr_assert_leq(n, sizeof sa.sun_path);
	memcpy(sa.sun_path, env, n);
	sa.sun_path[0] = '\0';
	bind_receiver(&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	cr_assert_eq(setenv("NOTIFY_SOCKET", env, 1), 0);
}

/* The next datagram must be exactly want. */
static void expect(const char *want)
{
	char got[4096];
	ssize_t n = recv(rfd, got, sizeof got - 1, 0);

	cr_assert_geq(n, 0, "recv: %s", strerror(errno));
	got[n] = '\0';
	cr_assert_eq((size_t)n, strlen(want), "length %zd: [%s]", n, got);
	cr_assert_str_eq(got, want);
}

/* ============================================================ sending */

Test(sdnotify, sends_to_a_path)
{
	path_receiver();
	cr_assert_eq(west_sd_notify("READY=1\nSTATUS=serving field 1"), 1);
	expect("READY=1\nSTATUS=serving field 1");
	cr_assert_eq(west_sd_notify("WATCHDOG=1"), 1);
	expect("WATCHDOG=1");
}

Test(sdnotify, notifyf_formats)
{
	char big[1001];

	path_receiver();
	cr_assert_eq(west_sd_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu", 1234567ULL), 1);
	expect("RELOADING=1\nMONOTONIC_USEC=1234567");
	memset(big, 'x', sizeof big - 1);   /* longer than notifyf's stack buffer */
	big[sizeof big - 1] = '\0';
	cr_assert_eq(west_sd_notifyf("STATUS=%s", big), 1);
	{
		char want[1100];
		snprintf(want, sizeof want, "STATUS=%s", big);
		expect(want);
	}
}

Test(sdnotify, sends_to_an_abstract_socket)
{
	char env[100];

	abstract_receiver(env, sizeof env, 0);
	cr_assert_eq(west_sd_notify("STOPPING=1"), 1);
	expect("STOPPING=1");
}

Test(sdnotify, an_unbound_abstract_name_fails)
{
	char env[100];

	abstract_receiver(env, sizeof env, 0);
	env[1] ^= 1;             /* another name: nobody listens there */
	cr_assert_eq(setenv("NOTIFY_SOCKET", env, 1), 0);
	errno = 0;
	cr_assert_eq(west_sd_notify("READY=1"), -1);
	cr_assert_eq(errno, ECONNREFUSED, "errno %d (%s)", errno, strerror(errno));
}

/* ============================================================ no systemd, errors */

Test(sdnotify, unset_or_empty_is_not_an_error)
{
	cr_assert_eq(west_sd_notify("READY=1"), 0);
	cr_assert_eq(west_sd_notifyf("STATUS=%d", 1), 0);
	cr_assert_eq(setenv("NOTIFY_SOCKET", "", 1), 0);
	cr_assert_eq(west_sd_notify("READY=1"), 0);
}

Test(sdnotify, a_missing_path_fails_with_errno)
{
	path_receiver();
	snprintf(path + strlen(path), sizeof path - strlen(path), "-missing");
	cr_assert_eq(setenv("NOTIFY_SOCKET", path, 1), 0);
	errno = 0;
	cr_assert_eq(west_sd_notify("READY=1"), -1);
	cr_assert_eq(errno, ENOENT, "errno %d (%s)", errno, strerror(errno));
	path[strlen(path) - strlen("-missing")] = '\0';   /* teardown unlinks the real one */
}

Test(sdnotify, bad_addresses_fail_with_errno)
{
	static const struct { const char *env; int err; } cases[] = {
		{ "run/notify", EAFNOSUPPORT },
		{ "vsock:2:1234", EAFNOSUPPORT },
		{ "@", EINVAL },
	};
	char longpath[300];
	struct sockaddr_un sa;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(setenv("NOTIFY_SOCKET", cases[i].env, 1), 0);
		errno = 0;
		cr_assert_eq(west_sd_notify("READY=1"), -1, "%s", cases[i].env);
		cr_assert_eq(errno, cases[i].err, "%s: errno %d", cases[i].env, errno);
	}
	memset(longpath, 'a', sizeof longpath - 1);
	longpath[0] = '/';
	longpath[sizeof longpath - 1] = '\0';
	cr_assert_eq(setenv("NOTIFY_SOCKET", longpath, 1), 0);
	cr_assert_eq(west_sd_notify("READY=1"), -1);
	cr_assert_eq(errno, ENAMETOOLONG);
	longpath[sizeof sa.sun_path] = '\0';   /* no room left for the NUL */
	cr_assert_eq(setenv("NOTIFY_SOCKET", longpath, 1), 0);
	cr_assert_eq(west_sd_notify("READY=1"), -1);
	cr_assert_eq(errno, ENAMETOOLONG);
	longpath[0] = '@';          /* 109 bytes: one more than an abstract name holds */
	longpath[sizeof sa.sun_path] = 'a';
	longpath[sizeof sa.sun_path + 1] = '\0';
	cr_assert_eq(setenv("NOTIFY_SOCKET", longpath, 1), 0);
	cr_assert_eq(west_sd_notify("READY=1"), -1);
	cr_assert_eq(errno, ENAMETOOLONG);
	errno = 0;
	cr_assert_eq(west_sd_notify(NULL), -1);
	cr_assert_eq(errno, EINVAL);
}

Test(sdnotify, the_longest_path_fits)
{
	/* sun_path holds 107 bytes and the NUL: a socket file whose path is
	 * exactly that long must be reachable */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t room = sizeof sa.sun_path - 1;

	snprintf(dir, sizeof dir, "/tmp/test_sdnotify.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof path, "%s/", dir);
	while (strlen(path) < room)
		strcat(path, "n");
	cr_assert_eq(strlen(path), room);
	memcpy(sa.sun_path, path, room);
	bind_receiver(&sa, sizeof sa);
	cr_assert_eq(setenv("NOTIFY_SOCKET", path, 1), 0);
	cr_assert_eq(west_sd_notify("READY=1"), 1, "errno %d", errno);
	expect("READY=1");
}

Test(sdnotify, the_longest_abstract_name_fits)
{
	/* an abstract name fills all 108 bytes of sun_path, no NUL */
	char env[200];

	abstract_receiver(env, sizeof env, sizeof ((struct sockaddr_un *)0)->sun_path);
	cr_assert_eq(strlen(env), sizeof ((struct sockaddr_un *)0)->sun_path);
	cr_assert_eq(west_sd_notify("READY=1"), 1, "errno %d", errno);
	expect("READY=1");
}

/* ============================================================ threads */

#define NTHREADS 4
#define NPER 50

static void *sender(void *arg)
{
	long ok = 0;

	(void)arg;
	for (int i = 0; i < NPER; i++)
		ok += west_sd_notify("WATCHDOG=1") == 1;
	return (void *)ok;
}

Test(sdnotify, threads_send_whole_datagrams)
{
	pthread_t t[NTHREADS];
	void *ok;
	long sent = 0;

	path_receiver();
	for (int i = 0; i < NTHREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, sender, NULL), 0);
	for (int i = 0; i < NTHREADS * NPER; i++)
		expect("WATCHDOG=1");   /* reading keeps the senders unblocked */
	for (int i = 0; i < NTHREADS; i++) {
		cr_assert_eq(pthread_join(t[i], &ok), 0);
		sent += (long)ok;
	}
	cr_assert_eq(sent, NTHREADS * NPER);
}

/* ============================================================ watchdog, clock */

Test(sdnotify, watchdog_usec)
{
	char pid[32];

	cr_assert_eq(west_sd_watchdog_usec(), 0);
	cr_assert_eq(setenv("WATCHDOG_USEC", "30000000", 1), 0);
	cr_assert_eq(west_sd_watchdog_usec(), 30000000ULL);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	cr_assert_eq(setenv("WATCHDOG_PID", pid, 1), 0);
	cr_assert_eq(west_sd_watchdog_usec(), 30000000ULL);
	snprintf(pid, sizeof pid, "%ld", (long)getpid() + 1);
	cr_assert_eq(setenv("WATCHDOG_PID", pid, 1), 0);
	cr_assert_eq(west_sd_watchdog_usec(), 0, "another process's watchdog");
	cr_assert_eq(setenv("WATCHDOG_PID", "12x", 1), 0);
	cr_assert_eq(west_sd_watchdog_usec(), 0);
}

Test(sdnotify, watchdog_usec_refuses_bad_values)
{
	static const char *const bad[] = {
		"", "0", "-5", " 5", "5s", "1e6", "99999999999999999999999",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(setenv("WATCHDOG_USEC", bad[i], 1), 0);
		cr_assert_eq(west_sd_watchdog_usec(), 0, "[%s]", bad[i]);
	}
	cr_assert_eq(setenv("WATCHDOG_USEC", "18446744073709551615", 1), 0);
	cr_assert_eq(west_sd_watchdog_usec(), 18446744073709551615ULL);
}

Test(sdnotify, monotonic_usec)
{
	struct timespec ts;
	unsigned long long a, b, want;

	a = west_sd_monotonic_usec();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	want = (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
	b = west_sd_monotonic_usec();
	cr_assert_gt(a, 0);
	cr_assert_leq(a, want);
	cr_assert_leq(want, b);
}
