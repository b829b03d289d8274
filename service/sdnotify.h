/*
 * sdnotify.h: systemd's service notification protocol (sd_notify(3)),
 * without libsystemd.
 *
 * Under a Type=notify unit systemd passes $NOTIFY_SOCKET: the address of a
 * unix datagram socket, either a file system path ("/run/systemd/notify")
 * or, when it starts with '@', an abstract name (the '@' stands for the
 * leading NUL byte).  A notification is one datagram of newline-separated
 * VAR=VALUE assignments: READY=1, RELOADING=1 with MONOTONIC_USEC=,
 * STOPPING=1, STATUS=..., WATCHDOG=1.  Other address forms (vsock:) are not
 * supported and fail with EAFNOSUPPORT.
 *
 * Each call opens its own socket (notifications are rare), so every
 * function here is thread-safe as long as no thread changes the
 * environment meanwhile.  Nothing here logs: the caller does, with errno.
 */
#ifndef WEST_SDNOTIFY_H
#define WEST_SDNOTIFY_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Send state as one datagram to $NOTIFY_SOCKET.  1: sent; 0: no (or an
 * empty) NOTIFY_SOCKET, not running under systemd, not an error; -1:
 * failed, errno says why (EINVAL: state NULL; EAFNOSUPPORT: an address
 * that is not a path or '@'; ENAMETOOLONG: longer than a unix address
 * holds; else socket(2)/sendto(2)'s errno, ENOENT for a missing path).
 */
int west_sd_notify(const char *state);

/* The same with a printf format (-1 with ENOMEM when the text cannot be
 * allocated, EINVAL when the format fails). */
int west_sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The watchdog interval systemd expects (WatchdogSec=) in µs: $WATCHDOG_USEC
 * when it is a positive decimal integer and $WATCHDOG_PID is unset or our
 * pid; else 0 (no watchdog).  Send WATCHDOG=1 about every half of it.
 */
unsigned long long west_sd_watchdog_usec(void);

/* CLOCK_MONOTONIC in µs, for "RELOADING=1\nMONOTONIC_USEC=%llu". */
unsigned long long west_sd_monotonic_usec(void);

#ifdef __cplusplus
}
#endif

#endif
