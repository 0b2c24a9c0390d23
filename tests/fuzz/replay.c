/* main() for replaying fuzz inputs without libFuzzer (gcc builds): runs
 * LLVMFuzzerTestOneInput once on each file named on the command line and
 * prints TAP, one test per file.  A crash or a sanitizer report aborts the
 * run, which `make check-asan` reports as a failure.  Used to keep every
 * input in tests/fuzz/regressions/ (each once crashed policy/) and the
 * seed corpus passing under ASan+UBSan on every `make check-asan`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	int failed = 0;
	printf("1..%d\n", argc - 1);
	for (int i = 1; i < argc; i++) {
		int rc = replay(argv[i]);
		printf("%s %d - replay %s\n", rc ? "not ok" : "ok", i, argv[i]);
		fflush(stdout);
		failed |= rc != 0;
	}
	return failed;
}
