/* empty.c - a preloadable library that does nothing: what any preload costs (touch.sh). */
int ls_empty_marker(void) { return 0; }
