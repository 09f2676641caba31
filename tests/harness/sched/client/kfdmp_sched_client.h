/* Tell kfdmp-sched when a latency-critical service has work pending: the C
 * (and C++) client, one header, no library. The Python client
 * (kfdmp_sched_client.py) and docs/tenant-control.md say the same.
 *
 *   #include "kfdmp_sched_client.h"
 *   struct kfdmp_sched_client c;
 *   kfdmp_sched_client_open(&c, NULL);   // KFDMP_SCHED_SOCKET or /run/kfdmp-sched.sock
 *   ...
 *   kfdmp_sched_begin(&c);               // "busy" when outstanding goes 0 -> 1
 *   run_query();
 *   kfdmp_sched_end(&c);                 // "idle" when it goes 1 -> 0
 *   ...
 *   kfdmp_sched_client_close(&c);
 *
 * begin/end may be called from several threads: the count and its send are
 * under a spin lock (the send is one non-blocking syscall), so the datagrams
 * go out in the order of the transitions. Each
 * message is one unix datagram "busy NS" / "idle NS", NS being the sender's
 * CLOCK_MONOTONIC time; the kernel attaches the sender's pid. Without a
 * daemon the calls return an errno (ENOENT, ECONNREFUSED) and change nothing
 * else: the service runs as before. Linux, GCC or Clang, C99 or C++11; it needs
 * the GNU/POSIX declarations (clock_gettime, SOCK_CLOEXEC): GCC's default
 * gnu modes have them; with -std=c99 include this header first or pass
 * -D_GNU_SOURCE.
 */
#ifndef KFDMP_SCHED_CLIENT_H
#define KFDMP_SCHED_CLIENT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define KFDMP_SCHED_DEFAULT_SOCKET "/run/kfdmp-sched.sock"

struct kfdmp_sched_client {
	int fd;
	int outstanding; /* under lock */
	int lock;        /* spin lock: 0 free, 1 held */
	struct sockaddr_un addr;
	int last_error; /* 0 or the errno of the last failed send */
};

/* 0, or an errno (EINVAL: the path does not fit a unix socket address). */
static inline int kfdmp_sched_client_open(struct kfdmp_sched_client* c, const char* path)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (!path || !*path)
		path = getenv("KFDMP_SCHED_SOCKET");
	if (!path || !*path)
		path = KFDMP_SCHED_DEFAULT_SOCKET;
	if (strlen(path) >= sizeof(c->addr.sun_path))
		return EINVAL;
	c->addr.sun_family = AF_UNIX;
	memcpy(c->addr.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return errno;
	/* Blocking for at most 10 ms: a transition is not lost when the
	 * daemon's queue is momentarily full; a missing daemon fails at once. */
	struct timeval tv = {0, 10000};
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
}

static inline void kfdmp_sched_client_close(struct kfdmp_sched_client* c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Sends "busy" or "idle" now; 0 or an errno. */
static inline int kfdmp_sched_send(struct kfdmp_sched_client* c, const char* word)
{
	struct timespec ts;
	char msg[64];
	int n;
	if (c->fd < 0)
		return c->last_error = EBADF;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(msg, sizeof(msg), "%s %lld", word, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (sendto(c->fd, msg, (size_t)n, 0, (const struct sockaddr*)&c->addr, sizeof(c->addr)) < 0)
		return c->last_error = errno;
	return c->last_error = 0;
}

static inline void kfdmp_sched_lock_(struct kfdmp_sched_client* c)
{
	while (__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static inline void kfdmp_sched_unlock_(struct kfdmp_sched_client* c) { __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE); }

/* One more query outstanding: "busy" on 0 -> 1. 0 or the send's errno. */
static inline int kfdmp_sched_begin(struct kfdmp_sched_client* c)
{
	int rc = 0;
	kfdmp_sched_lock_(c);
	if (++c->outstanding == 1)
		rc = kfdmp_sched_send(c, "busy");
	kfdmp_sched_unlock_(c);
	return rc;
}

/* One query done: "idle" on 1 -> 0. 0, the send's errno, or EINVAL for an
 * end without a begin (nothing sent). */
static inline int kfdmp_sched_end(struct kfdmp_sched_client* c)
{
	int rc = 0;
	kfdmp_sched_lock_(c);
	if (c->outstanding == 0)
		rc = EINVAL;
	else if (--c->outstanding == 0)
		rc = kfdmp_sched_send(c, "idle");
	kfdmp_sched_unlock_(c);
	return rc;
}

#endif /* KFDMP_SCHED_CLIENT_H */
