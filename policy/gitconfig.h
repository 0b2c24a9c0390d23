/* git's configuration file format, parsed without running git (issue 10
 * §2: protection follows git's own resolution of a repository).  Pure and
 * total: any byte string is accepted as input, nothing is read or
 * written but the buffer and the caller's callback.
 *
 * The rules follow git's config.c (git_parse_source, get_base_var,
 * get_extended_base_var, get_value, parse_value) and path.c
 * (interpolate_path):
 *  - a UTF-8 BOM at the start is skipped; CR LF is a newline;
 *  - "#" and ";" start a comment outside quoted values;
 *  - [section] (letters, digits, '-', '.'; case-insensitive),
 *    [section "subsection"] (case kept; \x stands for x, a newline ends
 *    it badly, the closing quote must be followed by ']'), and the
 *    legacy [section.subsection] (all of it lower-cased);
 *  - a key starts with a letter, then letters, digits, '-'
 *    (case-insensitive); a key without '=' is boolean true (value NULL);
 *  - a value: leading blanks skipped, trailing blanks dropped unless
 *    quoted, "..." toggles quoting, escapes \" \\ \n \t \b, a backslash
 *    before the newline continues the value on the next line; any other
 *    escape, or a newline inside quotes, makes the line malformed.
 * git refuses a file with a malformed line, so parsing stops there: what
 * came before is reported, nothing after. */
#ifndef SB_GITCONFIG_H
#define SB_GITCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* One "key = value" line.  Strings are borrowed for the callback only.
 * section and key are lower-case; subsection is NULL when the header has
 * none (case kept for the quoted form, lower-cased for the legacy one);
 * value is NULL for a key without '=' (git's implicit true), and may hold
 * a NUL git would also cut the string at.  line counts from 1. */
struct gitcfg_item {
	const char *section;
	const char *subsection;
	const char *key;
	const char *value;
	size_t line;
};

/* Return non-zero to stop parsing (gitcfg_parse then returns 0). */
typedef int (*gitcfg_cb)(void *arg, const struct gitcfg_item *it);

/* Parse buf[len] (need not be NUL-terminated), calling `cb` once per
 * key in file order.  Returns 0 when the whole buffer parsed (or `cb`
 * stopped it), else the 1-based number of the first malformed line.
 * Allocates one scratch buffer of len+1 bytes, freed before returning. */
size_t gitcfg_parse(const char *buf, size_t len, gitcfg_cb cb, void *arg);

/* Expand a pathname value as git's interpolate_path() does, into out[n]:
 * "~" and "~/..." take `home` (NULL or "": not expandable), a relative
 * result is joined to `base` (the including file's directory, the work
 * tree; NULL: left relative).  Git's optional-path marker ":(optional)"
 * is dropped.  "~user/..." and "%(prefix)/..." (another account's home,
 * git's install prefix) are not expanded here.  Returns 0, or -1 when the
 * value cannot be expanded (those forms, an empty value, too long). */
int gitcfg_path(const char *value, const char *home, const char *base,
		char *out, size_t n);

#endif
