/*
 * main.c: the westd program: arguments, configuration, detaching, signals,
 * systemd notification, and the main thread's loop (signals, the spool
 * directory, the watchdog).
 *
 *   westd [-c FILE] [--foreground] [--check-config] [--set KEY=VALUE]...
 *
 * Threads: libmicrohttpd's (HTTP), the compute worker (the backend), the
 * snapshot writer, and this one.  Signals are blocked in every thread and
 * read here from a signalfd: SIGTERM and SIGINT shut down (stop accepting,
 * finish the requests in flight and the running solve, flush the snapshot,
 * exit 0); SIGHUP reloads (daemon.h).
 *
 * The terrain is read in a child process, this program run as `westd
 * --terrain-child ...` (src/terrain_child.c; under mpirun too), so that a
 * library crashing on a bad file refuses the file and westd stays up.
 *
 * Without --foreground westd detaches once it serves: the starting process
 * exits 0 then (1 when start-up fails, the reason on stderr), and the
 * daemon keeps stderr for its log; stdin and stdout go to /dev/null.  Under
 * systemd use --foreground and Type=notify (systemd/westd.service).
 *
 * Exit codes: 0 clean stop, or --check-config found no problem; 1 start-up
 * failed (terrain, backend, directories, address); 2 usage or config error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "api.h"
#include "daemon.h"
#include "grid.h"
#include "log.h"
#include "ranks.h"
#include "sdnotify.h"
#include "terrain.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

struct args {
	const char *config;
	int foreground, check;
};

static void usage(FILE *f)
{
	fputs("usage: westd [-c FILE] [--foreground] [--check-config] [--set KEY=VALUE]...\n"
	      "westd: the WEST wind-field daemon (docs/operations.md, docs/api.md)\n"
	      "  -c, --config FILE   configuration file (conf/westd.conf documents every key)\n"
	      "  -f, --foreground    do not detach (use under systemd)\n"
	      "      --check-config  check the configuration and the terrain, then exit\n"
	      "  -s, --set KEY=VALUE override one config key (repeatable; kept on reload)\n"
	      "  -h, --help          this text;  -V, --version  the version\n"
	      "exit codes: 0 stopped cleanly or config good; 1 start-up failed; 2 usage or config error\n",
	      f);
}

static int parse_args(int argc, char **argv, struct args *a, struct westd *d)
{
	static const struct option opts[] = {
		{ "config", required_argument, 0, 'c' }, { "foreground", no_argument, 0, 'f' },
		{ "check-config", no_argument, 0, 'k' }, { "set", required_argument, 0, 's' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "c:fs:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': a->config = optarg; break;
		case 'f': a->foreground = 1; break;
		case 'k': a->check = 1; break;
		case 's':
			if (d->nsets == WESTD_MAX_SETS) {
				fprintf(stderr, "westd: at most %d --set options\n", WESTD_MAX_SETS);
				return EXIT_USAGE;
			}
			d->sets[d->nsets++] = optarg;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("westd %s\n", PACKAGE_VERSION); exit(0);
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "westd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (a->config && strlen(a->config) >= sizeof d->config_path) {
		fprintf(stderr, "westd: --config: path too long\n");
		return EXIT_USAGE;
	}
	snprintf(d->config_path, sizeof d->config_path, "%s", a->config ? a->config : "");
	return 0;
}

static int load_config(struct westd *d)
{
	char err[WEST_ERRLEN];
	enum west_status st = WEST_OK;

	west_config_defaults(&d->conf);
	if (d->config_path[0])
		st = west_config_load(&d->conf, d->config_path, err, sizeof err);
	for (size_t i = 0; !st && i < d->nsets; i++)
		st = west_config_set(&d->conf, d->sets[i], "--set", err, sizeof err);
	if (st) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_USAGE;
	}
	west_log_set_level((enum west_log_level)d->conf.log_level);
	return 0;
}

/* --check-config: the config loaded; check that the terrain builds. */
static int check_config(const struct westd *d)
{
	struct west_grid g;
	struct west_grid_opts go;
	char err[WEST_ERRLEN];

	if (!d->conf.terrain[0]) {
		west_log(WEST_LOG_ERR, "terrain: no DEM file configured");
		return EXIT_USAGE;
	}
	west_grid_opts_from_config(&go, &d->conf);
	go.dem_reader = d->dem_reader[0] ? d->dem_reader : NULL;
	if (west_grid_load(&g, NULL, &go, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_RUNTIME;
	}
	printf("westd: configuration %s is good: terrain %s, grid %zu x %zu x %zu\n",
	       d->config_path[0] ? d->config_path : "(defaults)", d->conf.terrain, g.nx,
	       g.ny, g.nz);
	west_grid_free(&g);
	return 0;
}

/* Detach: the parent waits for the child's verdict on `fd` (one byte: 0
 * serving, else the exit code) and exits with it. */
static int detach(int *report_fd)
{
	int p[2];
	pid_t pid;
	unsigned char code = EXIT_RUNTIME;

	if (pipe(p) || (pid = fork()) < 0) {
		west_log(WEST_LOG_ERR, "cannot detach: %s", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &code, 1) != 1)
			code = EXIT_RUNTIME;
		_exit(code);
	}
	close(p[0]);
	setsid();
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2)
			close(null);
	}
	*report_fd = p[1];
	return 0;
}

static void report(int *fd, unsigned char code)
{
	if (*fd >= 0) {
		if (write(*fd, &code, 1) != 1)
			west_log(WEST_LOG_WARNING, "cannot tell the starting process: %s",
				 strerror(errno));
		close(*fd);
		*fd = -1;
	}
}

static void reload(struct westd *d)
{
	char err[WEST_ERRLEN];

	west_sd_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu", west_sd_monotonic_usec());
	if (westd_reload(d, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "reload refused, the running configuration stays: %s", err);
		west_sd_notifyf("READY=1\nSTATUS=reload refused: %s", err);
	} else {
		west_log(WEST_LOG_NOTICE, "reloaded %s", d->config_path[0] ? d->config_path
									: "the --set options");
		west_sd_notify("READY=1\nSTATUS=configuration reloaded");
	}
}

/* poll timeout in ms: the spool's fallback scan and the watchdog. */
static int tick_ms(const struct westd *d)
{
	unsigned long long wd = west_sd_watchdog_usec();
	double s = d->spool.dir ? d->conf.spool_scan_interval : 3600;
	if (wd && s > (double)wd / 2e6)
		s = (double)wd / 2e6;
	return (int)(s * 1000) > 0 ? (int)(s * 1000) : 1;
}

/* Serve until SIGTERM or SIGINT. */
static void serve(struct westd *d, int sfd)
{
	struct pollfd fds[2] = { { sfd, POLLIN, 0 }, { -1, POLLIN, 0 } };
	struct signalfd_siginfo si;

	for (;;) {
		fds[1].fd = west_spool_fd(&d->spool);
		int n = poll(fds, 2, tick_ms(d));
		if (n < 0 && errno != EINTR)
			west_log(WEST_LOG_ERR, "poll: %s", strerror(errno));
		if (west_sd_watchdog_usec())
			west_sd_notify("WATCHDOG=1");
		if (fds[0].revents & POLLIN &&
		    read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
			if (si.ssi_signo == SIGHUP) {
				reload(d);
			} else {
				west_log(WEST_LOG_NOTICE, "%s: shutting down",
					 strsignal((int)si.ssi_signo));
				return;
			}
		}
		westd_spool_drain(d);
	}
}

static int run(struct westd *d, int *report_fd)
{
	struct west_http http;
	char err[WEST_ERRLEN];
	size_t nroutes;
	const struct west_route_def *routes = westd_routes(&nroutes);
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	/* blocked before any thread starts, so that every thread inherits it */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) || (sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		west_log(WEST_LOG_ERR, "signals: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (westd_open(d, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		return EXIT_RUNTIME;
	}
	if (west_http_start(&http, d, routes, nroutes, err, sizeof err)) {
		west_log(WEST_LOG_ERR, "%s", err);
		westd_close(d);
		return EXIT_RUNTIME;
	}
	west_log(WEST_LOG_NOTICE, "serving on %s (port %u), backend %s", d->conf.listen,
		 http.port, d->be->name);
	report(report_fd, 0);
	if (!d->nrec)      /* no saved set: ready now (else after its solve) */
		west_sd_notify("READY=1\nSTATUS=serving, no observations yet");
	serve(d, sfd);
	west_sd_notify("STOPPING=1");
	west_http_quiesce(&http);
	west_http_stop(&http);
	westd_close(d);
	close(sfd);
	west_log(WEST_LOG_NOTICE, "stopped");
	return 0;
}

/* westd itself reads the terrain in a child process (terrain_child.c),
 * under mpirun too: the child is started with posix_spawn and runs
 * `westd --terrain-child`, which never starts MPI (main's first branch). */
static void find_dem_reader(struct westd *d)
{
	d->dem_reader[0] = '\0';
	if (west_dem_reader_self(d->dem_reader, sizeof d->dem_reader))
		west_log(WEST_LOG_WARNING, "cannot find this program (/proc/self/exe: %s): the "
			 "terrain is read in this process, where a crash in a reader's library "
			 "would stop westd", strerror(errno));
}

int main(int argc, char **argv)
{
	static struct westd d;   /* large: not on the stack */
	struct args a = { 0 };
	int rc, report_fd = -1, ranks;
	sigset_t stop;

	if (argc > 1 && strcmp(argv[1], "--terrain-child") == 0) {  /* terrain_child.c */
		west_log_init("westd");
		return west_dem_child_main(argc - 1, argv + 1);
	}

	/* blocked before MPI starts its threads, so that they never take
	 * them (run() reads them from a signalfd; without mpirun MPI is not
	 * started at all) */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM), sigaddset(&stop, SIGINT), sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	ranks = west_ranks_start(&argc, &argv);

	west_log_init("westd");
	if ((rc = parse_args(argc, argv, &a, &d)) || (rc = load_config(&d))) {
		if (ranks > 1)
			west_ranks_abort(rc);
		return rc;
	}
	find_dem_reader(&d);
	if (a.check)
		return check_config(&d);
	if (ranks > 1 && !a.foreground) {
		west_log(WEST_LOG_ERR, "under mpirun westd runs in the foreground (--foreground)");
		west_ranks_abort(EXIT_USAGE);
	}
	if (west_ranks_me() > 0)
		rc = westd_rank_serve(&d);
	else {
		if (!a.foreground && detach(&report_fd))
			return EXIT_RUNTIME;
		rc = run(&d, &report_fd);
		report(&report_fd, (unsigned char)rc);
		west_ranks_order_stop();
	}
	west_ranks_stop();
	return rc;
}
