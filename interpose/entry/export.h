/* export.h - marks the symbols the library exports (the rest is hidden by
 * -fvisibility=hidden and preload.map). */
#ifndef LS_INTERPOSE_EXPORT_H
#define LS_INTERPOSE_EXPORT_H
#define LS_EXPORT __attribute__((visibility("default")))
#endif
