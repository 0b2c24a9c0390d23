/* nop: a static program that does nothing and exits 0 — the floor of
 * starting one more program, and a command whose own memory and start-up
 * do not hide the shim's in `make bench` (scripts/bench): under
 * `__sandbox PROFILE -- nop` the peak RSS and the time are the shim's. */
int main(void)
{
	return 0;
}
