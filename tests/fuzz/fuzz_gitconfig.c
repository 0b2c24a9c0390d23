/* libFuzzer target for policy/gitconfig.c: gitcfg_parse() on arbitrary
 * bytes (git's config format from a file an earlier sandboxed run may
 * have written), and gitcfg_path() on every value it reports, with and
 * without a home and a base.  Pure: no syscall beyond the allocator's.
 * Built by `make fuzz` (clang -fsanitize=fuzzer,address,undefined) and,
 * with tests/fuzz/replay.c as main(), by `make check-asan` to replay the
 * corpus tests/fuzz/gitconfig/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../policy/gitconfig.h"

static int item(void *arg, const struct gitcfg_item *it)
{
	size_t *n = arg;
	char out[512];
	/* every string the parser hands over is NUL-terminated and readable */
	*n += strlen(it->section) + strlen(it->key) + (it->subsection ? strlen(it->subsection) : 0);
	if (it->value) {
		gitcfg_path(it->value, "/home/u", "/w/.git", out, sizeof out);
		gitcfg_path(it->value, NULL, NULL, out, sizeof out);
		gitcfg_path(it->value, "", "/", out, 8);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	/* an exact-size copy, so ASan sees any read past the end */
	char *b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	size_t bad = gitcfg_parse(b, size, item, &n);
	if (bad > size + 1)
		abort(); /* a line number past the input */
	free(b);
	return 0;
}
