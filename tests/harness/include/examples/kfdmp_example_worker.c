/* An example native worker built on kfdmp_worker.h, used by the tests
 * (tests/harness/python/tests/test_kfdmp_worker.py). No GPU: a query sleeps.
 *
 *   kfdmp --exec 'kfdmp-example-worker --sleep-us 1000'
 *
 * --sleep-us N       each query sleeps N microseconds (reported as gpu_ns)
 * --fail-at SEQ      query SEQ fails
 * --report-env KEY   ready's device names KEY's value, the threads and index
 * --report-cpus      ready's device names the CPUs the process may run on
 * --supports-graph   lets `option graph=1` through (it changes nothing here)
 */
#include "kfdmp_worker.h"

#include <time.h>

struct example {
	long sleep_us;
	unsigned long long fail_at;
	const char *report_env;
	int report_cpus;
};

static int example_setup(struct kfdmp_config *cfg, void *user, char *why, size_t why_len)
{
	struct example *ex = (struct example *)user;
	(void)why;
	(void)why_len;
	printf("example: a printf of the service (must reach stderr)\n");
	fflush(stdout);
	if (ex->report_cpus) {
		cpu_set_t set;
		int c, o = snprintf(cfg->device, sizeof cfg->device, "example:cpus=");
		sched_getaffinity(0, sizeof set, &set);
		for (c = 0; c < CPU_SETSIZE && o < (int)sizeof cfg->device - 8; ++c)
			if (CPU_ISSET(c, &set))
				o += snprintf(cfg->device + o, sizeof cfg->device - (size_t)o, "%s%d",
					      o > 13 ? "+" : "", c);
	} else if (ex->report_env) {
		const char *v = getenv(ex->report_env);
		snprintf(cfg->device, sizeof cfg->device, "example:%s=%s,threads=%d,index=%d", ex->report_env,
			 v ? v : "(unset)", cfg->threads, cfg->index);
	} else {
		snprintf(cfg->device, sizeof cfg->device, "example:threads=%d,index=%d", cfg->threads, cfg->index);
	}
	cfg->gpu_time = 1; /* query() reports its (simulated) device time */
	return 0;
}

static int example_query(uint64_t seq, void *user, uint64_t *gpu_ns, char *why, size_t why_len)
{
	struct example *ex = (struct example *)user;
	if (ex->fail_at && seq == ex->fail_at) {
		snprintf(why, why_len, "query %llu broke\non purpose", (unsigned long long)seq);
		return 1;
	}
	if (ex->sleep_us > 0) {
		struct timespec ts;
		ts.tv_sec = ex->sleep_us / 1000000;
		ts.tv_nsec = (ex->sleep_us % 1000000) * 1000;
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
		}
	}
	*gpu_ns = (uint64_t)ex->sleep_us * 1000u;
	return 0;
}

int main(int argc, char **argv)
{
	struct example ex;
	int i;
	memset(&ex, 0, sizeof ex);
	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--sleep-us") == 0 && i + 1 < argc)
			ex.sleep_us = atol(argv[++i]);
		else if (strcmp(argv[i], "--fail-at") == 0 && i + 1 < argc)
			ex.fail_at = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--report-env") == 0 && i + 1 < argc)
			ex.report_env = argv[++i];
		else if (strcmp(argv[i], "--report-cpus") == 0)
			ex.report_cpus = 1;
		else if (strcmp(argv[i], "--supports-graph") == 0)
			;
		else {
			fprintf(stderr, "kfdmp-example-worker: unknown argument '%s'\n", argv[i]);
			return 64;
		}
	}
	for (i = 1; i < argc; ++i)
		if (strcmp(argv[i], "--supports-graph") == 0)
			return kfdmp_serve_supports(argc, argv, example_query, example_setup, &ex, "graph");
	return kfdmp_serve(argc, argv, example_query, example_setup, &ex);
}
