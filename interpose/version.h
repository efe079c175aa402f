#ifndef LS_VERSION
#define LS_VERSION "0.1.0"
#endif
