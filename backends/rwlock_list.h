/*
 * rwlock_list.h - the one list of rwlock backends, in listing order
 * (LOCKSWAP_RWLOCK's default is rwlock.h's LS_RWLOCK_DEFAULT).  Each line names an ops table
 * ls_rwlock_backend_<name> defined in backends/rwlock_<name>.c (glibc's in
 * rwlock_table.c); rwlock_table.c turns the list into ls_rwlock_backends[],
 * and rwlock.h into LOCKSWAP_RWLOCK's choices.
 */
LS_RWLOCK_BACKEND(futex)
LS_RWLOCK_BACKEND(bravo)
LS_RWLOCK_BACKEND(slice)
LS_RWLOCK_BACKEND(glibc)
