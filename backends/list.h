/*
 * list.h - the one list of mutex backends, in listing order.  Each line
 * names an ops table defined in backends/<name>.c; table.c turns the list
 * into ls_backends[].  A new backend also needs its core/ algorithm, its
 * README row and its tests; the settings it reads are declared in its own
 * file (`.settings`, setting.h), and this list brings them to the shim.
 * docs/hacking.md lists every step.
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
LS_BACKEND(ls_backend_ces)
