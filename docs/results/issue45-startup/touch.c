/* touch.c - a preloadable library whose constructor writes 20 pages of its
 * .bss (touch.sh makes a 60-page copy): what a first touch of a page costs
 * a process, against empty.c. */
static char big[64 * 4096] __attribute__((aligned(4096)));

__attribute__((constructor)) static void touch(void)
{
	for (int i = 0; i < 20; i++)
		((volatile char *)big)[i * 4096] = 1;
}

int ls_touch_marker(void) { return big[5]; }
