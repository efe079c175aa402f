/* say.h - one message line on stderr, without stdio or malloc: usable
 * before the library's constructor, inside a preloaded allocator's
 * start-up, and from the statistics' signal path.  Shared by interpose/
 * and stats/, which must not call each other. */
#ifndef LS_CORE_SAY_H
#define LS_CORE_SAY_H

void ls_say(const char *line);

#endif
