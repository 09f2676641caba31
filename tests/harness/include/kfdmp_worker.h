/* kfdmp_worker.h: make a native service a process of a kfdmp sweep.
 *
 * A single header, C99 and C++ (Linux). Include it FIRST in one source file
 * (it defines _GNU_SOURCE for sched_setaffinity), or compile with
 * -D_GNU_SOURCE. It speaks version 1 of the line protocol of
 * docs/exec-workers.md on the process's real stdout, reads the launcher's
 * lines on stdin, and points fd 1 at stderr so that the service's own
 * printf cannot break the protocol:
 *
 *     #include "kfdmp_worker.h"
 *     static int setup(struct kfdmp_config *cfg, void *user, char *why, size_t n)
 *     { ... build the model; cfg->gpu_time = 1 if query() reports GPU time;
 *       return 0, or KFDMP_UNSUPPORTED with why = "KEY reason", or
 *       KFDMP_ERROR with why = "reason"; }
 *     static int query(uint64_t seq, void *user, uint64_t *gpu_ns, char *why, size_t n)
 *     { ... one query, finished (synchronised) on return; 0, or nonzero
 *       with why = "reason" to fail it; }
 *     int main(int argc, char **argv)
 *     { return kfdmp_serve(argc, argv, query, setup, NULL); }
 *
 * What it does, in order: reads `kfdmp 1 hello`, the `env` and `option`
 * lines and `config end`; when an env KEY is missing or different in the
 * environment, re-executes /proc/self/exe with the same argv and the
 * environment set (the lines already read travel in KFDMP_WORKER_CONFIG, so
 * stdin is not read twice), so the env is in force before the GPU runtime
 * starts (answers `unsupported KEY ...` when that cannot be done); applies
 * `option threads=N` (cfg->threads and OMP_NUM_THREADS) and `option
 * cpus=LIST` (sched_setaffinity of every thread); passes `option graph=1`
 * as cfg->graph only when kfdmp_serve_supports() names "graph" (otherwise
 * `unsupported graph`); an unknown option is `unsupported KEY`. Then
 * setup(), `ready` (with pipeline=1 when `hello` offered it: the launcher
 * may then send the next query before this one's `done`; it waits in stdin),
 * and one query() per `query SEQ` line, in order. `stop` or the end
 * of stdin returns 0; a protocol error from the launcher returns 2; a
 * failed setup 1 (after `error`), unsupported 0 (after `unsupported`).
 */
#ifndef KFDMP_WORKER_H
#define KFDMP_WORKER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KFDMP_PROTOCOL_VERSION 1
#define KFDMP_UNSUPPORTED 1 /* setup: why = "KEY reason" */
#define KFDMP_ERROR 2       /* setup: why = "reason" */
#define KFDMP_MAX_ITEMS 64  /* env lines, option lines */
#define KFDMP_CONFIG_VAR "KFDMP_WORKER_CONFIG"
#define KFDMP_REEXEC_VAR "KFDMP_WORKER_REEXEC"

#if defined(__GNUC__)
#define KFDMP__UNUSED __attribute__((unused))
#else
#define KFDMP__UNUSED
#endif

struct kfdmp_config {
	int index, workers;                    /* this process is index (0-based) of workers */
	int nenv;                              /* the env lines (already in the environment) */
	const char *env_key[KFDMP_MAX_ITEMS], *env_value[KFDMP_MAX_ITEMS];
	int nopt;                              /* the option lines, values as text */
	const char *opt_key[KFDMP_MAX_ITEMS], *opt_value[KFDMP_MAX_ITEMS];
	int threads;                           /* option threads=N; 0: the default */
	const char *cpus;                      /* option cpus=LIST (applied); NULL: none */
	int graph;                             /* option graph=1 (only with "graph" supported) */
	/* set by setup() */
	char device[128];                      /* for `ready device=...` (spaces become _) */
	int gpu_time;                          /* 1: query() sets *gpu_ns */
};

typedef int (*kfdmp_setup_fn)(struct kfdmp_config *cfg, void *user, char *why, size_t why_len);
typedef int (*kfdmp_query_fn)(uint64_t seq, void *user, uint64_t *gpu_ns, char *why, size_t why_len);

/* --- implementation (static: one copy per including file) ---------------- */
struct kfdmp__io {
	int proto;      /* the real stdout */
	char *buf;      /* stdin bytes read and not yet used */
	size_t len, cap;
	size_t used;    /* bytes of buf handed out as lines */
	int keep;       /* 1: keep the lines handed out (the config part, for a re-exec) */
	int eof;
	char *line;     /* the current line (owned) */
};

static KFDMP__UNUSED int kfdmp__send(struct kfdmp__io *io, const char *text)
{
	size_t n = strlen(text), off = 0;
	while (off < n) {
		ssize_t w = write(io->proto, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* one protocol line: `head` then `tail` with whitespace runs made single
 * spaces (a reason never spans lines), then \n */
static KFDMP__UNUSED int kfdmp__sendf(struct kfdmp__io *io, const char *head, const char *tail)
{
	size_t hn = strlen(head), tn = tail ? strlen(tail) : 0, o = 0, i;
	int space = 0, rc;
	char *s = (char *)malloc(hn + tn + 2);
	if (!s)
		return -1;
	memcpy(s, head, hn);
	o = hn;
	for (i = 0; i < tn; ++i) {
		char c = tail[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = 1;
			continue;
		}
		if (space && o > hn)
			s[o++] = ' ';
		space = 0;
		s[o++] = c;
	}
	if (tn && o == hn) {
		const char *none = "(no message)";
		s = (char *)realloc(s, hn + strlen(none) + 2);
		if (!s)
			return -1;
		memcpy(s + o, none, strlen(none));
		o += strlen(none);
	}
	s[o++] = '\n';
	s[o] = 0;
	rc = kfdmp__send(io, s);
	free(s);
	return rc;
}

/* the next line without its \n (io->line), or NULL at EOF */
static KFDMP__UNUSED const char *kfdmp__readline(struct kfdmp__io *io)
{
	char *nl;
	size_t n;
	for (;;) {
		nl = io->len > io->used ? (char *)memchr(io->buf + io->used, '\n', io->len - io->used) : NULL;
		if (nl || io->eof)
			break;
		if (!io->keep && io->used) { /* queries are not kept: drop what was used */
			memmove(io->buf, io->buf + io->used, io->len - io->used);
			io->len -= io->used;
			io->used = 0;
		}
		if (io->cap - io->len < 4096) {
			size_t cap = io->cap * 2 + 65536;
			char *b = (char *)realloc(io->buf, cap);
			if (!b)
				return NULL;
			io->buf = b;
			io->cap = cap;
		}
		{
			ssize_t r = read(0, io->buf + io->len, io->cap - io->len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				io->eof = 1;
			else
				io->len += (size_t)r;
		}
	}
	if (io->len == io->used)
		return NULL;
	n = nl ? (size_t)(nl - (io->buf + io->used)) : io->len - io->used;
	free(io->line);
	io->line = (char *)malloc(n + 1);
	if (!io->line)
		return NULL;
	memcpy(io->line, io->buf + io->used, n);
	io->line[n] = 0;
	if (n && io->line[n - 1] == '\r')
		io->line[n - 1] = 0;
	io->used += n + (nl ? 1 : 0);
	return io->line;
}

static KFDMP__UNUSED char *kfdmp__dup(const char *s, size_t n)
{
	char *d = (char *)malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* "0-3,8" -> set; 0 ok, -1 bad syntax */
static KFDMP__UNUSED int kfdmp__parse_cpus(const char *text, cpu_set_t *set)
{
	const char *p = text;
	CPU_ZERO(set);
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		long lo, hi;
		if (*p < '0' || *p > '9')
			return -1;
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			++p;
			if (*p < '0' || *p > '9')
				return -1;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= CPU_SETSIZE)
			return -1;
		for (; lo <= hi; ++lo)
			CPU_SET((int)lo, set);
		if (*p == ',')
			++p;
		else if (*p)
			return -1;
	}
	return 0;
}

/* every thread of the process; 0 or errno */
static KFDMP__UNUSED int kfdmp__set_affinity(const cpu_set_t *set)
{
	DIR *d;
	struct dirent *e;
	if (sched_setaffinity(0, sizeof *set, set) != 0)
		return errno;
	d = opendir("/proc/self/task");
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		int tid = atoi(e->d_name);
		if (tid > 0)
			sched_setaffinity((pid_t)tid, sizeof *set, set); /* a thread may have ended */
	}
	closedir(d);
	return 0;
}

static KFDMP__UNUSED int kfdmp__in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, word, n) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* supports: comma-separated options the service implements itself ("graph")
 * or NULL. Returns the process's exit code. */
static KFDMP__UNUSED int kfdmp_serve_supports(int argc, char **argv, kfdmp_query_fn query,
					      kfdmp_setup_fn setup, void *user, const char *supports)
{
	struct kfdmp__io io;
	struct kfdmp_config cfg;
	char why[512], head[96], msg[700];
	const char *l, *initial;
	int i, rc = 0, pipeline = 0;
	(void)argc;
	memset(&io, 0, sizeof io);
	io.keep = 1;
	memset(&cfg, 0, sizeof cfg);
	cfg.workers = 1;
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	io.proto = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (io.proto < 0 || dup2(2, 1) < 0) {
		perror("kfdmp_worker: dup of stdout");
		return 1;
	}
	initial = getenv(KFDMP_CONFIG_VAR);
	if (initial) {
		io.len = strlen(initial);
		io.cap = io.len + 65536;
		io.buf = (char *)malloc(io.cap);
		if (!io.buf)
			return 1;
		memcpy(io.buf, initial, io.len);
		unsetenv(KFDMP_CONFIG_VAR);
	}
	/* hello */
	l = kfdmp__readline(&io);
	if (!l)
		goto out; /* EOF before hello: nothing asked */
	{
		int version = -1, n = 0;
		if (sscanf(l, "kfdmp %d hello%n", &version, &n) < 1 || n == 0) {
			snprintf(msg, sizeof msg, "expected `kfdmp 1 hello ...` first, got '%s'", l);
			kfdmp__sendf(&io, "kfdmp 1 error ", msg);
			rc = 2;
			goto out;
		}
		if (version != KFDMP_PROTOCOL_VERSION) {
			snprintf(msg, sizeof msg, "protocol version %d not supported (this helper speaks %d)", version,
				 KFDMP_PROTOCOL_VERSION);
			kfdmp__sendf(&io, "kfdmp 1 error ", msg);
			rc = 2;
			goto out;
		}
		{
			/* fields it does not know are ignored (the protocol's rule) */
			const char *p = strstr(l, "index=");
			if (p)
				cfg.index = atoi(p + 6);
			p = strstr(l, "workers=");
			if (p)
				cfg.workers = atoi(p + 8);
			/* the launcher may send the next query ahead: lines are read in
			 * order, so it waits in stdin; answered in `ready` */
			for (p = strstr(l, " pipeline=1"); p; p = strstr(p + 1, " pipeline=1"))
				if (p[11] == 0 || p[11] == ' ')
					pipeline = 1;
		}
	}
	/* env, option, config end */
	for (;;) {
		const char *eq, *kv;
		int is_env;
		l = kfdmp__readline(&io);
		if (!l)
			goto out; /* stdin closed before config end */
		if (strcmp(l, "config end") == 0)
			break;
		is_env = strncmp(l, "env ", 4) == 0;
		kv = is_env ? l + 4 : (strncmp(l, "option ", 7) == 0 ? l + 7 : NULL);
		eq = kv ? strchr(kv, '=') : NULL;
		if (!kv || !eq || eq == kv) {
			snprintf(msg, sizeof msg, "unexpected line in the configuration: '%s'", l);
			kfdmp__sendf(&io, "kfdmp 1 error ", msg);
			rc = 2;
			goto out;
		}
		if ((is_env ? cfg.nenv : cfg.nopt) >= KFDMP_MAX_ITEMS) {
			kfdmp__sendf(&io, "kfdmp 1 error ", "more than 64 env or option lines");
			rc = 2;
			goto out;
		}
		if (is_env) {
			cfg.env_key[cfg.nenv] = kfdmp__dup(kv, (size_t)(eq - kv));
			cfg.env_value[cfg.nenv++] = kfdmp__dup(eq + 1, strlen(eq + 1));
		} else {
			cfg.opt_key[cfg.nopt] = kfdmp__dup(kv, (size_t)(eq - kv));
			cfg.opt_value[cfg.nopt++] = kfdmp__dup(eq + 1, strlen(eq + 1));
		}
	}
	/* the env in force before anything starts: re-execute when it is not */
	for (i = 0; i < cfg.nenv; ++i) {
		const char *have = getenv(cfg.env_key[i]);
		if (have && strcmp(have, cfg.env_value[i]) == 0)
			continue;
		if (getenv(KFDMP_REEXEC_VAR)) {
			snprintf(head, sizeof head, "kfdmp 1 unsupported %.60s ", cfg.env_key[i]);
			kfdmp__sendf(&io, head, "still differs after re-executing the program with it "
						"(something in the command resets it)");
			goto out;
		}
		{
			int j;
			char *carry = kfdmp__dup(io.buf, io.len); /* every line read, and what follows */
			for (j = 0; j < cfg.nenv; ++j)
				setenv(cfg.env_key[j], cfg.env_value[j], 1);
			setenv(KFDMP_REEXEC_VAR, "1", 1);
			if (carry)
				setenv(KFDMP_CONFIG_VAR, carry, 1);
			fflush(stdout);
			fflush(stderr);
			dup2(io.proto, 1);
			execv("/proc/self/exe", argv);
			snprintf(msg, sizeof msg, "cannot re-execute /proc/self/exe to set it before the GPU runtime "
				 "starts: %s", strerror(errno));
			dup2(2, 1);
			unsetenv(KFDMP_CONFIG_VAR);
			free(carry);
			snprintf(head, sizeof head, "kfdmp 1 unsupported %.60s ", cfg.env_key[i]);
			kfdmp__sendf(&io, head, msg);
			goto out;
		}
	}
	unsetenv(KFDMP_REEXEC_VAR);
	io.keep = 0;
	/* options */
	for (i = 0; i < cfg.nopt; ++i) {
		const char *k = cfg.opt_key[i], *v = cfg.opt_value[i];
		if (strcmp(k, "threads") == 0) {
			char *end;
			long n = strtol(v, &end, 10);
			if (!*v || *end || n < 1 || n > 1000000) {
				snprintf(msg, sizeof msg, "option threads=%s: not a positive integer", v);
				kfdmp__sendf(&io, "kfdmp 1 error ", msg);
				rc = 1;
				goto out;
			}
			cfg.threads = (int)n;
			setenv("OMP_NUM_THREADS", v, 1);
		} else if (strcmp(k, "cpus") == 0) {
			cpu_set_t set;
			int err;
			if (kfdmp__parse_cpus(v, &set) != 0) {
				snprintf(msg, sizeof msg, "option cpus=%s: not a CPU list", v);
				kfdmp__sendf(&io, "kfdmp 1 error ", msg);
				rc = 1;
				goto out;
			}
			err = kfdmp__set_affinity(&set);
			if (err) {
				snprintf(msg, sizeof msg, "sched_setaffinity(%s) failed: %s", v, strerror(err));
				kfdmp__sendf(&io, "kfdmp 1 unsupported cpus ", msg);
				goto out;
			}
			cfg.cpus = v;
		} else if (strcmp(k, "graph") == 0) {
			if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
				snprintf(msg, sizeof msg, "option graph=%s: not 0 or 1", v);
				kfdmp__sendf(&io, "kfdmp 1 error ", msg);
				rc = 1;
				goto out;
			}
			if (v[0] == '1') {
				if (!supports || !kfdmp__in_list(supports, "graph")) {
					kfdmp__sendf(&io, "kfdmp 1 unsupported graph ", "this service cannot replay its "
						     "query as a captured graph (kfdmp_serve_supports(..., \"graph\") not used)");
					goto out;
				}
				cfg.graph = 1;
			}
		} else {
			snprintf(head, sizeof head, "kfdmp 1 unsupported %.60s ", k);
			kfdmp__sendf(&io, head, "unknown option (this helper knows threads, cpus, graph)");
			goto out;
		}
	}
	/* the service's own initialisation */
	if (setup) {
		int s;
		why[0] = 0;
		s = setup(&cfg, user, why, sizeof why);
		if (s == KFDMP_UNSUPPORTED) {
			kfdmp__sendf(&io, "kfdmp 1 unsupported ", why[0] ? why : "setup unsupported (no reason given)");
			goto out;
		}
		if (s != 0) {
			kfdmp__sendf(&io, "kfdmp 1 error setup failed: ", why[0] ? why : "(no reason given)");
			rc = 1;
			goto out;
		}
	}
	{
		char ready[200] = "kfdmp 1 ready";
		if (cfg.device[0]) {
			size_t o = strlen(ready), k;
			strcat(ready, " device=");
			o += 8;
			for (k = 0; cfg.device[k] && o < sizeof ready - 1; ++k)
				ready[o++] = (cfg.device[k] == ' ' || cfg.device[k] == '\t') ? '_' : cfg.device[k];
			ready[o] = 0;
		}
		if (cfg.gpu_time && strlen(ready) + 11 < sizeof ready)
			strcat(ready, " gpu_time=1");
		if (pipeline && strlen(ready) + 11 < sizeof ready)
			strcat(ready, " pipeline=1");
		if (kfdmp__sendf(&io, ready, NULL) != 0) {
			rc = 1;
			goto out;
		}
	}
	/* queries */
	while ((l = kfdmp__readline(&io)) != NULL) {
		unsigned long long seq;
		char tail;
		if (strcmp(l, "stop") == 0)
			break;
		if (sscanf(l, "query %llu%c", &seq, &tail) == 1 && strncmp(l, "query ", 6) == 0 && l[6] >= '0' &&
		    l[6] <= '9') {
			uint64_t gpu_ns = 0;
			int q;
			why[0] = 0;
			q = query((uint64_t)seq, user, &gpu_ns, why, sizeof why);
			if (q != 0) {
				snprintf(head, sizeof head, "fail %llu ", seq);
				if (kfdmp__sendf(&io, head, why[0] ? why : "(no reason given)") != 0) {
					rc = 1;
					goto out;
				}
				continue;
			}
			if (cfg.gpu_time)
				snprintf(head, sizeof head, "done %llu gpu_ns=%llu", seq, (unsigned long long)gpu_ns);
			else
				snprintf(head, sizeof head, "done %llu", seq);
			if (kfdmp__sendf(&io, head, NULL) != 0) {
				rc = 1; /* the launcher is gone */
				goto out;
			}
			continue;
		}
		snprintf(msg, sizeof msg, "unexpected line from the launcher: %.500s", l);
		kfdmp__sendf(&io, "kfdmp 1 error ", msg);
		rc = 2;
		goto out;
	}
out:
	fflush(stdout);
	for (i = 0; i < cfg.nenv; ++i) {
		free((void *)cfg.env_key[i]);
		free((void *)cfg.env_value[i]);
	}
	for (i = 0; i < cfg.nopt; ++i) {
		free((void *)cfg.opt_key[i]);
		free((void *)cfg.opt_value[i]);
	}
	free(io.buf);
	free(io.line);
	close(io.proto);
	return rc;
}

static KFDMP__UNUSED int kfdmp_serve(int argc, char **argv, kfdmp_query_fn query, kfdmp_setup_fn setup, void *user)
{
	return kfdmp_serve_supports(argc, argv, query, setup, user, NULL);
}

#ifdef __cplusplus
}
#endif
#endif /* KFDMP_WORKER_H */
