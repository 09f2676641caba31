/* The C client as a program for test_client.cpp: kfdmp-sched-client-c SOCKET
 * sends, through the header, begin, begin (nested: nothing), end (nothing),
 * end, then an extra end (EINVAL, nothing sent). Exit 0 when every return
 * value was as expected. */
#include "kfdmp_sched_client.h"

int main(int argc, char** argv)
{
	struct kfdmp_sched_client c;
	if (argc != 2 || kfdmp_sched_client_open(&c, argv[1]) != 0)
		return 2;
	int bad = 0;
	bad |= kfdmp_sched_begin(&c) != 0;
	bad |= kfdmp_sched_begin(&c) != 0;
	bad |= kfdmp_sched_end(&c) != 0;
	bad |= kfdmp_sched_end(&c) != 0;
	bad |= kfdmp_sched_end(&c) != EINVAL;
	kfdmp_sched_client_close(&c);
	return bad;
}
