/* Classic BPF as seccomp runs it, in user space, for the denial report
 * (shim/denials.c): the listener is told *that* a call was refused (the
 * filter loaded with the report returns SECCOMP_RET_USER_NOTIF where the
 * plain one returns SECCOMP_RET_ERRNO) and finds *which* errno by running
 * the plain program on the very seccomp_data the kernel notified.  One
 * program decides both, so the report cannot disagree with the filter.
 * Pure: no system calls. */
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "seccomp_bpf.h"

/* Every instruction seccomp_check_filter() (kernel/seccomp.c) accepts,
 * with the kernel's meaning: loads of seccomp_data only (32-bit, aligned,
 * in bounds), BPF_LEN is sizeof(struct seccomp_data), division by zero
 * ends the program returning 0 (classic BPF, net/core/filter.c), jumps
 * only forward (bpf_check_classic).  Anything else → *ok = false. */
uint32_t bpf_run(const struct sock_filter *prog, size_t n,
		 const struct seccomp_data *d, bool *ok)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	const unsigned char *data = (const unsigned char *)d;
	*ok = true;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint32_t k = f->k;
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k >= sizeof *d || (k & 3))
				goto bad;
			memcpy(&a, data + k, sizeof a);
			continue;
		case BPF_LD | BPF_W | BPF_LEN:
			a = sizeof *d;
			continue;
		case BPF_LDX | BPF_W | BPF_LEN:
			x = sizeof *d;
			continue;
		case BPF_LD | BPF_IMM:
			a = k;
			continue;
		case BPF_LDX | BPF_IMM:
			x = k;
			continue;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				goto bad;
			if (f->code == (BPF_LD | BPF_MEM))
				a = mem[k];
			else if (f->code == (BPF_LDX | BPF_MEM))
				x = mem[k];
			else
				mem[k] = f->code == BPF_ST ? a : x;
			continue;
		case BPF_MISC | BPF_TAX:
			x = a;
			continue;
		case BPF_MISC | BPF_TXA:
			a = x;
			continue;
		case BPF_RET | BPF_K:
			return k;
		case BPF_RET | BPF_A:
			return a;
		case BPF_ALU | BPF_NEG:
			a = -a;
			continue;
		case BPF_JMP | BPF_JA:
			if (k >= n - pc)
				goto bad;
			pc += k;
			continue;
		default:
			break;
		}
		if (BPF_CLASS(f->code) == BPF_ALU) {
			switch (BPF_OP(f->code)) {
			case BPF_ADD: a += src; continue;
			case BPF_SUB: a -= src; continue;
			case BPF_MUL: a *= src; continue;
			case BPF_DIV:
				if (!src)
					return 0;
				a /= src;
				continue;
			case BPF_AND: a &= src; continue;
			case BPF_OR: a |= src; continue;
			case BPF_XOR: a ^= src; continue;
			case BPF_LSH: a = src < 32 ? a << src : 0; continue;
			case BPF_RSH: a = src < 32 ? a >> src : 0; continue;
			default: goto bad;
			}
		}
		if (BPF_CLASS(f->code) == BPF_JMP) {
			bool t;
			switch (BPF_OP(f->code)) {
			case BPF_JEQ: t = a == src; break;
			case BPF_JGT: t = a > src; break;
			case BPF_JGE: t = a >= src; break;
			case BPF_JSET: t = (a & src) != 0; break;
			default: goto bad;
			}
			size_t off = t ? f->jt : f->jf;
			if (off >= n - pc)
				goto bad;
			pc += off;
			continue;
		}
		goto bad;
	}
bad:
	/* fell off the end or an instruction the kernel would have refused */
	*ok = false;
	return SECCOMP_RET_KILL_PROCESS;
}

struct sock_filter *bpf_errno_to_notify(const struct sock_filter *prog, size_t n)
{
	struct sock_filter *out = xmalloc(n * sizeof *out);
	for (size_t i = 0; i < n; i++) {
		out[i] = prog[i];
		if (prog[i].code == (BPF_RET | BPF_A)) {
			/* the action is not known before the program runs */
			free(out);
			return NULL;
		}
		if (prog[i].code == (BPF_RET | BPF_K) &&
		    (prog[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
			out[i].k = SECCOMP_RET_USER_NOTIF;
	}
	return out;
}
