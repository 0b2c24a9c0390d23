/* main() for replaying fuzz inputs without libFuzzer (gcc builds): runs
 * LLVMFuzzerTestOneInput once on each file named on the command line and
 * prints TAP, one test per file.  A crash or a sanitizer report aborts the
 * run, which `make check-asan` reports as a failure.  Used to keep every
 * input in tests/fuzz/regressions/ (each once crashed policy/, or was
 * found slow) and the seed corpus passing under ASan+UBSan on every
 * `make check-asan`.  An input taking more than REPLAY_SECONDS (default 5;
 * `make fuzz` calls 10 s a hang) fails too: slow-carve-600-writable.json
 * took 19 s here when every appended element re-allocated its array. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (!bad)
		LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return bad ? -1 : 0;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int failed = 0;
	const char *lim = getenv("REPLAY_SECONDS");
	double limit = lim ? atof(lim) : 5.0;
	printf("1..%d\n", argc - 1);
	for (int i = 1; i < argc; i++) {
		double t0 = now();
		int rc = replay(argv[i]);
		double dt = now() - t0;
		int slow = dt > limit;
		printf("%s %d - replay %s (%.2f s)%s\n", rc || slow ? "not ok" : "ok", i,
		       argv[i], dt, slow ? " slower than REPLAY_SECONDS" : "");
		fflush(stdout);
		failed |= rc != 0 || slow;
	}
	return failed;
}
