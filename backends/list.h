/*
 * list.h - the one list of backends.  Each line names an ops table defined
 * in backends/<name>.c; table.c turns the list into ls_backends[].
 * Adding a backend = one file + one line here.
 */
LS_BACKEND(ls_backend_glibc)
LS_BACKEND(ls_backend_futex)
LS_BACKEND(ls_backend_bcs)
LS_BACKEND(ls_backend_bcs_wf)
LS_BACKEND(ls_backend_tts)
LS_BACKEND(ls_backend_ticket)
LS_BACKEND(ls_backend_mcs)
LS_BACKEND(ls_backend_queued)
LS_BACKEND(ls_backend_capacitor)
LS_BACKEND(ls_backend_restrict)
LS_BACKEND(ls_backend_slice)
