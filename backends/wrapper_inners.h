/*
 * wrapper_inners.h - the inner locks that every wrapper (capacitor.c,
 * restrict.c, slice.c) has a table of its own for, with the inner verbs
 * inlined into the wrapper's: LS_WRAPPER_INNER(name, algo), the backend's
 * name and its core/ verbs' prefix (ls_<algo>_*, header in wrapper.h).
 * Any other inner lock is composed through the generic table (an indirect
 * call per verb).  Included with LS_WRAPPER_INNER defined by the includer.
 */
LS_WRAPPER_INNER(futex, futexlock)
LS_WRAPPER_INNER(tts, tts)
LS_WRAPPER_INNER(ticket, ticket)
LS_WRAPPER_INNER(mcs, mcs)
LS_WRAPPER_INNER(queued, queued)
