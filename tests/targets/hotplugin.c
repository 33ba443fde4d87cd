/* A shared object hotloop -d loads after sampling has started: its code
 * appears in a new executable mapping the sampler must re-report. */
__attribute__((noinline)) void plugin_work(void)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < 100000; i++)
		x += i;
}
