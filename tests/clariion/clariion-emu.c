// SPDX-License-Identifier: GPL-2.0
/*
 * clariion-emu: serve an emulated dual-SP EMC CLARiiON LUN through TCMU
 * (target_core_user), one uio device per array port.  One thread, one
 * poll() loop over every ring and the control socket.
 *
 * Serve:   clariion-emu [options] --uio uioN [--uio uioM ...]
 *          (ports in order A0..A(n-1), B0..B(n-1))
 * Control: clariion-emu --socket PATH --ctl 'command args'
 *
 * See tests/clariion/README for the control commands.
 */
#define _GNU_SOURCE
#include "clariion-control.h"
#include "clariion-core.h"
#include "clariion-ring.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/tmp/clariion-emu/ctl.sock"
#define CTL_LINE_MAX 256
#define CTL_REPLY_MAX 8192
#define CTL_CLIENT_TIMEOUT_MS 2000

struct port_io {
	char uio[32];
	int fd;
	uint8_t *map;
	size_t map_size;
	struct ring *ring;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logmsg(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "[%lld.%03ld] clariion-emu: ", (long long)ts.tv_sec,
		ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: clariion-emu [--ports-per-sp N] [--size-mb M] [--socket PATH]\n"
		"                    [--personality clariion|rdac|hpsw] [--product STR] [--model STR] [--serial STR]\n"
		"                    [--short-inquiry] [--default-owner A|B] [--verbose]\n"
		"                    --uio uioN ... (2*N times: A0..A(N-1), B0..B(N-1))\n"
		"       clariion-emu [--socket PATH] --ctl 'COMMAND [ARGS]'\n");
}

/* ---- control client ---- */

static int ctl_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "clariion-emu: socket path too long: %s\n", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send one command, print the reply; exit status 0 only on "ok" answers. */
static int ctl_client(const char *path, const char *cmd)
{
	char buf[CTL_REPLY_MAX];
	size_t used = 0;
	ssize_t n;
	int fd;

	if (strlen(cmd) >= CTL_LINE_MAX || strchr(cmd, '\n')) {
		fprintf(stderr, "clariion-emu: control command too long\n");
		return 2;
	}
	fd = ctl_connect(path);
	if (fd < 0) {
		fprintf(stderr, "clariion-emu: cannot reach emulator at %s: %s\n",
			path, strerror(errno));
		return 2;
	}
	if (write_all(fd, cmd, strlen(cmd)) || write_all(fd, "\n", 1)) {
		fprintf(stderr, "clariion-emu: write to %s: %s\n", path,
			strerror(errno));
		close(fd);
		return 2;
	}
	while (used < sizeof(buf) - 1 &&
	       (n = read(fd, buf + used, sizeof(buf) - 1 - used)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "clariion-emu: read from %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 2;
		}
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (!strncmp(buf, "error:", 6)) {
		fputs(buf, stderr);
		return 1;
	}
	fputs(buf, stdout);
	return used ? 0 : 2;
}

/* ---- server ---- */

static int ctl_listen(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		logmsg("socket path too long: %s", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		logmsg("socket: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0) {
		logmsg("bind/listen %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Serve one control connection: read one line (bounded in time so a stuck
 * client cannot stall the rings for long), answer, close.  Returns 1 if
 * the emulator was asked to shut down.
 */
static int ctl_serve(struct emu *e, int lfd)
{
	char line[CTL_LINE_MAX], reply[CTL_REPLY_MAX];
	size_t used = 0;
	uint64_t deadline = now_ms() + CTL_CLIENT_TIMEOUT_MS;
	int fd, quit = 0;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return 0;
	while (used < sizeof(line) - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t t = now_ms();
		ssize_t n;

		if (t >= deadline || poll(&p, 1, (int)(deadline - t)) <= 0)
			break;
		n = read(fd, line + used, sizeof(line) - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		if (memchr(line, '\n', used))
			break;
	}
	line[used] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (!strcmp(line, "shutdown")) {
		snprintf(reply, sizeof(reply), "ok\n");
		quit = 1;
	} else {
		emu_control(e, line, reply, sizeof(reply));
	}
	logmsg("control: '%s' -> %.*s", line, (int)strcspn(reply, "\n"), reply);
	/* The socket is non-blocking; the reply is small enough to fit. */
	if (write(fd, reply, strlen(reply)) < 0)
		logmsg("control reply: %s", strerror(errno));
	close(fd);
	return quit;
}

static int read_map_size(const char *uio, size_t *size)
{
	char path[128], buf[64];
	unsigned long long v;
	char *end;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map0/size", uio);
	f = fopen(path, "re");
	if (!f) {
		logmsg("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		logmsg("%s: empty", path);
		return -1;
	}
	fclose(f);
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || v == 0 || v > SIZE_MAX) {
		logmsg("%s: bad size '%s'", path, buf);
		return -1;
	}
	*size = (size_t)v;
	return 0;
}

static int port_open(struct port_io *p, int port, bool verbose)
{
	char dev[64];
	const char *why = NULL;

	p->fd = -1;
	p->map = MAP_FAILED;
	if (strncmp(p->uio, "uio", 3) || strchr(p->uio, '/')) {
		logmsg("bad uio name '%s' (want uioN)", p->uio);
		return -1;
	}
	if (read_map_size(p->uio, &p->map_size))
		return -1;
	snprintf(dev, sizeof(dev), "/dev/%s", p->uio);
	p->fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (p->fd < 0) {
		logmsg("open %s: %s", dev, strerror(errno));
		return -1;
	}
	p->map = mmap(NULL, p->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      p->fd, 0);
	if (p->map == MAP_FAILED) {
		logmsg("mmap %s (%zu bytes): %s", dev, p->map_size,
		       strerror(errno));
		return -1;
	}
	p->ring = calloc(1, sizeof(*p->ring));
	if (!p->ring) {
		logmsg("out of memory");
		return -1;
	}
	if (ring_attach(p->ring, p->map, p->map_size, port, &why)) {
		logmsg("%s: %s", dev, why);
		return -1;
	}
	p->ring->verbose = verbose;
	return 0;
}

static void port_close(struct port_io *p)
{
	if (p->map != MAP_FAILED && p->map)
		munmap(p->map, p->map_size);
	if (p->fd >= 0)
		close(p->fd);
	free(p->ring);
}

/* Tell the kernel completions are in the ring. */
static void kick(struct port_io *p)
{
	uint32_t one = 1;

	if (write(p->fd, &one, sizeof(one)) != sizeof(one))
		logmsg("kick %s: %s", p->uio, strerror(errno));
}

static void process_all(struct emu *e, struct port_io *ports, int n,
			uint64_t *next)
{
	uint64_t t = now_ms();
	int i, owner = e->owner;

	*next = UINT64_MAX;
	for (i = 0; i < n; i++) {
		int c = ring_process(ports[i].ring, e, t, next);

		if (c > 0)
			kick(&ports[i]);
		if (e->owner != owner) {
			char name[8];

			emu_port_name(e, i, name, sizeof(name));
			logmsg("trespass via %s: owner now SP %c", name,
			       e->owner ? 'B' : 'A');
			owner = e->owner;
		}
	}
}

static int serve(struct emu *e, struct port_io *ports, int n, int lfd)
{
	struct pollfd pfd[EMU_MAX_PORTS + 1];
	uint64_t next = UINT64_MAX;
	int i;

	process_all(e, ports, n, &next);
	while (!stop_requested) {
		int timeout = -1, rc;

		for (i = 0; i < n; i++) {
			pfd[i].fd = ports[i].ring->broken ? -1 : ports[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		pfd[n].fd = lfd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		if (next != UINT64_MAX) {
			uint64_t t = now_ms();

			timeout = next > t ? (int)(next - t) : 0;
		}
		rc = poll(pfd, (nfds_t)n + 1, timeout);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			logmsg("poll: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < n; i++) {
			uint32_t count;

			if (pfd[i].revents & POLLIN &&
			    read(ports[i].fd, &count, sizeof(count)) < 0 &&
			    errno != EAGAIN)
				logmsg("read %s: %s", ports[i].uio,
				       strerror(errno));
			if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				logmsg("%s went away", ports[i].uio);
				return -1;
			}
		}
		if (pfd[n].revents & POLLIN && ctl_serve(e, lfd))
			break;
		process_all(e, ports, n, &next);
	}
	return 0;
}

static int set_string(char *dst, size_t dstlen, const char *src,
		      const char *what)
{
	size_t i, n = strlen(src);

	if (n == 0 || n >= dstlen) {
		fprintf(stderr, "clariion-emu: %s must be 1..%zu characters\n",
			what, dstlen - 1);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (src[i] < 0x20 || src[i] > 0x7e) {
			fprintf(stderr, "clariion-emu: %s must be printable ASCII\n",
				what);
			return -1;
		}
	memcpy(dst, src, n + 1);
	return 0;
}

static int parse_int(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < min || *v > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ports-per-sp", required_argument, NULL, 'p' },
		{ "size-mb", required_argument, NULL, 's' },
		{ "socket", required_argument, NULL, 'S' },
		{ "uio", required_argument, NULL, 'u' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "personality", required_argument, NULL, 'A' },
		{ "product", required_argument, NULL, 'P' },
		{ "model", required_argument, NULL, 'm' },
		{ "serial", required_argument, NULL, 'n' },
		{ "short-inquiry", no_argument, NULL, 'i' },
		{ "default-owner", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = DEFAULT_SOCKET, *ctl = NULL;
	const char *product = NULL, *model = NULL, *serial = NULL;
	const char *personality = "clariion";
	char *uio[EMU_MAX_PORTS];
	long ports_per_sp = 1, size_mb = 64;
	int nuio = 0, c, i, lfd, rc = 1, default_owner = EMU_SP_A;
	bool short_inq = false, verbose = false;
	struct port_io *ports;
	struct sigaction sa;
	struct emu e;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_int(optarg, 1, EMU_MAX_PORTS_PER_SP, &ports_per_sp)) {
				fprintf(stderr, "clariion-emu: --ports-per-sp must be 1..%d\n",
					EMU_MAX_PORTS_PER_SP);
				return 2;
			}
			break;
		case 's':
			if (parse_int(optarg, 1, 4096, &size_mb)) {
				fprintf(stderr, "clariion-emu: --size-mb must be 1..4096\n");
				return 2;
			}
			break;
		case 'S':
			sock = optarg;
			break;
		case 'u':
			if (nuio >= EMU_MAX_PORTS) {
				fprintf(stderr, "clariion-emu: too many --uio\n");
				return 2;
			}
			uio[nuio++] = optarg;
			break;
		case 'c':
			ctl = optarg;
			break;
		case 'A':
			personality = optarg;
			break;
		case 'P':
			product = optarg;
			break;
		case 'm':
			model = optarg;
			break;
		case 'n':
			serial = optarg;
			break;
		case 'i':
			short_inq = true;
			break;
		case 'o':
			if (strcmp(optarg, "A") && strcmp(optarg, "B")) {
				fprintf(stderr, "clariion-emu: --default-owner A or B\n");
				return 2;
			}
			default_owner = optarg[0] == 'B' ? EMU_SP_B : EMU_SP_A;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (ctl)
		return ctl_client(sock, ctl);
	if (nuio != 2 * ports_per_sp) {
		fprintf(stderr, "clariion-emu: need %ld --uio (2 SPs x %ld ports), got %d\n",
			2 * ports_per_sp, ports_per_sp, nuio);
		return 2;
	}
	if (emu_init(&e, (uint64_t)size_mb << 20, (int)ports_per_sp)) {
		fprintf(stderr, "clariion-emu: cannot set up a %ld MiB LUN: %s\n",
			size_mb, strerror(errno));
		return 1;
	}
	if (emu_set_personality(&e, personality)) {
		fprintf(stderr, "clariion-emu: --personality clariion, rdac or hpsw\n");
		rc = 2;
		goto out_emu;
	}
	if (product) {
		char tmp[17];

		if (set_string(tmp, sizeof(tmp), product, "--product"))
			goto out_emu;
		snprintf(e.product, sizeof(e.product), "%-16s", tmp);
	}
	if ((model && set_string(e.sp_model, sizeof(e.sp_model), model, "--model")) ||
	    (serial && set_string(e.array_serial, sizeof(e.array_serial), serial,
				  "--serial")))
		goto out_emu;
	e.short_inquiry = short_inq;
	e.default_owner = default_owner;
	e.owner = default_owner;

	ports = calloc((size_t)nuio, sizeof(*ports));
	if (!ports) {
		fprintf(stderr, "clariion-emu: out of memory\n");
		goto out_emu;
	}
	for (i = 0; i < nuio; i++) {
		snprintf(ports[i].uio, sizeof(ports[i].uio), "%s", uio[i]);
		ports[i].fd = -1;
	}
	for (i = 0; i < nuio; i++)
		if (port_open(&ports[i], i, verbose))
			goto out_ports;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	lfd = ctl_listen(sock);
	if (lfd < 0)
		goto out_ports;
	logmsg("serving %d ports (%ld per SP) as %s, %ld MiB, owner SP %c, control %s",
	       nuio, ports_per_sp, emu_personality_name(&e), size_mb,
	       e.owner ? 'B' : 'A', sock);
	rc = serve(&e, ports, nuio, lfd) ? 1 : 0;
	logmsg("stopping");
	close(lfd);
	unlink(sock);
out_ports:
	for (i = 0; i < nuio; i++)
		port_close(&ports[i]);
	free(ports);
out_emu:
	emu_free(&e);
	return rc;
}
