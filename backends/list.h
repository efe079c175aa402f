/*
 * list.h - the one list of backends.  Each line names an ops table defined
 * in backends/<name>.c; table.c turns the list into ls_backends[].
 * Adding a backend = one file + one line here.
 */
LS_BACKEND(ls_backend_glibc)
LS_BACKEND(ls_backend_futex)
